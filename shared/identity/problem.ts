/**
 * @module RFC 9457 problem documents for input the identity layer rejects. A problem is a value
 * the gateway serialises as `application/problem+json`; `code` is our stable machine-readable
 * extension member and `type` is derived from it.
 */
import type { Problem as BaseProblem } from "../problem.ts";

/** One field-level problem: RFC 9457's own example shape, `pointer` a JSON Pointer fragment into the payload. */
export interface FieldProblem {
  readonly pointer: string;
  readonly detail: string;
}

/** Stable codes of the problems this layer produces. */
export type ProblemCode =
  | "malformed_jws"
  | "unsupported_alg"
  | "unsupported_crit"
  | "bad_kid"
  | "bad_typ"
  | "bad_signature"
  | "malformed_payload" // not a JSON object, or fields missing / mistyped (see `errors`)
  | "stale" //             issuedAt more than 5 minutes from the node's clock
  | "path_mismatch" //     tenant / namespace / action differ from the request path's
  | "unauthenticated" //   a bearer token that is missing, invalid, expired or for another audience
  | "json-over-limit"; //  a payload nested too deep or holding too many values (shared/json-limits.ts)

/** An RFC 9457 problem document (shared/problem.ts) whose code is one of this layer's. */
export interface Problem extends BaseProblem {
  readonly code: ProblemCode;
  readonly errors?: readonly FieldProblem[];
}

const TITLES: Record<ProblemCode, string> = {
  malformed_jws: "Malformed JWS",
  unsupported_alg: "Unsupported signature algorithm",
  unsupported_crit: "Unsupported critical header",
  bad_kid: "Invalid signer key id",
  bad_typ: "Wrong JWS type",
  bad_signature: "Bad signature",
  malformed_payload: "Malformed payload",
  stale: "Stale request",
  path_mismatch: "Payload does not match the request path",
  unauthenticated: "Unauthenticated",
  "json-over-limit": "JSON over the limits",
};

/** A problem document with the title and type its code implies. */
export function problem(status: number, code: ProblemCode, detail: string, errors?: readonly FieldProblem[]): Problem {
  const base = { type: `urn:charter:problem:${code}`, title: TITLES[code], status, detail, code };
  return errors === undefined ? base : { ...base, errors };
}
