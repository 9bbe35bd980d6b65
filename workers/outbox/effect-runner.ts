/**
 * @module The durable outbox's loop: it claims `effect` entries of the journal (written before
 * anything was acted on, each with its idempotency key), runs each through its connector's queue
 * (p-queue: the manifest's concurrency and rate), and reports the outcome to the engine — done
 * effects in batches (`effect-complete`: each marked done with its signed receipt, in one
 * transaction), failures one by one (`journal-fail`: retried after exponential back-off with
 * jitter, or dead-lettered with the reason after the last attempt, or at once for a failure no
 * retry can mend). A claim outlives its holder only by its lease: a worker killed at any point
 * leaves each effect either done with its receipt or claimable again (handed back at once by the
 * supervisor), and its next attempt carries the same idempotency key.
 */
import PQueue from "p-queue";
import type { ConnectorManifest } from "../../shared/connectors/manifest.ts";
import type { JournalEntry } from "../../shared/journal.ts";
import type { Logger } from "../../shared/log.ts";
import { type ConnectorAccountConfig, EFFECT_TOPIC, type EffectPayload, effectPayload } from "../../shared/protocol/outbox.ts";
import type { EngineLink } from "../../shared/worker/engine-link.ts";
import { type Connector, PermanentEffectError } from "./connectors/connector.ts";

/** An effect's attempt is given this long before it is abandoned (and retried). */
const ATTEMPT_TIMEOUT_MS = 120_000;
/** A claim is this worker's this long: longer than an attempt, so a live worker never loses one it is running. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 60_000;
/** Effects claimed at once, at most (and in flight, across connectors). */
const CLAIM_BATCH = 512;
const MAX_IN_FLIGHT = 2048;
const POLL_MS = 1000;

export interface EffectRunnerDeps {
  readonly engine: EngineLink;
  readonly claimant: string;
  readonly manifests: ReadonlyMap<string, ConnectorManifest>;
  readonly connectors: ReadonlyMap<string, Connector>;
  /** An account's settings, secret included (asked of the gateway); null when there is no such account. */
  readonly account: (connector: string, account: string) => Promise<ConnectorAccountConfig | null>;
  readonly log: Logger;
  readonly status: (text: string) => void;
  readonly random?: () => number;
}

/** Back-off before attempt `attempts + 1`: doubling from `baseMs`, capped at `maxMs`, then a random half of it added or not ("equal jitter"). */
export function backoffMs(retry: ConnectorManifest["retry"], attempts: number, random: () => number = Math.random): number {
  const ceiling = Math.min(retry.maxMs, retry.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export class EffectRunner {
  readonly #deps: EffectRunnerDeps;
  readonly #queues = new Map<string, PQueue>();
  readonly #inFlight = new Set<number>();
  #done: { id: number; providerId: string | null }[] = [];
  #flushing: Promise<void> | null = null;
  #stopping = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #counts = { done: 0, retried: 0, dead: 0 };

  constructor(deps: EffectRunnerDeps) {
    this.#deps = deps;
    for (const [name, manifest] of deps.manifests) {
      const { concurrency, perSecond } = manifest.queue;
      this.#queues.set(name, new PQueue(perSecond > 0 ? { concurrency, intervalCap: perSecond, interval: 1000 } : { concurrency }));
    }
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** There may be work: claim now rather than at the next poll. */
  wake(): void {
    this.#wake?.();
  }

  /** Stops claiming, lets the effects in hand finish (their outcomes reported), and stops. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    await Promise.all([...this.#queues.values()].map((q) => q.onIdle()));
    await this.#flush();
  }

  get counts(): { done: number; retried: number; dead: number; inFlight: number } {
    return { ...this.#counts, inFlight: this.#inFlight.size };
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      const free = Math.min(CLAIM_BATCH, MAX_IN_FLIGHT - this.#inFlight.size);
      let entries: JournalEntry[] = [];
      if (free > 0) {
        try {
          entries = await this.#deps.engine.request("journal-claim", { claimant: this.#deps.claimant, topics: [EFFECT_TOPIC], limit: free, leaseMs: LEASE_MS });
        } catch (error) {
          this.#deps.log.debug("claiming effects failed; trying again", { error: String(error) });
        }
      }
      for (const entry of entries) this.#take(entry);
      if (entries.length < free || free === 0) await this.#idle(free === 0 ? 20 : POLL_MS);
    }
  }

  #take(entry: JournalEntry): void {
    if (this.#inFlight.has(entry.id)) return;
    const payload = effectPayload(entry.payload);
    if (typeof payload === "string") {
      void this.#fail(entry, new PermanentEffectError(payload), null);
      return;
    }
    const manifest = this.#deps.manifests.get(payload.connector);
    const connector = this.#deps.connectors.get(payload.connector);
    const queue = this.#queues.get(payload.connector);
    if (manifest === undefined || connector === undefined || queue === undefined || manifest.effects[payload.effect] === undefined) {
      void this.#fail(entry, new PermanentEffectError(`no connector performs ${payload.connector}.${payload.effect}`), null);
      return;
    }
    this.#inFlight.add(entry.id);
    void queue.add(() => this.#perform(entry, payload, manifest, connector));
  }

  async #perform(entry: JournalEntry, payload: EffectPayload, manifest: ConnectorManifest, connector: Connector): Promise<void> {
    const controller = new AbortController();
    const signal = controller.signal;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`the attempt took longer than ${ATTEMPT_TIMEOUT_MS / 1000} s`));
      }, ATTEMPT_TIMEOUT_MS);
    });
    try {
      let account: ConnectorAccountConfig | null = null;
      if (connector.needsAccount) {
        if (payload.account === null) throw new PermanentEffectError(`${payload.connector}.${payload.effect} needs an account`);
        account = await this.#deps.account(payload.connector, payload.account);
        if (account === null) throw new PermanentEffectError(`there is no ${payload.connector} account ${JSON.stringify(payload.account)}`);
      }
      const outcome = await Promise.race([
        connector.perform(payload.effect, { id: entry.id, key: entry.key ?? `effect-${entry.id}`, attempts: entry.attempts, args: payload.args, account, signal }),
        timedOut,
      ]);
      this.#done.push({ id: entry.id, providerId: outcome.providerId });
      void this.#flush();
    } catch (error) {
      await this.#fail(entry, error, manifest);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Reports the done effects gathered so far in one request; one flush at a time, the next taking all that came meanwhile. */
  #flush(): Promise<void> {
    if (this.#flushing !== null) return this.#flushing.then(() => (this.#done.length > 0 ? this.#flush() : undefined));
    if (this.#done.length === 0) return Promise.resolve();
    const batch = this.#done;
    this.#done = [];
    this.#flushing = (async () => {
      try {
        const receipts = await this.#deps.engine.request("effect-complete", { claimant: this.#deps.claimant, done: batch });
        this.#counts.done += receipts.length;
        if (receipts.length < batch.length) this.#deps.log.warn("some done effects were no longer this worker's claims", { lost: batch.length - receipts.length });
      } catch (error) {
        // The claims stay: their leases run out and the effects are tried again under the same keys.
        this.#deps.log.error("reporting done effects failed", { effects: batch.length, error: String(error) });
      } finally {
        for (const d of batch) this.#inFlight.delete(d.id);
        this.#flushing = null;
        this.#report();
      }
    })();
    return this.#flushing;
  }

  async #fail(entry: JournalEntry, error: unknown, manifest: ConnectorManifest | null): Promise<void> {
    const permanent = error instanceof PermanentEffectError;
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 1000);
    try {
      const result = await this.#deps.engine.request("journal-fail", {
        claimant: this.#deps.claimant,
        id: entry.id,
        error: reason,
        permanent,
        ...(manifest === null ? {} : { retryInMs: backoffMs(manifest.retry, entry.attempts, this.#deps.random) }),
      });
      if (result === "dead") {
        this.#counts.dead++;
        this.#deps.log.warn("an effect was dead-lettered", { effect: entry.id, attempts: entry.attempts, reason });
      } else if (result === "retry") this.#counts.retried++;
    } catch (failError) {
      this.#deps.log.error("reporting a failed effect failed; its lease will hand it back", { effect: entry.id, error: String(failError) });
    } finally {
      this.#inFlight.delete(entry.id);
      this.#report();
    }
  }

  #report(): void {
    const c = this.#counts;
    this.#deps.status(`effects: ${this.#inFlight.size} in flight, ${c.done} done, ${c.retried} retried, ${c.dead} dead since start`);
  }

  #idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = null;
        done();
      };
    });
  }
}
