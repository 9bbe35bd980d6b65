/**
 * @module What the routes of the person's kept records (`/api/memory`, `/api/rules`,
 * `/api/persona`) share: a write signed as the person whose refusal is a problem document carrying
 * the receipt, fresh subjects for new records, a record's commit times read from its history, and
 * deleting a kept record (itself an action of its contract, so history keeps that it happened).
 */
import { randomBytes } from "node:crypto";
import { type Receipt, receiptOf } from "../../../../shared/identity/index.ts";
import { HttpProblem, type Problem, problem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWrite, PersonWriter } from "../personal/person-writer.ts";

/** A write the contract accepted: its receipt, and the receipt's JWS signed by the node. */
export interface Signed {
  readonly receipt: Receipt;
  readonly jws: string;
}

/** A refusal as a problem document: `422 refused`, the reason's code, the receipt and its JWS. */
export type RefusedProblem = Problem & Signed;

/**
 * Signs `write` as the person and answers the accepted receipt. Anything else is thrown: the
 * engine's problem (404 unknown namespace, 400 bad arguments, …) with its `#/args/NAME` pointers
 * turned into the request body's (`fields` maps an argument to the body field it came from, when
 * their names differ), a refusal as `422 refused` with `reason` (`text_too_long`,
 * `condition_failed`, …), the receipt and its JWS.
 */
export async function signedWrite(writer: PersonWriter, write: PersonWrite, fields: Readonly<Record<string, string>> = {}): Promise<Signed> {
  const answer = await writer.act(write);
  if (answer.kind === "problem") throw new HttpProblem(bodyPointers(answer.problem, fields));
  const receipt = receiptOf(answer.jws);
  if (answer.outcome === "accepted") return { receipt, jws: answer.jws };
  const reason = receipt.reason;
  const refused: RefusedProblem = {
    ...problem(422, "refused", `${write.namespace} refused ${write.action}: ${reason?.message ?? "no reason recorded"}`),
    ...(reason === null ? {} : { reason: reason.code }),
    receipt,
    jws: answer.jws,
  };
  throw new HttpProblem(refused);
}

/**
 * Signs `writes` as the person, in order, so that a refusal leaves the records as they were: every
 * write after the first is previewed first (the engine decides it without recording it), and one
 * the contract would refuse is signed alone, so its refusal, with the receipt, is what is thrown
 * and nothing else is written. (Should the state change between the preview and the write, the
 * contract decides again; a write refused only then follows those already made.)
 */
export async function signedWrites(writer: PersonWriter, writes: readonly PersonWrite[], fields: Readonly<Record<string, string>> = {}): Promise<Signed[]> {
  const pending = [...writes];
  const signed: Signed[] = [];
  for (const write of writes.slice(1)) {
    const preview = await writer.preview(write);
    if (preview.kind === "problem") throw new HttpProblem(bodyPointers(preview.problem, fields));
    if (preview.outcome === "accepted") continue;
    signed.push(await signedWrite(writer, write, fields));
    pending.splice(pending.indexOf(write), 1);
  }
  for (const write of pending) signed.push(await signedWrite(writer, write, fields));
  return signed;
}

/** `p` with each `#/args/NAME` pointer of its errors naming the body's field instead. */
function bodyPointers(p: Problem, fields: Readonly<Record<string, string>>): Problem {
  if (p.errors === undefined) return p;
  const errors = p.errors.map((e) => {
    const pointer = (e as { pointer?: unknown }).pointer;
    if (typeof pointer !== "string" || !pointer.startsWith("#/args/")) return e;
    const [arg = "", ...rest] = pointer.slice("#/args/".length).split("/");
    const field = Object.hasOwn(fields, arg) ? fields[arg] : arg;
    return { ...e, pointer: ["#", field, ...rest].join("/") };
  });
  return { ...p, errors };
}

/** A subject no record has yet: `prefix-` and 80 random bits in hex. */
export function newSubject(prefix: string): string {
  return `${prefix}-${randomBytes(10).toString("hex")}`;
}

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
