/**
 * @module Signed commands (`typ: charter-command+jws`): parse and verify one for the write path,
 * or build one for tests, the CLI and benchmarks.
 *
 * Every rejection is a 400 problem document, including a payload whose tenant, namespace or
 * action differ from the request path's: that request contradicts itself, which is malformed
 * input, not a question of permission (403) or of existence (404 — whether the path's tenant,
 * namespace and action exist is the gateway's lookup, not this layer's).
 */
import { checkFresh, checkTimestamp, openEnvelope, unknownFields } from "./envelope.ts";
import { signJws, type JwsHeader } from "./jws.ts";
import type { KeyPair } from "./key-pair.ts";
import { problem, type FieldProblem, type Problem } from "./problem.ts";
import { fail, ok, type Result } from "../result.ts";

/** The JWS `typ` of a command. */
export const COMMAND_TYP = "charter-command+jws";

/** A command's payload, exactly as wire.md lists it. */
export interface CommandPayload {
  readonly tenant: string;
  readonly namespace: string;
  readonly action: string;
  readonly subject: string;
  readonly args: Record<string, unknown>;
  readonly idempotencyKey: string;
  readonly issuedAt: string;
}

/** A command whose signature, shape, freshness and path all checked out. */
export interface VerifiedCommand {
  readonly header: JwsHeader;
  readonly payload: CommandPayload;
  /** The signer's did:key (the header's `kid`). */
  readonly signer: string;
  /** SHA-256 hex of the compact JWS: the receipt's `command`. */
  readonly digest: string;
}

/** Where the command was posted: `/v1/{tenant}/{namespace}/actions/{action}`. */
export interface CommandPath {
  readonly tenant: string;
  readonly namespace: string;
  readonly action: string;
}

const FIELDS = ["tenant", "namespace", "action", "subject", "args", "idempotencyKey", "issuedAt"] as const;
const SUBJECT = /^[A-Za-z0-9._:-]{1,128}$/;
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,128}$/;

/** Verify a compact JWS command posted to `path` at time `now` (epoch ms). Never throws for any input. */
export function parseCommand(compact: unknown, options: { readonly now: number; readonly path: CommandPath; readonly signedHere?: boolean }): Result<VerifiedCommand, Problem> {
  const envelope = openEnvelope(compact, COMMAND_TYP, { signedHere: options.signedHere === true });
  if (!envelope.ok) return envelope;
  const { header, fields, signer, digest } = envelope.value;

  const errors: FieldProblem[] = unknownFields(fields, FIELDS);
  for (const name of ["tenant", "namespace", "action"] as const) {
    if (typeof fields[name] !== "string" || fields[name] === "") errors.push({ pointer: `#/${name}`, detail: "must be a non-empty string" });
  }
  if (typeof fields.subject !== "string" || !SUBJECT.test(fields.subject)) {
    errors.push({ pointer: "#/subject", detail: "must be 1–128 characters of A–Z a–z 0–9 . _ : -" });
  }
  const args = fields.args;
  if (typeof args !== "object" || args === null || Array.isArray(args)) errors.push({ pointer: "#/args", detail: "must be a JSON object" });
  if (typeof fields.idempotencyKey !== "string" || !IDEMPOTENCY_KEY.test(fields.idempotencyKey)) {
    errors.push({ pointer: "#/idempotencyKey", detail: "must be 1–128 printable ASCII characters" });
  }
  const timestamp = checkTimestamp(fields.issuedAt, "issuedAt");
  if (timestamp !== null) errors.push(timestamp);
  if (errors.length > 0) return fail(problem(400, "malformed-payload", "the command payload has missing or mistyped fields", errors));
  const payload = fields as unknown as CommandPayload;

  const stale = checkFresh(payload.issuedAt, options.now);
  if (stale !== null) return fail(stale);

  const mismatched = (["tenant", "namespace", "action"] as const).filter((name) => payload[name] !== options.path[name]);
  if (mismatched.length > 0) {
    return fail(
      problem(
        400,
        "path-mismatch",
        `the signed command is for ${payload.tenant}/${payload.namespace}/${payload.action} but was posted to ${options.path.tenant}/${options.path.namespace}/${options.path.action}`,
        mismatched.map((name) => ({ pointer: `#/${name}`, detail: `must equal the path's ${name} '${options.path[name]}'` })),
      ),
    );
  }
  return ok({ header, payload, signer, digest });
}

/** Sign a command as `keyPair` (for tests, the CLI and benchmarks; the API never signs on anyone's behalf). */
export function signCommand(keyPair: KeyPair, payload: CommandPayload): string {
  return signJws({ kid: keyPair.did, typ: COMMAND_TYP }, JSON.stringify(payload), keyPair.secretKey);
}
