/**
 * @module The supervisor: starts each worker of the table as its own OS process, watches it, and
 * restarts it one-for-one under the restart policy; collects every worker's log lines; drains the
 * whole tree on request. It owns nothing else — no store, no port.
 */
import { type ChildProcess, fork } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Channel } from "../shared/channel/channel.ts";
import { connectChannel } from "../shared/channel/socket.ts";
import { ipcTransport } from "../shared/channel/transport.ts";
import { type Clock, systemClock } from "../shared/clock.ts";
import { createLogger, type Logger, type LogRecord, parseLogLine } from "../shared/log.ts";
import type { ControlRequests, SupervisorNotices, WorkerNotices } from "../shared/protocol/control.ts";
import type { EngineRequests } from "../shared/protocol/engine.ts";
import type { Lifecycle } from "../shared/protocol/lifecycle.ts";
import { claimantName, configEnv, dataPaths, type WorkerConfig } from "../shared/worker/config.ts";
import { defaultRestartPolicy, emptyHistory, onExit, type RestartHistory, type RestartPolicy } from "./restart-policy.ts";
import type { WorkerSpec } from "./workers.ts";
import { hostFacts, hostWarnings } from "./host-check.ts";
import { ReadyNotice } from "./systemd-notify.ts";
import { RELAUNCH_EXIT } from "../shared/update/update-state.ts";

/** How long a worker that is not required stays down after it kept failing, before it is tried again. */
const OPTIONAL_COOL_DOWN_MS = 5 * 60_000;

type Control = Channel<ControlRequests, Record<string, never>, SupervisorNotices, WorkerNotices>;

interface Slot {
  readonly spec: WorkerSpec;
  child: ChildProcess | null;
  control: Control | null;
  state: Lifecycle;
  /** The worker's last status line since it started (null: none yet). */
  status: string | null;
  startedAt: number;
  history: RestartHistory;
  timer: NodeJS.Timeout | null;
}

export interface SupervisorOptions {
  readonly config: WorkerConfig;
  readonly specs: readonly WorkerSpec[];
  /** Where every log record goes (the log file and the terminal). */
  readonly sink: (record: LogRecord) => void;
  readonly policy?: RestartPolicy;
  readonly clock?: Clock;
  /** Called whenever the set of worker pids changes (the lock file records them). */
  readonly onPids?: (pids: Record<string, number>) => void;
  /** How long a worker may take to drain before it is killed. */
  readonly drainTimeoutMs?: number;
  /** Called when the gateway starts serving gRPC (once a contract is installed), with its `HOST:PORT`. */
  readonly onGrpc?: (address: string) => void;
  /** Called when the gateway serves `/api` (charter node): its origin, and the set-up code before set-up. */
  readonly onApi?: (info: { origin: string; setupCode: string | null }) => void;
  /** Called when the outbox's webhook listener serves (charter node), with its URL. */
  readonly onHooks?: (url: string) => void;
}

export class Supervisor {
  readonly #options: SupervisorOptions;
  readonly #slots: Slot[];
  readonly #log: Logger;
  readonly #clock: Clock;
  #url: string | null = null;
  #config: WorkerConfig;
  #shutdown: Promise<number> | null = null;
  #exit!: (code: number) => void;
  readonly #exited: Promise<number>;
  #ready!: (url: string) => void;
  #failedStart!: (error: Error) => void;
  readonly #readyPromise: Promise<string>;
  readonly #readyNotice: ReadyNotice;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#config = options.config;
    this.#clock = options.clock ?? systemClock;
    this.#log = createLogger("supervisor", options.sink);
    this.#slots = options.specs.map((spec) => ({ spec, child: null, control: null, state: "stopped", status: null, startedAt: 0, history: emptyHistory, timer: null }));
    this.#exited = new Promise((resolve) => (this.#exit = resolve));
    this.#readyPromise = new Promise((resolve, reject) => {
      this.#ready = resolve;
      this.#failedStart = reject;
    });
    this.#readyPromise.catch(() => {});
    // systemd's READY (Type=notify): once the tree serves and, for charter node, the webhook listener is bound.
    this.#readyNotice = new ReadyNotice({ hooks: options.config.hooks !== undefined, log: this.#log });
  }

  /** Starts every worker; resolves with the gateway's URL once all required workers run. */
  start(): Promise<string> {
    // The minimum host (2 cores, 2 GB free): a warning in the log and on stderr, never a refusal.
    for (const warning of hostWarnings(hostFacts())) this.#log.warn(warning);
    for (const slot of this.#slots) this.#spawn(slot);
    return this.#readyPromise;
  }

  /** Resolves with the exit code once the tree is down. */
  get exited(): Promise<number> {
    return this.#exited;
  }

  /** The lifecycle state of each worker. */
  states(): Record<string, Lifecycle> {
    return Object.fromEntries(this.#slots.map((s) => [s.spec.name, s.state]));
  }

  /** The status line of each worker that has reported one since it last started. */
  statuses(): Record<string, string> {
    return Object.fromEntries(this.#slots.flatMap((s) => (s.status === null ? [] : [[s.spec.name, s.status]])));
  }

  /** Drains workers in reverse start order (the gateway finishes its requests while the engine still runs). */
  shutdown(code: number, reason?: string): Promise<number> {
    if (this.#shutdown !== null) return this.#shutdown;
    if (reason !== undefined) this.#log[code === 0 || code === RELAUNCH_EXIT ? "info" : "error"](reason);
    this.#failedStart(new Error(reason ?? "shut down before start completed"));
    this.#readyNotice.cancel();
    this.#shutdown = (async () => {
      for (const slot of this.#slots) if (slot.timer !== null) clearTimeout(slot.timer);
      for (const slot of [...this.#slots].reverse()) await this.#drain(slot);
      this.#log.info("stopped", { code });
      this.#exit(code);
      return code;
    })();
    return this.#shutdown;
  }

  #spawn(slot: Slot): void {
    const { spec } = slot;
    slot.timer = null;
    // A shutdown begun by an earlier spawn of the same start (the lock could not be written) drains
    // the workers that exist; one started after it would be left running.
    if (this.#shutdown !== null) return;
    const child = fork(fileURLToPath(spec.entry), [], {
      env: { ...process.env, ...configEnv(this.#config) },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      execArgv: ["--disable-warning=ExperimentalWarning", ...(spec.execArgv ?? [])],
    });
    slot.child = child;
    slot.state = "starting";
    slot.status = null;
    slot.startedAt = this.#clock.now();
    const pid = child.pid ?? -1;
    this.#pipeLogs(spec.name, child);
    const control: Control = new Channel(ipcTransport(child));
    slot.control = control;
    control.onNotice("state", ({ state }) => {
      slot.state = state;
      this.#broadcast();
      this.#checkReady();
    });
    control.onNotice("status", ({ text }) => {
      slot.status = text;
      this.#broadcast();
    });
    control.onNotice("listening", ({ url }) => {
      this.#url = url;
      // A restarted gateway must come back on the same address, even when port 0 picked it.
      const port = Number(new URL(url).port);
      if (this.#config.listen.port === 0 && port > 0) this.#config = { ...this.#config, listen: { ...this.#config.listen, port } };
      this.#checkReady();
    });
    control.onNotice("grpc-listening", ({ address }) => {
      // Like HTTP: a restarted gateway serves gRPC on the port it had.
      const port = Number(/:(\d+)$/.exec(address)?.[1]);
      if (this.#config.grpc.port === 0 && port > 0) this.#config = { ...this.#config, grpc: { ...this.#config.grpc, port } };
      this.#options.onGrpc?.(address);
    });
    control.onNotice("api", (info) => this.#options.onApi?.(info));
    control.onNotice("hooks-listening", ({ url }) => {
      // Like HTTP: a restarted outbox listens for webhooks on the port it had.
      const port = Number(/:(\d+)$/.exec(url)?.[1]);
      const hooks = this.#config.hooks;
      if (hooks !== undefined && hooks.port === 0 && port > 0) this.#config = { ...this.#config, hooks: { port } };
      this.#options.onHooks?.(url);
      this.#readyNotice.hooksBound();
    });
    control.onNotice("fatal", ({ message }) => void this.shutdown(1, `${spec.name}: ${message}`));
    // Only the updater switches releases; the launcher (cli/launcher.ts) starts the tree again from the new one.
    if (spec.name === "updater") control.onNotice("relaunch", ({ reason }) => void this.shutdown(RELAUNCH_EXIT, `${reason}; restarting`));
    child.on("exit", (code, signal) => this.#onExit(slot, child, pid, code, signal));
    this.#log.info("worker started", { worker: spec.name, pid, ...(slot.history.restarts.length > 0 ? { restart: slot.history.restarts.length } : {}) });
    this.#reportPids();
  }

  #onExit(slot: Slot, child: ChildProcess, pid: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.child !== child) return;
    slot.child = null;
    slot.control = null;
    slot.status = null;
    if (this.#shutdown !== null) {
      if (slot.state !== "failed") slot.state = "stopped";
      this.#log.info("worker stopped", { worker: slot.spec.name, pid, code, signal });
      return;
    }
    slot.state = "failed";
    this.#broadcast();
    this.#log.warn("worker exited", { worker: slot.spec.name, pid, code, signal, ranMs: this.#clock.now() - slot.startedAt });
    void this.#releaseClaims(claimantName(slot.spec.name, pid));
    const decision = onExit(slot.history, slot.startedAt, this.#clock.now(), this.#options.policy ?? defaultRestartPolicy);
    slot.history = decision.history;
    if (decision.action === "give-up") {
      if (slot.spec.required) {
        void this.shutdown(1, `worker ${slot.spec.name} keeps failing (${decision.reason}); shutting down`);
        return;
      }
      // A worker the node can run without stays down (`/health` says degraded) and is tried again
      // after a cool-down, with a fresh history: the engine and gateway keep serving meanwhile.
      this.#log.error("worker keeps failing; leaving it stopped for a while", { worker: slot.spec.name, reason: decision.reason, retryInMs: OPTIONAL_COOL_DOWN_MS });
      slot.history = emptyHistory;
      slot.timer = setTimeout(() => this.#spawn(slot), OPTIONAL_COOL_DOWN_MS);
      return;
    }
    this.#log.info("restarting worker", { worker: slot.spec.name, delayMs: decision.delayMs, recentRestarts: decision.history.restarts.length });
    slot.timer = setTimeout(() => this.#spawn(slot), decision.delayMs);
  }

  /** Hands a dead worker's journal claims back at once rather than after their lease. */
  async #releaseClaims(claimant: string): Promise<void> {
    try {
      const engine = await connectChannel<EngineRequests, Record<string, never>>(dataPaths(this.#options.config.dataDir).engineSocket, { retryForMs: 5000 });
      const released = await engine.request("journal-release", { claimant });
      engine.close();
      if (released > 0) this.#log.info("released journal claims", { claimant, released });
    } catch (error) {
      this.#log.warn("could not release journal claims; their leases will expire", { claimant, error: String(error) });
    }
  }

  async #drain(slot: Slot): Promise<void> {
    const child = slot.child;
    if (child === null || child.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // A worker still starting has nothing to finish and answers no drain until it has started (it
    // may be waiting for the engine that just failed): SIGTERM ends it at once.
    if (slot.state === "starting") child.kill("SIGTERM");
    else slot.control?.request("drain", {}).catch(() => {});
    const timeout = this.#options.drainTimeoutMs ?? 5000;
    const timer = setTimeout(() => {
      this.#log.warn("worker did not drain in time; killing it", { worker: slot.spec.name });
      child.kill("SIGKILL");
    }, timeout);
    await gone;
    clearTimeout(timer);
  }

  #pipeLogs(name: string, child: ChildProcess): void {
    const { sink } = this.#options;
    if (child.stdout) createInterface({ input: child.stdout }).on("line", (line) => sink(parseLogLine(name, line)));
    if (child.stderr) createInterface({ input: child.stderr }).on("line", (line) => sink(parseLogLine(name, line, "error")));
  }

  #broadcast(): void {
    const states = this.states();
    const required = this.#slots.filter((s) => s.spec.required).map((s) => s.spec.name);
    const statuses = this.statuses();
    for (const slot of this.#slots) slot.control?.notify("workers", { states, required, statuses });
  }

  #checkReady(): void {
    if (this.#url === null || this.#shutdown !== null) return;
    if (this.#slots.every((s) => !s.spec.required || s.state === "running")) {
      this.#ready(this.#url);
      this.#readyNotice.treeReady();
    }
  }

  #reportPids(): void {
    const pids: Record<string, number> = {};
    for (const s of this.#slots) if (s.child?.pid !== undefined) pids[s.spec.name] = s.child.pid;
    try {
      this.#options.onPids?.(pids);
    } catch (error) {
      // The lock can no longer record the workers (the data directory became read-only): a later
      // charter could not tell they are ours, so stop them all now, cleanly, with the reason.
      void this.shutdown(1, `${error instanceof Error ? error.message : String(error)}; stopping`);
    }
  }
}
