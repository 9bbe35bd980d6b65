/**
 * @module The gRPC surface's lifecycle (design §1, §8): a grpc-js server on `--grpc
 * HOST:PORT`, started only once some tenant has a contract installed — grpc-js and protobufjs are
 * imported then, not at gateway start, so a node without contracts pays nothing for them.
 *
 * Which methods exist can change at any time (an install, an upgrade, a retirement) and differs by
 * tenant, while grpc-js routes calls by path before any code of ours runs. So every method path of
 * every active artifact is registered with one handler that takes the raw bytes; the handler looks
 * up the caller's tenant's active contract and decodes with *its* proto (grpc-calls.ts). A path is
 * registered once and never removed: when no tenant serves it any more the handler answers
 * UNIMPLEMENTED. New paths are found by watching the store: every 250 ms `PRAGMA data_version`
 * says whether anything committed, and only then are the active installs listed; an install over
 * HTTP refreshes at once, before its answer is sent.
 */
import { createServer } from "node:net";
import type * as Grpc from "@grpc/grpc-js";
import type { Logger } from "../../../shared/log.ts";
import { HttpProblem } from "../../../shared/problem.ts";
import type { StatementSync } from "node:sqlite";
import { StoreView } from "../reads/store-view.ts";
import { DescribedContracts } from "./described-contracts.ts";
import type * as CallsModuleNs from "./grpc-calls.ts";
import type { CallDeps, GrpcCalls } from "./grpc-calls.ts";

type CallsModule = typeof CallsModuleNs;

export interface GrpcSurfaceOptions extends Omit<CallDeps, "contracts"> {
  readonly storePath: string;
  readonly host: string;
  readonly port: number;
  /** The largest request message accepted: the HTTP body limit. */
  readonly maxMessageBytes: number;
  readonly log: Logger;
  /** The server is listening at `HOST:PORT`. */
  readonly onListening: (address: string) => void;
  /** The server cannot listen at all (the port is taken): the node cannot serve what it promised. */
  readonly onFatal: (message: string) => void;
}

/** How often the store is asked whether anything was committed. */
const POLL_MS = 250;
/** How long to keep retrying a busy port, for a predecessor killed a moment ago to let go of it. */
const BIND_RETRY_MS = 1500;
/** How long a drain waits for calls in flight before cutting them off. */
const DRAIN_MS = 3000;

const hostPort = (host: string, port: number) => (host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`);

/** Fails with a one-line reason when `host:port` cannot be listened on (checked at gateway start, before gRPC is needed). */
export async function checkGrpcPort(host: string, port: number): Promise<string | null> {
  if (port === 0) return null;
  const deadline = Date.now() + BIND_RETRY_MS;
  for (;;) {
    const code = await new Promise<string | null>((resolve) => {
      const probe = createServer();
      probe.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "EUNKNOWN"));
      probe.listen(port, host, () => probe.close(() => resolve(null)));
    });
    if (code === null) return null;
    if (code === "EADDRINUSE" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    return portProblem(host, port, code);
  }
}

function portProblem(host: string, port: number, code: string): string {
  if (code === "EADDRINUSE") return `gRPC port ${hostPort(host, port)} is in use; choose another with --grpc HOST:PORT`;
  if (code === "EACCES") return `not allowed to listen for gRPC on ${hostPort(host, port)}`;
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") return `cannot listen for gRPC on ${hostPort(host, port)}: no such local address`;
  return `cannot listen for gRPC on ${hostPort(host, port)} (${code})`;
}

export class GrpcSurface {
  readonly #options: GrpcSurfaceOptions;
  readonly #store: StoreView;
  readonly #contracts: DescribedContracts;
  #versionStmt: StatementSync | null = null;
  #seenVersion: string | null = null;
  #timer: NodeJS.Timeout | null = null;
  #queue: Promise<void> = Promise.resolve();
  #server: Grpc.Server | null = null;
  #calls: GrpcCalls | null = null;
  #module: CallsModule | null = null;
  #address: string | null = null;
  #closed = false;
  readonly #registered = new Set<string>();

  constructor(options: GrpcSurfaceOptions) {
    this.#options = options;
    this.#store = new StoreView(options.storePath);
    this.#contracts = new DescribedContracts(this.#store);
  }

  /** `HOST:PORT` while serving, else null (no contract installed yet). */
  address(): string | null {
    return this.#address;
  }

  /** Looks at the store now, then whenever it changes. */
  start(): void {
    void this.refresh();
    this.#timer = setInterval(() => {
      try {
        if (this.#changed()) void this.refresh();
      } catch (error) {
        this.#options.log.warn("grpc: cannot tell whether the store changed", { error: String(error) });
      }
    }, POLL_MS);
    this.#timer.unref();
  }

  /** Serves every method of every active contract (starting the server for the first). Never throws. */
  refresh(): Promise<void> {
    this.#queue = this.#queue.then(() => this.#refresh()).catch((error: unknown) => {
      this.#options.log.error("grpc refresh failed", { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    });
    return this.#queue;
  }

  /** Stops taking calls; calls in flight get DRAIN_MS to finish. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    await this.#queue;
    const server = this.#server;
    if (server !== null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, DRAIN_MS);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.#store.close();
  }

  /** Whether anything was committed since the last look (true when the store cannot be read yet). */
  #changed(): boolean {
    try {
      this.#versionStmt ??= this.#store.db().prepare("PRAGMA data_version");
      const version = String((this.#versionStmt.get() as { data_version: number }).data_version);
      if (version === this.#seenVersion) return false;
      this.#seenVersion = version;
      return true;
    } catch (error) {
      if (error instanceof HttpProblem) return false;
      throw error;
    }
  }

  async #refresh(): Promise<void> {
    if (this.#closed) return;
    let installs: { tenant: string; namespace: string }[];
    try {
      installs = this.#store.read((db) => db.prepare("SELECT tenant, namespace FROM installs WHERE status = 'active'").all() as { tenant: string; namespace: string }[]);
    } catch (error) {
      if (error instanceof HttpProblem) return; // The engine has not created the store yet.
      throw error;
    }
    if (installs.length === 0) return;
    const calls = await this.#started();
    if (calls === null) return;
    for (const { tenant, namespace } of installs) {
      let contract;
      try {
        contract = this.#contracts.active(tenant, namespace);
      } catch (error) {
        if (error instanceof HttpProblem) continue; // Retired meanwhile.
        throw error;
      }
      for (const path of calls.codec(contract).methods.keys()) this.#register(path);
    }
  }

  /** The server, started on first need; null when it could not be (already reported as fatal). */
  async #started(): Promise<GrpcCalls | null> {
    if (this.#calls !== null) return this.#calls;
    const { log, host, port } = this.#options;
    const [grpc, module] = await Promise.all([import("@grpc/grpc-js"), import("./grpc-calls.ts")]);
    const server = new grpc.Server({ "grpc.max_receive_message_length": this.#options.maxMessageBytes });
    const deadline = Date.now() + BIND_RETRY_MS;
    let bound: number;
    for (;;) {
      try {
        bound = await new Promise<number>((resolve, reject) => server.bindAsync(hostPort(host, port), grpc.ServerCredentials.createInsecure(), (error, p) => (error === null ? resolve(p) : reject(error))));
        break;
      } catch (error) {
        const message = (error as Error).message;
        const inUse = /EADDRINUSE|address already in use/i.test(message);
        if (inUse && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        server.forceShutdown();
        this.#options.onFatal(inUse ? portProblem(host, port, "EADDRINUSE") : `cannot listen for gRPC on ${hostPort(host, port)}: ${message.split("\n")[0]}`);
        this.#closed = true;
        return null;
      }
    }
    this.#server = server;
    this.#module = module;
    this.#calls = new module.GrpcCalls({ ...this.#options, contracts: this.#contracts });
    this.#address = hostPort(host, bound);
    log.info("grpc listening", { address: this.#address });
    this.#options.onListening(this.#address);
    return this.#calls;
  }

  #register(path: string): void {
    const server = this.#server;
    const calls = this.#calls;
    const module = this.#module;
    if (server === null || calls === null || module === null || this.#registered.has(path)) return;
    const namespace = module.namespaceOf(path);
    if (namespace === undefined) return;
    const same = (b: Buffer) => b;
    server.register(path, module.unaryHandler(calls, path, namespace, this.#options.log), same, same, "unary");
    this.#registered.add(path);
  }
}
