/**
 * @module The part every signed request shares (commands, installs): verify the compact JWS for
 * one `typ`, parse its payload as a JSON object, fingerprint it, and check `issuedAt` freshness.
 * Failures come back as 400 problem documents.
 */
import { hash } from "node:crypto";
import { verifyJws, type JwsHeader } from "./jws.ts";
import { problem, type FieldProblem, type Problem } from "./problem.ts";
import { fail, ok, type Result } from "../result.ts";
import { parseRfc3339 } from "./rfc3339.ts";
import { checkJsonValue } from "../json-limits.ts";

/** How far `issuedAt` may be from the node's clock, either way (wire.md: 5 minutes). */
export const MAX_ISSUED_AT_SKEW_MS = 5 * 60_000;

/** A verified JWS whose payload is a JSON object; `digest` is the SHA-256 hex of the compact string. */
export interface Envelope {
  readonly header: JwsHeader;
  readonly fields: Record<string, unknown>;
  readonly signer: string;
  readonly digest: string;
}

/** Verify `compact` as a JWS of media type `typ` whose payload is a JSON object. */
export function openEnvelope(compact: unknown, typ: string, options: { readonly signedHere?: boolean } = {}): Result<Envelope, Problem> {
  if (typeof compact !== "string") return fail(problem(400, "malformed-jws", "the signed request must be a compact JWS string"));
  const verified = verifyJws(compact, { typ, signedHere: options.signedHere === true });
  if (!verified.ok) return fail(problem(400, verified.error.code, verified.error.message));
  let fields: unknown;
  try {
    fields = JSON.parse(verified.value.payload.toString("utf8"));
  } catch {
    return fail(problem(400, "malformed-payload", "the JWS payload is not JSON"));
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    return fail(problem(400, "malformed-payload", "the JWS payload is not a JSON object"));
  }
  // Before anything walks it recursively (digests, canonical JSON, the engine channel's encoder).
  const over = checkJsonValue(fields);
  if (over !== null) return fail(problem(400, "json-over-limit", over.detail, [{ pointer: over.pointer, detail: over.detail }]));
  const { header, signer } = verified.value;
  return ok({ header, fields: fields as Record<string, unknown>, signer, digest: hash("sha256", compact, "hex") });
}

/** Field problems for any payload member not in `allowed` (signed content is never silently ignored). */
export function unknownFields(fields: Record<string, unknown>, allowed: readonly string[]): FieldProblem[] {
  return Object.keys(fields)
    .filter((name) => !allowed.includes(name))
    .map((name) => ({ pointer: `#/${escapePointer(name)}`, detail: "unknown field" }));
}

/** A field problem if `value` is not an RFC 3339 date-time string. */
export function checkTimestamp(value: unknown, name: string): FieldProblem | null {
  return typeof value === "string" && parseRfc3339(value) !== null ? null : { pointer: `#/${name}`, detail: "must be an RFC 3339 date-time such as 2026-11-21T10:00:00Z" };
}

/** A 400 `stale` problem if the (already checked) RFC 3339 `issuedAt` is more than 5 minutes from `now`. */
export function checkFresh(issuedAt: string, now: number): Problem | null {
  const at = parseRfc3339(issuedAt) as number;
  const skew = at - now;
  if (Math.abs(skew) <= MAX_ISSUED_AT_SKEW_MS) return null;
  const minutes = Math.round(Math.abs(skew) / 60_000);
  const direction = skew < 0 ? "in the past" : "in the future";
  return problem(400, "stale", `issuedAt ${issuedAt} is about ${minutes} minutes ${direction}; it must be within 5 minutes of the node's clock (${new Date(now).toISOString()})`, [
    { pointer: "#/issuedAt", detail: "more than 5 minutes from the node's clock" },
  ]);
}

/** RFC 6901 escaping of one reference token. */
export function escapePointer(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}
