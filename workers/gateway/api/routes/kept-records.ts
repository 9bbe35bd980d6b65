/**
 * @module What the routes of the person's kept records (`/api/memory`, `/api/rules`,
 * `/api/persona`) share: a record's commit times read from its history, and
 * deleting a kept record (itself an action of its contract, so history keeps that it happened).
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { type Signed, signedWrite } from "../personal/signed-write.ts";

/** How far into a subject's history its first accepted entry is looked for. */
const FIRST_ENTRIES = 10;

/** The commit time (RFC 3339) of the first accepted entry of a subject's history, or null. */
export function createdAt(reader: PersonReader, namespace: string, aggregate: string, subject: string): string | null {
  const { entries } = reader.history(undefined, namespace, aggregate, subject, 0, FIRST_ENTRIES);
  return entries.find((e) => e.outcome === "accepted")?.committedAt ?? null;
}

/** The commit time of the history entry `seq` of a subject (the one a record read names as its last write), or null. */
export function committedAt(reader: PersonReader, namespace: string, aggregate: string, subject: string, seq: number): string | null {
  const { entries } = reader.history(undefined, namespace, aggregate, subject, seq - 1, 1);
  const entry = entries[0];
  return entry !== undefined && entry.seq === seq ? entry.committedAt : null;
}

/** What deleting a kept record needs. */
export interface KeptRecord {
  readonly namespace: string;
  readonly aggregate: string;
  /** The path's name of what is deleted, for the `404`'s detail ("note", "rule"). */
  readonly noun: string;
}

/**
 * Signs the contract's `Delete` of `subject`: `404` when the personal tenant has no such record or
 * it is deleted already; the contract then decides (its refusal is `422` with the receipt).
 */
export async function deleteKept(reader: PersonReader, writer: PersonWriter, kept: KeptRecord, subject: string): Promise<Signed> {
  const found = reader.record(undefined, kept.namespace, kept.aggregate, subject);
  if (found === null || found.state.deleted === true) throw new HttpProblem(problem(404, "not-found", `no ${kept.noun} '${subject.slice(0, 128)}'`));
  return signedWrite(writer, { namespace: kept.namespace, action: "Delete", subject, args: {} });
}
