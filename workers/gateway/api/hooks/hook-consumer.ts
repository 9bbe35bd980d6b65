/**
 * @module Acting on admitted webhook deliveries: the gateway takes `hook` entries from the journal
 * (the listener wrote them; acting happens only from here) and makes each the command its mapping
 * says, signed as the person with the delivery's id as the idempotency key — so a delivery taken up
 * again after a crash is answered the receipt of the command already made, never a second command.
 *
 * What came of each is kept on its entry: done, with the command's receipt (`complete`'s result);
 * ignored, when no mapping matches it (done too, with the reason); or dead-lettered at once, with
 * the reason, when it can never succeed as it is — the contract refused the command, the payload
 * lacks a value a mapping takes, the mapping names a contract no longer installed. What may pass
 * (the engine restarting, a rate limit) is tried again with the journal's back-off.
 */
import type { JournalEntry } from "../../../../shared/journal.ts";
import { checkJsonTextDepth } from "../../../../shared/json-limits.ts";
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem } from "../../../../shared/problem.ts";
import { HOOK_SOURCES, HOOK_TOPIC, type HookDelivery } from "../../../../shared/protocol/outbox.ts";
import { receiptOf } from "../../../../shared/identity/index.ts";
import type { EngineLink } from "../../../../shared/worker/engine-link.ts";
import { JournalConsumer, PermanentEntryError } from "../../../../shared/worker/journal-consumer.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { type ActionShape, hookCommand } from "./hook-command.ts";
import { matchMapping } from "./hook-mapping.ts";
import type { HookSettings } from "./hook-settings.ts";

/** What a delivery came to, kept as its journal entry's result. */
export type HookResult =
  | { readonly outcome: "done"; readonly command: { readonly namespace: string; readonly action: string; readonly subject: string; readonly seq: number; readonly receipt: string } }
  | { readonly outcome: "ignored"; readonly reason: string };

/** Entries claimed at once: each holds a body of up to 1 MiB, so a claim holds at most 16 MiB of them. */
const CLAIM_BATCH = 16;

export interface HookConsumerDeps {
  readonly engine: EngineLink;
  readonly writer: PersonWriter;
  readonly reader: PersonReader;
  readonly settings: HookSettings;
  /** The gateway's claimant name (the supervisor hands its claims back when it dies). */
  readonly claimant: string;
  readonly log: Logger;
}

/** Takes `hook` entries from the journal and acts on each. */
export class HookConsumer {
  readonly #deps: HookConsumerDeps;
  readonly #consumer: JournalConsumer;

  constructor(deps: HookConsumerDeps) {
    this.#deps = deps;
    this.#consumer = new JournalConsumer(deps.engine, { claimant: deps.claimant, topics: [HOOK_TOPIC], batch: CLAIM_BATCH, idleMs: 250 }, (entry) => this.#take(entry), deps.log);
  }

  start(): void {
    this.#consumer.start();
  }

  stop(): Promise<void> {
    return this.#consumer.stop();
  }

  /** Acts on one entry: what it came to is its result; it throws to be tried again only for what may pass. */
  async #take(entry: JournalEntry): Promise<{ result: HookResult }> {
    const result = await this.#act(entry);
    this.#deps.log.debug("webhook delivery done", { entry: entry.id, key: entry.key, outcome: result.outcome });
    return { result };
  }

  async #act(entry: JournalEntry): Promise<HookResult> {
    const delivery = deliveryOf(entry.payload);
    const body = bodyOf(delivery.body);
    const mapping = matchMapping(this.#deps.settings.mappings(), delivery.source, delivery.event, delivery.action);
    const named = `${delivery.source} ${delivery.event || "(no event)"}${delivery.action === "" ? "" : ` ${delivery.action}`}`;
    if (mapping === null) return { outcome: "ignored", reason: `no mapping for ${named}` };
    const shape = this.#shape(mapping.command.namespace, mapping.command.action);
    const command = hookCommand(mapping, shape, delivery, body);
    if (!command.ok) throw new PermanentEntryError(command.reason);
    const answer = await this.#deps.writer.act({ namespace: command.namespace, action: command.action, subject: command.subject, args: command.args, idempotencyKey: command.idempotencyKey });
    if (answer.kind === "problem") {
      const p = answer.problem;
      // What may pass: the engine away or busy, the disk full, the node not yet set up.
      if (p.status >= 500 || p.status === 429 || p.code === "not-set-up") throw new Error(`${p.code}: ${p.detail}`);
      throw new PermanentEntryError(`${command.namespace} ${command.action}: ${p.code}: ${p.detail}${errorsOf(p.errors)}`);
    }
    const receipt = receiptOf(answer.jws);
    if (answer.outcome === "refused") {
      throw new PermanentEntryError(`${command.namespace} refused ${command.action} (receipt seq ${receipt.seq}): ${receipt.reason?.code ?? "refused"}: ${receipt.reason?.message ?? "no reason recorded"}`);
    }
    return { outcome: "done", command: { namespace: command.namespace, action: command.action, subject: command.subject, seq: receipt.seq, receipt: answer.jws } };
  }

  /** The action's parameters and aggregate in the personal tenant's contract, as installed now. */
  #shape(namespace: string, action: string): ActionShape {
    try {
      return this.#deps.reader.read(undefined, (r) => {
        const found = Object.values(r.contract(namespace).schema.actions).find((a) => a.name === action && a.exposure !== "internal");
        if (found === undefined) throw new PermanentEntryError(`${namespace} has no action ${action} (the mapping names one the installed contract does not have)`);
        return { aggregate: found.aggregate, params: found.params };
      });
    } catch (error) {
      if (error instanceof HttpProblem && error.problem.code === "not-set-up") throw new Error(error.problem.detail, { cause: error });
      if (error instanceof HttpProblem && error.problem.status === 404) throw new PermanentEntryError(`${namespace} is not installed in the personal tenant`, { cause: error });
      throw error;
    }
  }
}

/** The entry's delivery, as the listener wrote it; anything else is dead-lettered. */
function deliveryOf(payload: unknown): HookDelivery {
  const d = payload as Partial<HookDelivery> | null;
  const ok =
    d !== null &&
    typeof d === "object" &&
    (HOOK_SOURCES as readonly unknown[]).includes(d.source) &&
    typeof d.delivery === "string" &&
    typeof d.event === "string" &&
    typeof d.action === "string" &&
    typeof d.receivedAt === "number" &&
    typeof d.body === "string";
  if (!ok) throw new PermanentEntryError("the journal entry is not a webhook delivery");
  return d as HookDelivery;
}

/** The delivery's body, parsed (the listener admitted only JSON objects). */
function bodyOf(text: string): Record<string, unknown> {
  if (checkJsonTextDepth(text, 64) !== null) throw new PermanentEntryError("the delivery's body is nested too deep");
  try {
    const value = JSON.parse(text) as unknown;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Answered below.
  }
  throw new PermanentEntryError("the delivery's body is not a JSON object");
}

/** A problem's field errors, briefly (the engine names the argument that is wrong). */
function errorsOf(errors: readonly object[] | undefined): string {
  if (errors === undefined || errors.length === 0) return "";
  return ` (${errors
    .slice(0, 3)
    .map((e) => {
      const { pointer, detail } = e as { pointer?: unknown; detail?: unknown };
      return `${typeof pointer === "string" ? pointer : ""} ${typeof detail === "string" ? detail : ""}`.trim();
    })
    .join("; ")})`;
}
