/**
 * @module The comms settings and signatures, records of `std.comms`: whether sending asks for the
 * person's approval (on until the person turns it off), the accounts whose inbox is not read, and
 * each account's signature. Read with their defaults where nothing was recorded yet (before set-up,
 * std.comms not installed yet, never set).
 */
import type { PersonReader } from "../personal/person-reader.ts";
import { COMMS, quietly, SETTINGS, signatureSubject } from "./comms-records.ts";

/** The settings as recorded, or their defaults. */
export interface CommsSettings {
  readonly ask: boolean;
  readonly readingOff: readonly string[];
}

export function readCommsSettings(reader: PersonReader): CommsSettings {
  const state = quietly(() => reader.record(undefined, COMMS, "Settings", SETTINGS)?.state ?? null, null);
  if (state === null) return { ask: true, readingOff: [] };
  return { ask: state.ask !== false, readingOff: Array.isArray(state.reading_off) ? state.reading_off.map(String) : [] };
}

/** The signature of each account that has one (text not empty). */
export function readSignatures(reader: PersonReader): Record<string, string> {
  const rows = quietly(() => reader.query(undefined, COMMS, "Signatures", { limit: 200 }).rows, []);
  const out: Record<string, string> = {};
  for (const row of rows) if (typeof row.text === "string" && row.text !== "") out[String(row.account)] = row.text;
  return out;
}

/** The signature of `account`, "" when it has none. */
export function signatureOf(reader: PersonReader, account: string): string {
  const state = quietly(() => reader.record(undefined, COMMS, "Signature", signatureSubject(account))?.state ?? null, null);
  return typeof state?.text === "string" ? state.text : "";
}
