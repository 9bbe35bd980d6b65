/**
 * @module The runtime every worker process runs in: its control channel to the supervisor, its
 * lifecycle (starting → running → draining → stopped | failed), and how it stops — on the
 * supervisor's `drain`, on SIGTERM, or when the supervisor itself disappears.
 */
import { Channel } from "../channel/channel.ts";
import { ipcTransport } from "../channel/transport.ts";
import { createLogger, type Logger } from "../log.ts";
import type { ControlRequests, SupervisorNotices, WorkerNotices } from "../protocol/control.ts";
import type { Lifecycle } from "../protocol/lifecycle.ts";
import { dataPaths, readConfig, type WorkerConfig } from "./config.ts";
import { installEgressGuard } from "./egress.ts";
import { FatalError } from "./fatal.ts";

/** The supervisor as a worker sees it. */
export type ControlChannel = Channel<Record<string, never>, ControlRequests, WorkerNotices, SupervisorNotices>;

export interface WorkerContext {
  readonly name: string;
  readonly config: WorkerConfig;
  readonly log: Logger;
  readonly control: ControlChannel;
  /** Tells the supervisor what this worker is doing or waiting for, in one line (shown on `/health` and in the console). */
  status(text: string): void;
}

/** A started worker: how to stop it gracefully. */
export interface RunningWorker {
  drain(): Promise<void>;
}

/** Runs a worker: call from its `main.ts` with the function that starts it. */
export async function runWorker(name: string, start: (ctx: WorkerContext) => Promise<RunningWorker>): Promise<void> {
  // The supervisor coordinates Ctrl-C and a terminal's hang-up for the whole tree: from the first
  // moment, also while starting (a SIGHUP then would kill this worker). Until it runs, SIGTERM keeps
  // its default: the supervisor ends a worker still starting with it.
  process.on("SIGINT", () => {});
  process.on("SIGHUP", () => {});
  const log = createLogger(name);
  const control: ControlChannel = new Channel(ipcTransport(process));
  let state: Lifecycle = "starting";
  const report = (next: Lifecycle) => {
    state = next;
    control.notify("state", { state: next });
    control.flush();
  };
  report("starting");
  const status = (text: string) => control.notify("status", { text: text.replace(/\s+/g, " ").trim() });

  let running: RunningWorker;
  try {
    const config = readConfig();
    // The personal node's workers reach only declared hosts (the engine's own voters are declared by their configuration).
    if (config.edition === "node") {
      installEgressGuard(dataPaths(config.dataDir).egress, log, config.cluster?.voters.map((v) => `${v.host}:${v.port}`) ?? []);
    }
    running = await start({ name, config, log, control, status });
  } catch (error) {
    if (error instanceof FatalError) control.notify("fatal", { message: error.message });
    else log.error("start failed", { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    report("failed");
    setTimeout(() => process.exit(1), 50);
    return;
  }
  report("running");
  log.info("running", { pid: process.pid });

  let draining: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    if (draining !== null) return draining;
    report("draining");
    draining = running.drain().then(
      () => report("stopped"),
      (error: unknown) => {
        log.error("drain failed", { error: String(error) });
        report("failed");
      },
    );
    return draining;
  };
  control.handle("drain", async () => {
    await stop();
    setImmediate(() => process.exit(state === "stopped" ? 0 : 1));
    return null;
  });
  // A direct SIGTERM (systemd stopping the group) drains this worker on its own; losing the
  // supervisor means nobody will restart us.
  process.on("SIGTERM", () => void stop().then(() => process.exit(0)));
  process.on("disconnect", () => void stop().then(() => process.exit(0)));
}
