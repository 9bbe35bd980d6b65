/**
 * @module What the engine logs of its write path: refusals (who was refused what, and why) and
 * each batch slower than a threshold. Never a command's arguments, JWS or signer: a refusal line
 * names the tenant, namespace, action and reason code, which is enough to find the receipt.
 */
import type { Receipt } from "../../shared/identity/index.ts";
import type { Logger } from "../../shared/log.ts";
import { type BatchOptions, type CommandDeps, CommandProcessor, type Pending } from "./commands.ts";

/** A batch that takes longer than this (plan, run and commit) is logged; `CHARTER_SLOW_BATCH_MS` overrides. */
export const SLOW_BATCH_MS = 250;

/** The slow-batch threshold from `CHARTER_SLOW_BATCH_MS`, else the default. */
export function slowBatchMs(env: Record<string, string | undefined> = process.env): number {
  const ms = Number(env.CHARTER_SLOW_BATCH_MS);
  return env.CHARTER_SLOW_BATCH_MS !== undefined && Number.isFinite(ms) && ms >= 0 ? ms : SLOW_BATCH_MS;
}

/**
 * Logs the refused receipts of a commit, at info (a refusal is the contract working as written):
 * one line per tenant, namespace, action and reason, with how many of the commit's commands it
 * covers — a client sending the same refused command over and over writes a line per batch, not
 * per command.
 */
export function logRefusals(log: Logger, receipts: readonly Receipt[]): void {
  let lines: Map<string, { tenant: string; namespace: string; action: string; reason: string | null; count: number }> | null = null;
  for (const r of receipts) {
    if (r.outcome !== "refused") continue;
    const reason = r.reason?.code ?? null;
    const key = `${r.tenant}\u0000${r.namespace}\u0000${r.action}\u0000${reason}`;
    lines ??= new Map();
    const line = lines.get(key);
    if (line === undefined) lines.set(key, { tenant: r.tenant, namespace: r.namespace, action: r.action, reason, count: 1 });
    else line.count++;
  }
  for (const line of lines?.values() ?? []) log.info("refused", line);
}

/** The command processor, timing each batch it applies and logging the slow ones (with how many commands, and how long). */
export class TimedCommandProcessor extends CommandProcessor {
  readonly #log: Logger;
  readonly #slowMs: number;
  readonly #now: () => number;

  constructor(deps: CommandDeps, log: Logger, options: { slowMs?: number; now?: () => number } = {}) {
    super(deps);
    this.#log = log;
    this.#slowMs = options.slowMs ?? SLOW_BATCH_MS;
    this.#now = options.now ?? (() => performance.now());
  }

  override async applyBatch(batch: readonly Pending[], options: BatchOptions): Promise<boolean> {
    const started = this.#now();
    try {
      return await super.applyBatch(batch, options);
    } finally {
      const ms = this.#now() - started;
      if (ms >= this.#slowMs) this.#log.warn("slow batch", { commands: batch.length, ms: Math.round(ms) });
    }
  }
}
