/**
 * @module The steps of a Workbench check, read from an `/api` body: a list of at most `STEP_MAX`
 * objects `{action, subject, args?, signer?}`. Every wrong field is named in one `400
 * malformed-body` (`#/steps/2/subject`); whether an action exists or takes those arguments is the
 * throwaway node's to say, step by step.
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { CheckStep } from "./workbench-runner.ts";

/** Most steps one check runs (each is a process of its own). */
export const STEP_MAX = 50;
/** Longest action name or subject (a subject's own limit, reference §3). */
const NAME_MAX = 128;
/** Field problems reported at most (the body's JSON limits bound the list; a caller needs the first few). */
const ERRORS_MAX = 20;
/** A signer is a name the Workbench gives a throwaway identity: `owner`, or any other (a member). */
const SIGNER = /^[a-z][a-z0-9_-]{0,31}$/;

interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

/** The steps of `value`, or the `400` naming each wrong field. */
export function readSteps(value: unknown): CheckStep[] {
  if (!Array.isArray(value)) throw malformed([{ pointer: "#/steps", detail: "steps must be a list of {action, subject, args?, signer?}" }]);
  if (value.length > STEP_MAX) throw malformed([{ pointer: "#/steps", detail: `a check runs at most ${STEP_MAX} steps` }]);
  const errors: FieldError[] = [];
  const steps = value.map((step: unknown, i) => readStep(step, `#/steps/${i}`, errors));
  if (errors.length > 0) throw malformed(errors.slice(0, ERRORS_MAX));
  return steps;
}

function readStep(step: unknown, at: string, errors: FieldError[]): CheckStep {
  if (step === null || typeof step !== "object" || Array.isArray(step)) {
    errors.push({ pointer: at, detail: "a step is an object {action, subject, args?, signer?}" });
    return { action: "", subject: "", args: {} };
  }
  const { action, subject, args, signer, ...rest } = step as Record<string, unknown>;
  for (const key of Object.keys(rest)) errors.push({ pointer: `${at}/${key.slice(0, 64)}`, detail: "unknown field" });
  const name = (v: unknown, field: string): string => {
    if (typeof v === "string" && v.length > 0 && v.length <= NAME_MAX) return v;
    errors.push({ pointer: `${at}/${field}`, detail: `${field} must be a string of 1 to ${NAME_MAX} characters` });
    return "";
  };
  const checked = { action: name(action, "action"), subject: name(subject, "subject") };
  if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) errors.push({ pointer: `${at}/args`, detail: "args must be a JSON object" });
  if (signer !== undefined && (typeof signer !== "string" || !SIGNER.test(signer))) {
    errors.push({ pointer: `${at}/signer`, detail: 'signer must be a short lower-case name ("owner" owns the throwaway tenant; any other is a member)' });
  }
  return { ...checked, args: (args ?? {}) as Record<string, unknown>, ...(typeof signer === "string" ? { signer } : {}) };
}

function malformed(errors: FieldError[]): HttpProblem {
  const first = errors[0]?.detail ?? "bad steps";
  return new HttpProblem(problem(400, "malformed-body", errors.length === 1 ? first : `${errors.length} fields are wrong, first: ${first}`, errors));
}
