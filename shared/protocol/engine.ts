/**
 * @module The engine channel: what other workers (and the supervisor) ask of the engine, the only
 * writer of the store. Later issues add the command path here.
 */
import type { FailResult, JournalEntry, JournalStats } from "../journal.ts";

export type EngineRequests = {
  ping: { request: Record<string, never>; response: { pid: number } };
  "journal-append": { request: { topic: string; payload: unknown; key?: string; delayMs?: number }; response: { id: number } };
  "journal-claim": { request: { claimant: string; topics: string[]; limit: number; leaseMs?: number }; response: JournalEntry[] };
  "journal-ack": { request: { claimant: string; ids: number[] }; response: number[] };
  "journal-fail": { request: { claimant: string; id: number; error: string }; response: FailResult };
  "journal-release": { request: { claimant: string }; response: number };
  "journal-stats": { request: Record<string, never>; response: JournalStats };
};
