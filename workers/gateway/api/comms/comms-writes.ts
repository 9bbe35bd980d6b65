/**
 * @module Writing `std.comms` records as the person where a refusal is an answer like any: the step
 * was done already (a message recorded, a Reference claimed), or does not apply (an older message
 * does not move a thread on); its reason is kept in history. What the engine answers with a
 * problem is thrown as that problem.
 */
import { HttpProblem } from "../../../../shared/problem.ts";
import type { PersonWrite, PersonWriter } from "../personal/person-writer.ts";
import { COMMS } from "./comms-records.ts";

/** Signs `write` of std.comms; answers whether the contract accepted or refused it, or throws the engine's problem. */
export async function commsAct(writer: PersonWriter, write: Omit<PersonWrite, "namespace">): Promise<"accepted" | "refused"> {
  const answer = await writer.act({ ...write, namespace: COMMS });
  if (answer.kind === "problem") throw new HttpProblem(answer.problem);
  return answer.outcome === "accepted" ? "accepted" : "refused";
}

/** Whether a problem may pass if tried again: the engine away or busy, the node not set up yet, std.comms not installed yet. */
export function mayPass(error: unknown): boolean {
  if (!(error instanceof HttpProblem)) return true;
  const p = error.problem;
  return p.status >= 500 || p.status === 429 || p.code === "not-set-up" || p.code === "unknown-namespace" || (p.status === 404 && p.code === "not-found");
}
