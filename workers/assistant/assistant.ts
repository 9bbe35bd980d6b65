/**
 * @module The assistant worker: runs the assistant's turns. Turns to run are `turn` entries of the
 * journal (the gateway writes one when the person says something, and again when what a turn waits
 * for is decided); this worker claims them through the engine, runs each (turn-runner.ts) with
 * everything it needs asked of the gateway over `DATA/run/assistant.sock`, and acks the entry when
 * the turn has ended or parked. Turns run side by side (up to MAX_IN_FLIGHT), each on its own: a
 * slow model call holds up no other turn. A claim whose holder dies is handed back by the
 * supervisor at once, so a killed worker's turns resume in the next one; and at start, and every
 * few minutes, the turns the store says are still active are taken up too (what a crash between
 * writing a turn and queuing it, or an approval's expiry, would otherwise leave waiting).
 */
import type { Logger } from "../../shared/log.ts";
import { anthropicProvider } from "../../shared/models/anthropic.ts";
import type { ModelProvider } from "../../shared/models/model.ts";
import { openAiCompatibleProvider } from "../../shared/models/openai-compatible.ts";
import type { AssistantHostNotices, AssistantHostRequests, RouteModel } from "../../shared/protocol/assistant.ts";
import { claimantName, dataPaths } from "../../shared/worker/config.ts";
import { EngineLink } from "../../shared/worker/engine-link.ts";
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";
import { SocketLink } from "../../shared/worker/socket-link.ts";
import type { JournalEntry } from "../../shared/journal.ts";
import { runTurn } from "./turn-runner.ts";

/** What the assistant reports while no turn runs. */
export const IDLE_STATUS = "idle: no turn running";
/** Turns run at once, at most. */
const MAX_IN_FLIGHT = 32;
/** A claimed turn is this worker's this long; a turn waiting on a slow local model keeps it longer by running on. */
const LEASE_MS = 15 * 60_000;
/** How often the journal is looked at when nothing woke the worker. */
const POLL_MS = 1000;
/** How often the store's active turns are taken up again (expired approvals, lost queue entries). */
const SWEEP_MS = 5 * 60_000;
const TOPIC = "turn";

export async function startAssistant(ctx: WorkerContext): Promise<RunningWorker> {
  const paths = dataPaths(ctx.config.dataDir);
  const engine = new EngineLink(paths.engineSocket);
  const worker = new AssistantWorker(ctx, engine, paths.assistantSocket);
  worker.start();
  ctx.status(IDLE_STATUS);
  return { drain: () => worker.stop() };
}

class AssistantWorker {
  readonly #ctx: WorkerContext;
  readonly #log: Logger;
  readonly #engine: EngineLink;
  readonly #host: SocketLink<AssistantHostRequests, AssistantHostNotices>;
  readonly #claimant = claimantName("assistant", process.pid);
  /** Turns running now: their cancel switch, and whether another run was asked for meanwhile. */
  readonly #running = new Map<string, { controller: AbortController; again: boolean; entries: number[] }>();
  readonly #providers = new Map<string, ModelProvider>();
  #stopping = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  #sweep: NodeJS.Timeout | null = null;

  constructor(ctx: WorkerContext, engine: EngineLink, hostPath: string) {
    this.#ctx = ctx;
    this.#log = ctx.log;
    this.#engine = engine;
    this.#host = new SocketLink<AssistantHostRequests, AssistantHostNotices>(hostPath, {
      onConnect: (channel) => {
        channel.onNotice("wake", () => this.#wake?.());
        channel.onNotice("cancel", ({ turn }) => this.#running.get(turn)?.controller.abort());
        // A gateway (re)started: what it may have queued while this worker could not hear it.
        void this.#sweepActive();
      },
    });
  }

  start(): void {
    this.#loop = this.#run();
    this.#sweep = setInterval(() => void this.#sweepActive(), SWEEP_MS);
    this.#sweep.unref();
    void this.#host.channel().catch(() => {});
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#sweep !== null) clearInterval(this.#sweep);
    this.#wake?.();
    await this.#loop;
    // Turns in flight stop here; their claims go back to the journal and they resume in the next worker.
    for (const run of this.#running.values()) run.controller.abort();
    await this.#host.close();
    await this.#engine.close();
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      const free = MAX_IN_FLIGHT - this.#running.size;
      let entries: JournalEntry[] = [];
      if (free > 0) {
        try {
          entries = await this.#engine.request("journal-claim", { claimant: this.#claimant, topics: [TOPIC], limit: free, leaseMs: LEASE_MS });
        } catch (error) {
          this.#log.debug("journal claim failed; trying again", { error: String(error) });
        }
      }
      for (const entry of entries) {
        const turn = (entry.payload as { turn?: unknown } | null)?.turn;
        if (typeof turn !== "string") {
          void this.#ack([entry.id]);
          continue;
        }
        this.#take(turn, entry.id);
      }
      if (entries.length === 0) await this.#idle();
    }
  }

  /** Runs `turn` (once more, after the run in hand, when it is running already); acks `entry` after. */
  #take(turn: string, entry: number | null): void {
    const running = this.#running.get(turn);
    if (running !== undefined) {
      running.again = true;
      if (entry !== null) running.entries.push(entry);
      return;
    }
    const run = { controller: new AbortController(), again: false, entries: entry === null ? [] : [entry] };
    this.#running.set(turn, run);
    this.#status();
    void this.#runOne(turn, run);
  }

  async #runOne(turn: string, run: { controller: AbortController; again: boolean; entries: number[] }): Promise<void> {
    for (;;) {
      run.again = false;
      try {
        await runTurn(
          {
            request: (type, body) => this.#host.request(type, body),
            notify: (type, body) => {
              void this.#host.channel().then((channel) => {
                channel.notify(type, body);
                channel.flush();
              }, () => {});
            },
            provider: (model) => this.#provider(model),
            log: this.#log,
          },
          turn,
          run.controller.signal,
        );
      } catch (error) {
        if (this.#stopping) break;
        // Not acked: the journal tries the entry again with back-off (the gateway or the engine was away).
        this.#log.warn("turn run failed; it will be tried again", { turn, error: error instanceof Error ? error.message : String(error) });
        this.#running.delete(turn);
        this.#status();
        for (const id of run.entries) void this.#engine.request("journal-fail", { claimant: this.#claimant, id, error: String(error) }).catch(() => {});
        return;
      }
      if (!run.again || this.#stopping || run.controller.signal.aborted) break;
    }
    this.#running.delete(turn);
    this.#status();
    if (!this.#stopping) await this.#ack(run.entries);
  }

  async #ack(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#engine.request("journal-ack", { claimant: this.#claimant, ids }).catch((error: unknown) => this.#log.debug("journal ack failed", { error: String(error) }));
  }

  /** Takes up the turns the store says are active and no run here holds. */
  async #sweepActive(): Promise<void> {
    if (this.#stopping) return;
    try {
      const active = await this.#host.request("turns-active", {});
      for (const turn of active) if (!this.#running.has(turn) && this.#running.size < MAX_IN_FLIGHT) this.#take(turn, null);
    } catch (error) {
      this.#log.debug("could not list the active turns", { error: String(error) });
    }
  }

  #provider(model: RouteModel): ModelProvider {
    const key = JSON.stringify([model.provider, model.baseUrl, model.key, model.responseTimeoutMs, model.idleTimeoutMs]);
    let provider = this.#providers.get(key);
    if (provider === undefined) {
      const limits = { responseTimeoutMs: model.responseTimeoutMs, idleTimeoutMs: model.idleTimeoutMs };
      provider =
        model.provider === "anthropic"
          ? anthropicProvider({ apiKey: model.key, ...(model.baseUrl === null ? {} : { baseURL: model.baseUrl }), limits })
          : openAiCompatibleProvider({ baseURL: model.baseUrl ?? "https://api.openai.com/v1", ...(model.key === "" ? {} : { apiKey: model.key }), limits });
      // A key changed or removed leaves its provider behind: keep only a few.
      if (this.#providers.size >= 16) this.#providers.clear();
      this.#providers.set(key, provider);
    }
    return provider;
  }

  #idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, POLL_MS);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = null;
        resolve();
      };
    });
  }

  #status(): void {
    const n = this.#running.size;
    this.#ctx.status(n === 0 ? IDLE_STATUS : `running ${n} turn${n === 1 ? "" : "s"}`);
  }
}
