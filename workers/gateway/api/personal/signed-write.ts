/**
 * @module The node's writes as the person, as `/api` routes answer them: a write signed as the
 * person whose refusal is one problem document for every route — `422 refused` with the reason's
 * code, the receipt and its JWS — and the engine's other problems with their pointers naming the
 * request body's fields.
 */
import { type Receipt, receiptOf } from "../../../../shared/identity/index.ts";
import { HttpProblem, type Problem, problem } from "../../../../shared/problem.ts";
import type { PersonWrite, PersonWriter } from "./person-writer.ts";

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
  if (answer.outcome === "accepted") return { receipt: receiptOf(answer.jws), jws: answer.jws };
  throw new HttpProblem(refusedProblem(answer.jws));
}

/** The problem of a refused command's receipt JWS: `422 refused`, the reason's code, the receipt and the JWS. */
export function refusedProblem(jws: string): RefusedProblem {
  const receipt = receiptOf(jws);
  const reason = receipt.reason;
  return {
    ...problem(422, "refused", `${receipt.namespace} refused ${receipt.action}: ${reason?.message ?? "no reason recorded"}`),
    ...(reason === null ? {} : { reason: reason.code }),
    receipt,
    jws,
  };
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
