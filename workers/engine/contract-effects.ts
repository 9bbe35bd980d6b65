/**
 * @module Contract-declared effects (the language reference's "`effect`"): when a command of an
 * action that declares effects is accepted, and its tenant has switched those effects on, each
 * effect's fields are rendered from the command's arguments and the record's new state and the
 * effect is appended to the journal (topic `effect`, the outbox's) inside the transaction that
 * commits the command — the outbox pattern: the state change and its effects are written together
 * or not at all, and a refused command queues nothing. The outbox worker does them once each.
 *
 * Switched off by default: `tenants.effects` is NULL until the tenant's operator (the person, on
 * the personal node) turns them on, naming the email account mail is sent from. A replicated
 * store never queues them (every voter would, and each would send).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { EffectPart, SchemaEffect } from "../../contracts/schema.ts";
import type { Journal } from "../../shared/journal.ts";
import type { TenantEffects } from "../../shared/protocol/engine.ts";
import { EFFECT_TOPIC, type EffectPayload } from "../../shared/protocol/outbox.ts";

export type { TenantEffects };

/** Where an effect came from: named in its entry, shown by `/api/outbox`. */
export interface EffectSource {
  readonly tenant: string;
  readonly namespace: string;
  readonly action: string;
  readonly subject: string;
  readonly receipt: string;
  readonly seq: number;
}

/** A contract's effect as its journal entry holds it. */
export type ContractEffectPayload = EffectPayload & { readonly source: EffectSource };

/** The connector and effect each `effect` kind is done by. */
const DONE_BY: Readonly<Record<string, { connector: string; effect: string }>> = {
  email: { connector: "email", effect: "send" },
  pdf: { connector: "pdf", effect: "render" },
};

/** Reads a stored setting (never throws: anything unreadable is "off"). */
export function tenantEffectsOf(text: string | null): TenantEffects | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as Partial<TenantEffects>;
    const account = typeof v.email === "object" && v.email !== null && typeof v.email.account === "string" ? v.email.account : null;
    return { email: account === null ? null : { account }, pdf: v.pdf === true };
  } catch {
    return null;
  }
}

/** The values a template reads. */
export interface RenderInput {
  readonly args: Readonly<Record<string, unknown>>;
  readonly state: Readonly<Record<string, unknown>>;
  readonly signer: string;
  readonly time: number;
}

function partValue(part: EffectPart, input: RenderInput): unknown {
  if ("text" in part) return part.text;
  if ("param" in part) return input.args[part.param];
  if ("state" in part) return input.state[part.state];
  return part.context === "time" ? input.time : input.signer;
}

/** A value as template text: a number in decimal, a list's elements joined by ", ", unset as "". */
function asText(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return v.map(asText).join(", ");
  return "";
}

/** One effect's fields: each a text, or for an address field holding a list, the list. */
export function renderEffect(effect: SchemaEffect, input: RenderInput): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const f of effect.fields) {
    const values = f.parts.map((p) => partValue(p, input));
    const only = values.length === 1 ? values[0] : undefined;
    out[f.field] = Array.isArray(only) ? only.map(asText) : values.map(asText).join("");
  }
  return out;
}

/** The journal payload of one rendered effect, or null when the tenant has not switched its kind on. */
export function effectEntry(effect: SchemaEffect, settings: TenantEffects, input: RenderInput, source: EffectSource): ContractEffectPayload | null {
  const by = DONE_BY[effect.effect];
  if (by === undefined) return null;
  const fields = renderEffect(effect, input);
  const text = (name: string) => (typeof fields[name] === "string" ? fields[name] : "");
  const list = (name: string): string[] => {
    const v = fields[name];
    if (v === undefined) return [];
    return (Array.isArray(v) ? v : [v]).map((a) => a.trim()).filter((a) => a !== "");
  };
  if (effect.effect === "email") {
    if (settings.email === null) return null;
    return {
      connector: by.connector,
      effect: by.effect,
      account: settings.email.account,
      args: { to: list("to"), cc: list("cc"), bcc: [], ...(text("reply_to") === "" ? {} : { replyTo: text("reply_to") }), subject: text("subject"), text: text("text"), html: null, inReplyTo: null, references: [] },
      source,
    };
  }
  if (!settings.pdf) return null;
  return { connector: by.connector, effect: by.effect, account: null, args: { title: text("title"), text: text("text"), file: text("file"), time: input.time }, source };
}

/** The engine's side: each tenant's setting (cached), and queuing inside the committing transaction. */
export class ContractEffects {
  readonly #journal: Journal;
  readonly #read: StatementSync;
  readonly #write: StatementSync;
  readonly #cache = new Map<string, TenantEffects | null>();

  constructor(db: DatabaseSync, journal: Journal) {
    this.#journal = journal;
    this.#read = db.prepare("SELECT effects FROM tenants WHERE handle = ?");
    this.#write = db.prepare("UPDATE tenants SET effects = ? WHERE handle = ?");
  }

  /** A tenant's setting; null: off (or no such tenant). */
  settings(tenant: string): TenantEffects | null {
    if (this.#cache.has(tenant)) return this.#cache.get(tenant) ?? null;
    const row = this.#read.get(tenant) as { effects: string | null } | undefined;
    const value = tenantEffectsOf(row?.effects ?? null);
    this.#cache.set(tenant, value);
    return value;
  }

  /** Switches a tenant's effects (null: all off); false when there is no such tenant. */
  set(tenant: string, value: TenantEffects | null): boolean {
    const off = value === null || (value.email === null && !value.pdf);
    const changed = this.#write.run(off ? null : JSON.stringify(value), tenant).changes === 1;
    this.#cache.delete(tenant);
    return changed;
  }

  /**
   * Queues what an accepted command's action declares, in the caller's open transaction; answers
   * how many entries were added. Each is keyed by the receipt and its place in the action, so
   * applying the same history again queues nothing more.
   */
  queue(effects: readonly SchemaEffect[], input: RenderInput, source: EffectSource): number {
    const settings = this.settings(source.tenant);
    if (settings === null) return 0;
    let added = 0;
    effects.forEach((effect, index) => {
      const payload = effectEntry(effect, settings, input, source);
      if (payload === null) return;
      this.#journal.append(EFFECT_TOPIC, payload, { key: `${source.receipt}:${index}` });
      added += 1;
    });
    return added;
  }
}
