/**
 * @module The engine channel: what other workers (and the supervisor) ask of the engine, the only
 * writer of the store. Later issues add the command path here.
 */
import type { CommandPayload } from "../identity/index.ts";
import type { Receipt } from "../identity/index.ts";
import type { FailResult, JournalEntry, JournalStats } from "../journal.ts";
import type { Problem } from "../problem.ts";

/** A command whose signature, freshness and path the gateway has verified. */
export interface SubmittedCommand {
  readonly jws: string;
  /** SHA-256 hex of the JWS. */
  readonly digest: string;
  readonly signer: string;
  readonly payload: CommandPayload;
}

/** The engine's answer: a receipt (accepted or refused, possibly replayed), or a problem (not a command). */
export type CommandAnswer =
  | { readonly kind: "receipt"; readonly receipt: Receipt; readonly replayed: boolean }
  | { readonly kind: "problem"; readonly problem: Problem };

/** What the engine tells each worker that asked (`watch-commits`) after each commit. */
export type EngineNotices = {
  committed: { receipts: readonly Receipt[] };
};

export type EngineRequests = {
  ping: { request: Record<string, never>; response: { pid: number } };
  command: { request: SubmittedCommand; response: CommandAnswer };
  /** Start or stop receiving `committed` notices on this channel (none are sent until asked for). */
  "watch-commits": { request: { watch: boolean }; response: null };
  "journal-append": { request: { topic: string; payload: unknown; key?: string; delayMs?: number }; response: { id: number } };
  "journal-claim": { request: { claimant: string; topics: string[]; limit: number; leaseMs?: number }; response: JournalEntry[] };
  "journal-ack": { request: { claimant: string; ids: number[] }; response: number[] };
  "journal-fail": { request: { claimant: string; id: number; error: string }; response: FailResult };
  "journal-release": { request: { claimant: string }; response: number };
  "journal-stats": { request: Record<string, never>; response: JournalStats };
};
