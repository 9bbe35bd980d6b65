/**
 * @module What the supervisor tells a worker at start (through one environment variable), and the
 * paths inside the data directory that workers agree on.
 */
import { join } from "node:path";

export type Edition = "node" | "serve";

/** The engine's protections against a caller filling the disk (README, "Security"); 0 turns one off. */
export interface EngineLimits {
  /** Commands a second from one caller not known to a tenant (`--public-rate`); burst 5×, all such callers together 10×. */
  readonly publicRate: number;
  /** History entries a tenant may hold (`--quota-entries`). */
  readonly quotaEntries: number;
  /** Bytes of history a tenant may hold (`--quota-bytes`). */
  readonly quotaBytes: number;
  /** Free bytes the data directory's disk keeps; writes are refused below it (`--disk-reserve`). */
  readonly diskReserveBytes: number;
}

/** The gateway's protections (README, "Security"). */
export interface GatewayLimits {
  /** Open HTTP connections at most (`--max-connections`); past it the oldest idle one is closed. */
  readonly maxConnections: number;
  /** Host names the node answers for besides IP literals and localhost (`--allow-host`). */
  readonly allowedHosts: readonly string[];
  /** The largest file one library upload may be (`--upload-limit`; absent: 2 GiB). */
  readonly uploadLimit?: number;
  /** The most bytes the library's blobs may take together (`--library-quota`; 0 or absent: none). */
  readonly libraryQuota?: number;
}

/** The largest library upload when the command line names none. */
export const DEFAULT_UPLOAD_LIMIT = 2 * 1024 ** 3;

/** The engine's limits when the command line names none (README, "Security"). */
export const DEFAULT_ENGINE_LIMITS: EngineLimits = { publicRate: 20, quotaEntries: 10_000_000, quotaBytes: 10 * 1024 ** 3, diskReserveBytes: 256 * 1024 ** 2 };

/** The gateway's limits when the command line names none (README, "Security"). */
export const DEFAULT_GATEWAY_LIMITS: GatewayLimits = { maxConnections: 2048, allowedHosts: [] };

export interface WorkerConfig {
  readonly edition: Edition;
  readonly dataDir: string;
  readonly listen: { readonly host: string; readonly port: number };
  /** Where the gRPC surface listens once a contract is installed (`--grpc`; port 0 picks a free one). */
  readonly grpc: { readonly host: string; readonly port: number };
  readonly version: string;
  /** Request bodies above this many bytes are refused with 413. */
  readonly bodyLimit: number;
  /**
   * The webhook listener (`charter node`, the outbox worker): always on 127.0.0.1, on this port
   * (`--hooks-port`; 0 picks a free one). Absent: no listener.
   */
  readonly hooks?: { readonly port: number };
  /** The engine's admission limits (absent: the defaults). */
  readonly engineLimits?: EngineLimits;
  /** The gateway's connection and host limits (absent: the defaults). */
  readonly gatewayLimits?: GatewayLimits;
  /** When the supervisor started (ms since the epoch): `/health` reports uptime from it. */
  readonly startedAt: number;
  /**
   * The personal node's origin (`--origin`): what browsers send as `Origin`, and whose host name is
   * the passkeys' relying party. Absent: `http://localhost:PORT` with the port the gateway listens on.
   */
  readonly origin?: string;
  /**
   * Replicated engine (`--voter-id`, `--peers`): which voter this is and every voter's did:key
   * and peer address (this one's included). Absent: one voter, no peer port.
   */
  readonly cluster?: {
    readonly voterId: string;
    readonly voters: readonly { readonly id: string; readonly did: string; readonly host: string; readonly port: number }[];
    /** Where this voter listens for peers, when not at its own address in `voters` (`--peer-listen`). */
    readonly listen?: { readonly host: string; readonly port: number };
  };
}

const ENV = "CHARTER_WORKER_CONFIG";

/** Serialises the config into the environment of a worker about to be forked. */
export function configEnv(config: WorkerConfig): Record<string, string> {
  return { [ENV]: JSON.stringify(config) };
}

/** Reads this worker's config; a worker started by hand without one is a usage error. */
export function readConfig(): WorkerConfig {
  const raw = process.env[ENV];
  if (raw === undefined) throw new Error(`${ENV} is not set: workers are started by the supervisor (charter node | charter serve)`);
  return JSON.parse(raw) as WorkerConfig;
}

/** Well-known paths under the data directory. */
export const dataPaths = (dataDir: string) => ({
  store: join(dataDir, "charter.db"),
  lock: join(dataDir, "charter.lock"),
  /** A replicated voter's term, vote and log (workers/engine/cluster/raft-storage.ts). */
  raft: join(dataDir, "raft.db"),
  logs: join(dataDir, "logs"),
  run: join(dataDir, "run"),
  engineSocket: join(dataDir, "run", "engine.sock"),
  /** The gateway listens here for the assistant worker (shared/protocol/assistant.ts). */
  assistantSocket: join(dataDir, "run", "assistant.sock"),
  /** The gateway listens here for the outbox worker (shared/protocol/outbox.ts). */
  outboxSocket: join(dataDir, "run", "outbox.sock"),
  /** The gateway listens here for the outbox's webhook listener (shared/protocol/outbox.ts `HookHostRequests`). */
  hooksSocket: join(dataDir, "run", "hooks.sock"),
  /** The hosts the node's workers may reach (written by the gateway, read by shared/worker/egress.ts). */
  egress: join(dataDir, "run", "egress.json"),
  /** PDF documents the contracts' `effect pdf` made, one file per SHA-256 (`<hex>.pdf`; the outbox writes them). */
  documents: join(dataDir, "documents"),
  /** The operators' socket (mode 0600): tenants, installs; see shared/protocol/admin.ts. */
  adminSocket: join(dataDir, "admin.sock"),
  /** Private keys of the tenants' own identities (`tenant-<handle>.jwk`, mode 0600). */
  keys: join(dataDir, "keys"),
  /** The personal node's account: passkeys, sessions, codes (the gateway is its only writer). */
  accounts: join(dataDir, "accounts.db"),
  /** The key that seals the person's private key at rest (32 bytes, mode 0600). */
  accountKek: join(dataDir, "keys", "account-kek"),
});

/** The journal claimant name of a worker process; the supervisor releases it when that process dies. */
export function claimantName(worker: string, pid: number): string {
  return `${worker}#${pid}`;
}
