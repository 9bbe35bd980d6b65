/**
 * @module The gateway's side of the outbox channel (shared/protocol/outbox.ts): it listens on
 * `DATA/run/outbox.sock` for the outbox worker, answers what an effect needs of a connector
 * account (its settings and sealed secret, opened here), and queues effects: each one a journal
 * entry (topic `effect`) with its idempotency key, written before anything is acted on, after
 * which the outbox is woken.
 */
import type { Server } from "node:net";
import type { Channel } from "../../../../shared/channel/channel.ts";
import { listenPrivateChannels } from "../../../../shared/channel/socket.ts";
import type { ConnectorManifest } from "../../../../shared/connectors/manifest.ts";
import { type ConnectorAccountConfig, EFFECT_TOPIC, type EffectPayload, effectPayload, type MailAccount, type OutboxHostNotices, type OutboxHostRequests } from "../../../../shared/protocol/outbox.ts";
import type { JournalListEntry } from "../../../../shared/journal.ts";
import type { Logger } from "../../../../shared/log.ts";
import type { EngineLink } from "../../../../shared/worker/engine-link.ts";
import type { TenantEffects } from "../../../../shared/protocol/engine.ts";
import { HttpProblem } from "../../../../shared/problem.ts";

type HostChannel = Channel<OutboxHostNotices & Record<string, never>, OutboxHostRequests>;

/** The largest arguments an effect may carry, as JSON. */
export const MAX_EFFECT_ARGS = 12 * 1024 * 1024;

/** An effect to queue: what its entry holds, and its idempotency key (queuing the same key again queues nothing more). */
export type QueueEffect = EffectPayload & { readonly key: string };

export interface OutboxHostDeps {
  readonly engine: EngineLink;
  readonly manifests: ReadonlyMap<string, ConnectorManifest>;
  readonly account: (connector: string, account: string) => ConnectorAccountConfig | null;
  /** The email accounts whose inbox the outbox reads (comms/comms.ts); none when absent. */
  readonly mailAccounts?: () => MailAccount[];
  readonly log: Logger;
}

export class OutboxHost {
  readonly #deps: OutboxHostDeps;
  readonly #channels = new Set<HostChannel>();
  #server: Server | null = null;

  constructor(deps: OutboxHostDeps) {
    this.#deps = deps;
  }

  async listen(path: string): Promise<void> {
    this.#server = await listenPrivateChannels<OutboxHostNotices & Record<string, never>, OutboxHostRequests>(path, (channel) => this.#accept(channel as unknown as HostChannel));
  }

  /** Queues an effect (once per key) and wakes the outbox; the journal entry's id. Throws RangeError for an effect no connector declares. */
  async queue(effect: QueueEffect): Promise<number> {
    const manifest = this.#deps.manifests.get(effect.connector);
    if (manifest?.effects[effect.effect] === undefined) throw new RangeError(`no connector declares ${effect.connector}.${effect.effect}`);
    const payload: EffectPayload = { connector: effect.connector, effect: effect.effect, account: effect.account, args: effect.args };
    if (JSON.stringify(payload).length > MAX_EFFECT_ARGS) throw new RangeError("the effect's arguments are too large");
    const { id } = await this.#deps.engine.request("journal-append", { topic: EFFECT_TOPIC, payload, key: effect.key });
    this.wake();
    return id;
  }

  /** Tells the outbox there is work. */
  wake(): void {
    this.#notify("wake", {});
  }

  /** Tells the outbox an account's settings changed. */
  accountChanged(connector: string, account: string): void {
    this.#notify("account-changed", { connector, account });
  }

  close(): void {
    for (const channel of this.#channels) channel.close();
    this.#server?.close();
  }

  #notify<K extends keyof OutboxHostNotices & string>(kind: K, body: OutboxHostNotices[K]): void {
    for (const channel of this.#channels) {
      (channel.notify as (k: string, b: unknown) => void)(kind, body);
      channel.flush();
    }
  }

  #accept(channel: HostChannel): void {
    this.#channels.add(channel);
    channel.onClose(() => this.#channels.delete(channel));
    channel.handle("connector-account", ({ connector, account }) => {
      try {
        return this.#deps.account(connector, account);
      } catch (error) {
        this.#deps.log.error("a connector account could not be opened", { connector, account, error: String(error) });
        return null;
      }
    });
    // A failure is answered as one: the outbox keeps its readers and asks again.
    channel.handle("mail-accounts", () => this.#deps.mailAccounts?.() ?? []);
  }
}

/** An effect as `/api/outbox` shows it. */
export interface EffectView {
  id: string;
  connector: string | null;
  effect: string | null;
  account: string | null;
  key: string | null;
  args: unknown;
  state: "pending" | "running" | "done" | "dead";
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  doneAt: string | null;
  providerId: string | null;
  receipt: string | null;
  /** The command whose contract declared it (`effect` in an action), or null for one the node queued. */
  source: { tenant: string; namespace: string; action: string; subject: string; receipt: string; seq: number } | null;
}

const STATES = { pending: ["ready", "claimed"], done: ["done"], dead: ["dead"] } as const;
export type EffectListState = keyof typeof STATES;

/** The outbox's effects through the engine's journal: lists, one, a dead one retried or dropped. */
export class OutboxEffects {
  readonly #engine: EngineLink;

  constructor(engine: EngineLink) {
    this.#engine = engine;
  }

  /** Effects in `state`, newest first, `limit` after the cursor `after` (an effect id). */
  async list(state: EffectListState, after: number | null, limit: number): Promise<{ items: EffectView[]; next: string | null }> {
    const rows = await this.#engine.request("journal-list", { topic: EFFECT_TOPIC, states: [...STATES[state]], ...(after === null ? {} : { after }), limit: limit + 1, newestFirst: true });
    const items = rows.slice(0, limit).map(effectView);
    return { items, next: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
  }

  async get(id: number): Promise<EffectView | null> {
    const row = await this.#engine.request("journal-get", { topic: EFFECT_TOPIC, id });
    return row === null ? null : effectView(row);
  }

  revive(id: number): Promise<boolean> {
    return this.#engine.request("journal-revive", { topic: EFFECT_TOPIC, id });
  }

  drop(id: number): Promise<boolean> {
    return this.#engine.request("journal-drop", { topic: EFFECT_TOPIC, id });
  }

  /** Which contract-declared effects a tenant has switched on (null: none). */
  tenantEffects(tenant: string): Promise<TenantEffects | null> {
    return this.#engine.request("tenant-effects", { tenant });
  }

  /** Switches a tenant's contract-declared effects; throws the engine's problem when it refuses. */
  async setTenantEffects(tenant: string, effects: TenantEffects | null): Promise<void> {
    const answer = await this.#engine.request("tenant-effects-set", { tenant, effects });
    if (!answer.ok) throw new HttpProblem(answer.problem);
  }
}


function effectView(row: JournalListEntry): EffectView {
  const p = effectPayload(row.payload);
  const effect = typeof p === "string" ? null : p;
  const r = (typeof row.result === "object" && row.result !== null ? row.result : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" ? v : null);
  return {
    id: `effect-${row.id}`,
    connector: effect?.connector ?? null,
    effect: effect?.effect ?? null,
    account: effect?.account ?? null,
    key: row.key,
    args: effect?.args ?? null,
    state: row.state === "ready" ? "pending" : row.state === "claimed" ? "running" : row.state,
    attempts: row.attempts,
    maxAttempts: row.maxAttempts,
    lastError: row.lastError,
    nextAttemptAt: row.state === "ready" ? new Date(row.availableAt).toISOString() : null,
    createdAt: new Date(row.createdAt).toISOString(),
    doneAt: row.doneAt === null ? null : new Date(row.doneAt).toISOString(),
    providerId: text(r.providerId),
    receipt: text(r.receipt),
    source: sourceOf(row.payload),
  };
}

/** The declaring command an entry names (contract-declared effects), read field by field. */
function sourceOf(payload: unknown): EffectView["source"] {
  const s = typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>).source : null;
  if (typeof s !== "object" || s === null) return null;
  const o = s as Record<string, unknown>;
  const { tenant, namespace, action, subject, receipt, seq } = o;
  if (typeof tenant !== "string" || typeof namespace !== "string" || typeof action !== "string" || typeof subject !== "string" || typeof receipt !== "string" || typeof seq !== "number") return null;
  return { tenant, namespace, action, subject, receipt, seq };
}

/** The journal id of an effect id `effect-<n>`, or null. */
export function effectNumber(id: string): number | null {
  const m = /^effect-(\d{1,15})$/.exec(id);
  return m === null ? null : Number(m[1]);
}
