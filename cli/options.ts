/**
 * @module Options shared by the commands: those of a process tree (`node`, `serve`), parsed with
 * their one-line usage errors; the data directory every command that takes `--data` works on; the
 * node's URL that the client commands (`command`, `verify`) talk to.
 */
import { existsSync } from "node:fs";
import { isIP } from "node:net";
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { type PeerAddress, parsePeers } from "../shared/worker/peers.ts";
import { DEFAULT_ENGINE_LIMITS, DEFAULT_GATEWAY_LIMITS, DEFAULT_UPLOAD_LIMIT, type EngineLimits, type GatewayLimits } from "../shared/worker/config.ts";

/** A mistake on the command line: printed as one line, exit code 2. */
export class UsageError extends Error {}

export interface TreeOptions {
  readonly dataDir: string;
  readonly listen: { readonly host: string; readonly port: number };
  readonly grpc: { readonly host: string; readonly port: number };
  /** `--hooks-port` (`charter node`): the webhook listener's port on 127.0.0.1; 0 picks a free one. */
  readonly hooksPort: number;
  readonly bodyLimit: number;
  /** Restarts of one worker within 60 s before the tree shuts down (`--restart-limit`). */
  readonly restartLimit: number;
  readonly help: boolean;
  /** The engine's admission limits (`--public-rate`, `--quota-entries`, `--quota-bytes`, `--disk-reserve`). */
  readonly engineLimits: EngineLimits;
  /** The gateway's limits (`--max-connections`, `--allow-host`). */
  readonly gatewayLimits: GatewayLimits;
  /** `--origin` (`charter node`): the app's origin; absent, `http://localhost:PORT` once the port is known. */
  readonly origin?: string;
  /** `--voter-id` and `--peers`: a replicated engine's voters (absent: one voter). */
  readonly cluster?: { readonly voterId: string; readonly voters: readonly PeerAddress[]; readonly listen?: { readonly host: string; readonly port: number } };
}

export const DEFAULT_LISTEN = "127.0.0.1:8787";
/** The gRPC address for the default --listen: its port + 2. */
export const DEFAULT_GRPC = "127.0.0.1:8789";
/** Restarts of one worker within 60 s that the tree survives (the supervisor's intensity limit). */
export const DEFAULT_RESTART_LIMIT = 5;

/** The limits' defaults (shared/worker/config.ts) by the command line's names for them. */
export const LIMIT_DEFAULTS = {
  "public-rate": DEFAULT_ENGINE_LIMITS.publicRate,
  "quota-entries": DEFAULT_ENGINE_LIMITS.quotaEntries,
  "quota-bytes": DEFAULT_ENGINE_LIMITS.quotaBytes,
  "disk-reserve": DEFAULT_ENGINE_LIMITS.diskReserveBytes,
  "max-connections": DEFAULT_GATEWAY_LIMITS.maxConnections,
  "upload-limit": DEFAULT_UPLOAD_LIMIT,
  "library-quota": 0,
} as const;

/** Parses `HOST:PORT` (`[::1]:8787` for IPv6) given to `--FLAG`. */
export function parseListen(text: string, flag = "listen", example = DEFAULT_LISTEN): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (match === null || !Number.isInteger(port) || port > 65535) throw new UsageError(`--${flag} expects HOST:PORT (for example ${example}), got '${text}'`);
  return { host: match[1] ?? match[2] ?? "127.0.0.1", port };
}

/**
 * Parses `--origin URL`: an `http`/`https` origin (no path, query or credentials) with a host name,
 * since browsers make no passkey for an IP address; plain `http` only for `localhost`, the one
 * host name browsers trust without TLS. Answers the origin in its canonical form.
 */
export function parseOrigin(text: string): string {
  const example = "http://localhost:8787 or https://home.example.org";
  if (!URL.canParse(text)) throw new UsageError(`--origin expects a URL such as ${example}, got '${text}'`);
  const url = new URL(text);
  if (!/^https?:$/.test(url.protocol) || url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    throw new UsageError(`--origin expects an origin such as ${example} (no path, query or user), got '${text}'`);
  }
  if (isIP(url.hostname.replace(/^\[|\]$/g, "")) !== 0) throw new UsageError(`--origin needs a host name, not an IP address (browsers make no passkey for an IP address), got '${text}'`);
  const local = url.hostname === "localhost" || url.hostname.endsWith(".localhost");
  if (url.protocol === "http:" && !local) throw new UsageError(`--origin must be https for a host other than localhost (browsers use passkeys over plain http only there), got '${text}'`);
  return url.origin;
}

/** The data directory: `--data`, else `$CHARTER_DATA`, else `./data`. */
export function dataDirFrom(flag: string | undefined): string {
  return resolve(flag ?? process.env.CHARTER_DATA ?? "data");
}

/** What a command that needs an existing data directory says when there is none at `dir`. */
export function noDataDirMessage(dir: string): string {
  return `no Charter data directory at ${dir} (use --data or CHARTER_DATA)`;
}

/**
 * The data directory (as `dataDirFrom`) when it exists; otherwise prints the one line saying so and
 * answers null. Only `node`, `serve` and `identity` create a data directory: any other command run
 * from the wrong folder would otherwise answer from, or write to, a new empty one.
 */
export function existingDataDir(flag: string | undefined): string | null {
  const dir = dataDirFrom(flag);
  if (existsSync(dir)) return dir;
  process.stderr.write(`${noDataDirMessage(dir)}\n`);
  return null;
}

/** The node the client commands talk to when neither `--url` nor `$CHARTER_URL` names one. */
export const DEFAULT_URL = `http://${DEFAULT_LISTEN}`;

/** The node's base URL: `--FLAG`, else `$CHARTER_URL`, else DEFAULT_URL; without a trailing slash. */
export function nodeUrlFrom(flag: string | undefined, name = "url"): string {
  const text = flag ?? process.env.CHARTER_URL ?? DEFAULT_URL;
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) {
    throw new UsageError(`${flag === undefined ? "CHARTER_URL" : `--${name}`} expects a URL such as ${DEFAULT_URL}, got '${text}'`);
  }
  return text.replace(/\/+$/, "");
}

export function parseTreeOptions(args: string[]): TreeOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        data: { type: "string" },
        listen: { type: "string" },
        grpc: { type: "string" },
        "hooks-port": { type: "string" },
        "body-limit": { type: "string" },
        "restart-limit": { type: "string" },
        "public-rate": { type: "string" },
        "quota-entries": { type: "string" },
        "quota-bytes": { type: "string" },
        "disk-reserve": { type: "string" },
        "max-connections": { type: "string" },
        "upload-limit": { type: "string" },
        "library-quota": { type: "string" },
        "allow-host": { type: "string", multiple: true },
        "voter-id": { type: "string" },
        peers: { type: "string" },
        origin: { type: "string" },
        "peer-listen": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0]);
  }
  const limit = values["body-limit"] === undefined ? 1024 * 1024 : Number(values["body-limit"]);
  if (!Number.isInteger(limit) || limit <= 0) throw new UsageError(`--body-limit expects a positive number of bytes, got '${values["body-limit"]}'`);
  const restartLimit = values["restart-limit"] === undefined ? DEFAULT_RESTART_LIMIT : Number(values["restart-limit"]);
  if (!Number.isInteger(restartLimit) || restartLimit < 0) throw new UsageError(`--restart-limit expects a whole number of restarts (0 or more), got '${values["restart-limit"]}'`);
  const count = (flag: keyof typeof LIMIT_DEFAULTS): number => {
    const text = values[flag];
    if (text === undefined) return LIMIT_DEFAULTS[flag];
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--${flag} expects a whole number (0 turns it off), got '${text}'`);
    return n;
  };
  const engineLimits: EngineLimits = { publicRate: count("public-rate"), quotaEntries: count("quota-entries"), quotaBytes: count("quota-bytes"), diskReserveBytes: count("disk-reserve") };
  const maxConnections = count("max-connections");
  if (maxConnections < 16) throw new UsageError(`--max-connections expects at least 16, got '${values["max-connections"]}'`);
  const uploadLimit = count("upload-limit");
  if (uploadLimit < 1) throw new UsageError(`--upload-limit expects a positive number of bytes, got '${values["upload-limit"]}'`);
  const libraryQuota = count("library-quota");
  const allowedHosts = values["allow-host"] ?? [];
  for (const name of allowedHosts) if (!/^[A-Za-z0-9.-]{1,253}$/.test(name)) throw new UsageError(`--allow-host expects a host name (no port), got '${name}'`);
  const origin = values.origin === undefined ? undefined : parseOrigin(values.origin);
  // The origin's own host name is one the node answers for (behind a reverse proxy it is the Host sent).
  const originHost = origin === undefined ? undefined : new URL(origin).hostname;
  if (originHost !== undefined && !allowedHosts.includes(originHost)) allowedHosts.push(originHost);
  const listen = parseListen(values.listen ?? DEFAULT_LISTEN);
  // gRPC defaults to the HTTP port + 2 on the same host, so two nodes started with different
  // --listen ports run side by side; a node asked to pick a free HTTP port picks a free gRPC port too.
  const grpcDefault = listen.port === 0 || listen.port > 65533 ? { host: listen.host, port: 0 } : { host: listen.host, port: listen.port + 2 };
  // The webhook listener likewise defaults to the HTTP port + 1 (8788 with the default --listen).
  const hooksPort = values["hooks-port"] === undefined ? (listen.port === 0 || listen.port > 65534 ? 0 : listen.port + 1) : Number(values["hooks-port"]);
  if (!/^\d{1,5}$/.test(values["hooks-port"] ?? "0") || !Number.isInteger(hooksPort) || hooksPort > 65535) {
    throw new UsageError(`--hooks-port expects a port from 0 to 65535 (0 picks a free one), got '${values["hooks-port"]}'`);
  }
  let cluster: TreeOptions["cluster"];
  if (values.peers !== undefined || values["voter-id"] !== undefined) {
    if (values.peers === undefined || values["voter-id"] === undefined) throw new UsageError("--voter-id and --peers go together (--voter-id a --peers a=DID@host:port,b=…,c=…)");
    const parsed = parsePeers(values.peers);
    if (!parsed.ok) throw new UsageError(parsed.error);
    const voterId = values["voter-id"];
    if (!parsed.value.some((v) => v.id === voterId)) throw new UsageError(`--voter-id ${voterId} is not one of the --peers (${parsed.value.map((v) => v.id).join(", ")})`);
    if (parsed.value.length % 2 === 0) throw new UsageError(`--peers lists ${parsed.value.length} voters; use an odd number (3 survives the loss of one)`);
    // One voter listed alone is the one-voter engine: no peer port, no log.
    const peerListen = values["peer-listen"] === undefined ? undefined : parseListen(values["peer-listen"], "peer-listen", "0.0.0.0:8790");
    if (parsed.value.length > 1) cluster = { voterId, voters: parsed.value, ...(peerListen ? { listen: peerListen } : {}) };
  } else if (values["peer-listen"] !== undefined) {
    throw new UsageError("--peer-listen needs --voter-id and --peers");
  }
  return {
    ...(cluster ? { cluster } : {}),
    ...(origin === undefined ? {} : { origin }),
    dataDir: dataDirFrom(values.data),
    listen,
    grpc: values.grpc === undefined ? grpcDefault : parseListen(values.grpc, "grpc", DEFAULT_GRPC),
    hooksPort,
    bodyLimit: limit,
    restartLimit,
    engineLimits,
    gatewayLimits: { maxConnections, allowedHosts, uploadLimit, libraryQuota },
    help: values.help === true,
  };
}
