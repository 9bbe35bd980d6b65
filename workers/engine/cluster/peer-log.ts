/**
 * @module How the peer transport reports: its log, warnings rate-limited per party (anyone who can
 * reach the port can make it warn, so a peer that keeps failing the same way is reported once in a
 * while, not on every attempt), and the one wording of a peer that broke the link protocol.
 */

/** The structured log the transport writes to. */
export interface PeerLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

/** The same warning about the same party is repeated at most this often. */
export const WARN_REPEAT_MS = 30_000;
/** Parties remembered at most; past it the memory starts again (a flood of parties cannot grow it). */
const MAX_PARTIES = 1024;

/** Warnings, each said again about the same party only once `WARN_REPEAT_MS` has passed. */
export class PeerWarnings {
  readonly #log: PeerLog;
  readonly #now: () => number;
  readonly #recent = new Map<string, { msg: string; at: number }>();

  constructor(log: PeerLog, now: () => number = Date.now) {
    this.#log = log;
    this.#now = now;
  }

  /** Warns, unless the same warning about the same party went out recently. */
  warn(party: string, msg: string, fields: Record<string, unknown>): void {
    const now = this.#now();
    const last = this.#recent.get(party);
    if (last !== undefined && last.msg === msg && now - last.at < WARN_REPEAT_MS) return;
    if (this.#recent.size >= MAX_PARTIES) this.#recent.clear();
    this.#recent.set(party, { msg, at: now });
    this.#log.warn(msg, fields);
  }

  /** An authenticated peer broke the link protocol (either link to it). */
  protocolError(peer: { readonly id: string; readonly did: string }, what: string): void {
    this.warn(`protocol:${peer.id}`, `peer ${peer.id} broke the link protocol: ${what}`, { peer: peer.id, did: peer.did });
  }
}

/** An error's message, for a log line or a failed request's answer. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
