/**
 * @module Running a process tree from the command line (`charter node`, `charter serve`): check the
 * data directory, take its lock, start the supervisor, print the URL, drain on SIGTERM/SIGINT/SIGHUP.
 */
import { DataDirError, prepareDataDir } from "../shared/data-dir.ts";
import { LogFile } from "../shared/log-file.ts";
import { createLogger, formatReadable, type LogRecord } from "../shared/log.ts";
import { dataPaths, type Edition } from "../shared/worker/config.ts";
import { DataLock, LockHeldError, LockWriteError } from "../shared/store/lock.ts";
import { defaultRestartPolicy } from "../supervisor/restart-policy.ts";
import { Supervisor } from "../supervisor/supervisor.ts";
import { workersFor } from "../supervisor/workers.ts";
import { charterVersion } from "./version.ts";
import { parseTreeOptions, UsageError } from "./options.ts";

const usage = (edition: Edition) =>
  [
    `Usage: charter ${edition} [--data DIR] [--listen HOST:PORT]${edition === "node" ? " [--origin URL] [--hooks-port N]" : ""} [--grpc HOST:PORT] [--body-limit BYTES] [--restart-limit N] [LIMITS…]`,
    `       [--voter-id ID --peers ID=DID@HOST:PORT,… [--peer-listen HOST:PORT]]`,
    "",
    edition === "node"
      ? "Runs the personal node: the engine and its generated /v1 API; /api — the account, passkey\nsign-in, sessions, live events — and the app page at /; and the assistant, outbox, sync and\nupdater workers (idle until configured). A node not yet set up prints its set-up code."
      : "Runs the engine-only edition: installed contracts, their generated /v1 API, the voters. No /api.",
    "",
    "  --data DIR          data directory (default: $CHARTER_DATA, else ./data)",
    "  --listen HOST:PORT  HTTP address (default: 127.0.0.1:8787; port 0 picks a free one)",
    ...(edition === "node"
      ? [
          "  --origin URL        the app's origin, as browsers see it (default: http://localhost:PORT with",
          "                      the --listen port); other devices need https with a host name",
        ]
      : []),
    ...(edition === "node"
      ? [
          "  --hooks-port N      the webhook listener's port, on 127.0.0.1 only (default: the --listen port",
          "                      + 1, so 8788; a free one when --listen asks for port 0; 0 picks a free one)",
        ]
      : []),
    "  --grpc HOST:PORT    gRPC address, served once a contract is installed (default: 127.0.0.1:8789,",
    "                      or a free port when --listen asks for port 0)",
    "  --body-limit BYTES  largest request body accepted (default: 1048576)",
    "  --restart-limit N   a worker restarted more than N times within 60 s shuts the tree down,",
    "                      exit 1 (default: 5)",
    "  --public-rate N     commands a second from one caller not known to a tenant (default: 20;",
    "                      burst 5x, all such callers of a tenant together 10x; 0: no limit)",
    "  --quota-entries N   history entries one tenant may hold (default: 10000000; 0: no quota)",
    "  --quota-bytes BYTES bytes of history one tenant may hold (default: 10 GiB; 0: no quota)",
    "  --disk-reserve BYTES  free disk kept; writes get 507 below it (default: 256 MiB; 0: none)",
    "  --max-connections N open HTTP connections at most; idle ones are closed first (default: 2048)",
    ...(edition === "node"
      ? [
          "  --upload-limit BYTES  largest file one library upload may be (default: 2 GiB)",
          "  --library-quota BYTES  bytes the library's files may take together (default: 0, none;",
          "                      the disk's --disk-reserve is kept free either way)",
        ]
      : []),
    "  --allow-host NAME   a host name the node answers for, besides IP addresses, localhost and",
    "                      this machine's name (repeatable); other Host headers get 421",
    "  --voter-id ID       this voter's id among --peers (replicated engine)",
    "  --peers LIST        every voter, this one included: id=did:key:…@host:port, comma-separated;",
    "                      each did:key is that voter's `charter identity --data DIR`, and host:port",
    "                      is its peer address (this voter listens on its own; 8790 by convention).",
    "                      Three voters agree on every write and survive the loss of one.",
    "  --peer-listen HOST:PORT  where this voter listens for its peers, when that differs from its",
    "                      address in --peers (behind NAT, a proxy, or to listen on 0.0.0.0)",
    "",
    "Stop it with Ctrl-C or SIGTERM: requests in flight finish, then it exits 0.",
    "",
  ].join("\n");

/** A signal within this long of the first is the same stop delivered twice (see runTree's onSignal). */
const REPEATED_SIGNAL_MS = 1_000;

/** Fails with a one-line reason when `dir` cannot be created, written or kept private; what it tightened. */
function ensureWritable(dir: string): string[] {
  try {
    return prepareDataDir(dir);
  } catch (error) {
    if (error instanceof DataDirError) throw new UsageError(error.message);
    throw error;
  }
}

export async function runTree(edition: Edition, args: string[]): Promise<number> {
  let options;
  let tightened: string[];
  try {
    options = parseTreeOptions(args);
    if (options.help) {
      process.stdout.write(usage(edition));
      return 0;
    }
    if (edition === "serve" && options.origin !== undefined) throw new UsageError("--origin is an option of `charter node`: `charter serve` serves no /api");
    if (edition === "serve" && args.some((a) => a === "--hooks-port" || a.startsWith("--hooks-port="))) throw new UsageError("--hooks-port is an option of `charter node`: `charter serve` has no webhook listener");
    tightened = ensureWritable(options.dataDir);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`charter: ${error.message}\n`);
    return 2;
  }
  // Every file the tree creates in the data directory — the store's -wal and -shm, raft.db, sockets,
  // temp files — is its owner's alone; the workers inherit the mask.
  if (process.platform !== "win32") process.umask(0o077);

  const paths = dataPaths(options.dataDir);
  let lock: DataLock;
  try {
    lock = DataLock.acquire(paths.lock);
  } catch (error) {
    if (error instanceof LockWriteError) {
      process.stderr.write(`charter: ${error.message}\n`);
      return 2;
    }
    if (!(error instanceof LockHeldError)) throw error;
    process.stderr.write(`charter: ${error.message}\n`);
    return 1;
  }

  let logFile: LogFile;
  try {
    logFile = new LogFile(paths.logs);
  } catch (error) {
    process.stderr.write(`charter: ${(error as Error).message}\n`);
    lock.release();
    return 2;
  }
  const sink = (record: LogRecord) => {
    logFile.write(record);
    if (record.level !== "debug") process.stderr.write(`${formatReadable(record)}\n`);
  };
  const startLog = createLogger("supervisor", sink);
  // What the gateway says about `/api` (charter node): printed with the URL, once the tree runs.
  let api: { origin: string; setupCode: string | null } | null = null;
  for (const warning of tightened) startLog.warn(warning);
  const supervisor = new Supervisor({
    config: {
      edition,
      dataDir: options.dataDir,
      listen: options.listen,
      grpc: options.grpc,
      version: charterVersion(),
      bodyLimit: options.bodyLimit,
      engineLimits: options.engineLimits,
      gatewayLimits: options.gatewayLimits,
      startedAt: Date.now(),
      ...(options.cluster ? { cluster: options.cluster } : {}),
      ...(options.origin === undefined ? {} : { origin: options.origin }),
      ...(edition === "node" ? { hooks: { port: options.hooksPort } } : {}),
    },
    specs: workersFor(edition),
    policy: { ...defaultRestartPolicy, maxRestarts: options.restartLimit },
    sink,
    onPids: (pids) => lock.update(pids),
    onGrpc: (address) => process.stdout.write(`charter ${edition} gRPC listening on ${address}\n`),
    onApi: (info) => (api = info),
    // Not "listening on": that line's URL is the node's own.
    onHooks: (url) => process.stdout.write(`charter ${edition} webhooks on ${url}/hooks/\n`),
  });

  // A second signal exits at once, without draining — but not one that comes right after the first:
  // that is the same stop delivered twice, to the process group (a terminal's Ctrl-C, `kill --
  // -PGID`, `timeout`) and passed on by the process that started this one (bin/charter.js's
  // re-exec, the update launcher).
  let firstSignalAt: number | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (firstSignalAt !== null) {
      if (now - firstSignalAt < REPEATED_SIGNAL_MS) return;
      process.stderr.write(`charter: second ${signal}; exiting without draining\n`);
      process.exit(130);
    }
    firstSignalAt = now;
    void supervisor.shutdown(0, `${signal} received; draining`);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // The terminal it runs in closing: a stop like the others (Node's default would exit at once).
  process.on("SIGHUP", onSignal);

  supervisor.start().then(
    (url) => process.stdout.write(`charter ${edition} listening on ${url} (data: ${options.dataDir})\n${apiLines(api)}`),
    () => {},
  );
  const code = await supervisor.exited;
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  process.off("SIGHUP", onSignal);
  logFile.close();
  lock.release();
  return code;
}

/** The lines that tell the person where the app is and, before set-up, the code that creating the account needs. */
function apiLines(api: { origin: string; setupCode: string | null } | null): string {
  if (api === null) return "";
  return `open ${api.origin}/\n${api.setupCode === null ? "" : `set-up code: ${api.setupCode}\n`}`;
}
