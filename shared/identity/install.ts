/**
 * @module Install envelopes (`typ: charter-install+jws`, payload `{tenant, source, issuedAt, id}`):
 * an owner's signed request to install a contract over HTTP (`POST /v1/{tenant}/_install`).
 * Whether the signer owns the tenant is the engine's question; this checks the envelope.
 *
 * `id` makes an install single-use: the engine records every id it applied (workers/engine/install.ts)
 * and refuses a second use, so a JWS replayed within its freshness window cannot, say, bring back a
 * namespace retired since. Installs are not idempotent the way commands are: there is no receipt to
 * hand back, and re-applying an old install after a retirement is exactly the harm.
 */
import { randomBytes } from "node:crypto";
import { checkFresh, checkTimestamp, openEnvelope, unknownFields } from "./envelope.ts";
import { signJws, type JwsHeader } from "./jws.ts";
import type { KeyPair } from "./key-pair.ts";
import { problem, type FieldProblem, type Problem } from "./problem.ts";
import { fail, ok, type Result } from "../result.ts";

/** The JWS `typ` of an install request. */
export const INSTALL_TYP = "charter-install+jws";

/** An install request's payload; `source` is the whole `*.charter.md` file. */
export interface InstallPayload {
  readonly tenant: string;
  readonly source: string;
  readonly issuedAt: string;
  /** Single-use: 16–64 characters of base64url (`A–Z a–z 0–9 - _`), random, made by the signer. */
  readonly id: string;
}

/** The shape of an install id; random enough to be unguessable at 16 characters (96 bits). */
export const INSTALL_ID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/** An install request whose signature, shape, freshness and tenant checked out. */
export interface VerifiedInstall {
  readonly header: JwsHeader;
  readonly payload: InstallPayload;
  readonly signer: string;
  readonly digest: string;
}

const FIELDS = ["tenant", "source", "issuedAt", "id"] as const;

/** Verify an install JWS posted for `tenant` at time `now` (epoch ms). Never throws for any input. */
export function parseInstall(compact: unknown, options: { readonly now: number; readonly tenant: string }): Result<VerifiedInstall, Problem> {
  const envelope = openEnvelope(compact, INSTALL_TYP);
  if (!envelope.ok) return envelope;
  const { header, fields, signer, digest } = envelope.value;

  const errors: FieldProblem[] = unknownFields(fields, FIELDS);
  if (typeof fields.tenant !== "string" || fields.tenant === "") errors.push({ pointer: "#/tenant", detail: "must be a non-empty string" });
  if (typeof fields.source !== "string" || fields.source === "") errors.push({ pointer: "#/source", detail: "must be the contract's Markdown source, a non-empty string" });
  if (typeof fields.id !== "string" || !INSTALL_ID_PATTERN.test(fields.id)) {
    errors.push({ pointer: "#/id", detail: "must be a single-use random id: 16–64 characters of A–Z a–z 0–9 - _" });
  }
  const timestamp = checkTimestamp(fields.issuedAt, "issuedAt");
  if (timestamp !== null) errors.push(timestamp);
  if (errors.length > 0) return fail(problem(400, "malformed-payload", "the install payload has missing or mistyped fields", errors));
  const payload = fields as unknown as InstallPayload;

  const stale = checkFresh(payload.issuedAt, options.now);
  if (stale !== null) return fail(stale);
  if (payload.tenant !== options.tenant) {
    return fail(
      problem(400, "path-mismatch", `the signed install is for tenant ${payload.tenant} but was posted to ${options.tenant}`, [
        { pointer: "#/tenant", detail: `must equal the path's tenant '${options.tenant}'` },
      ]),
    );
  }
  return ok({ header, payload, signer, digest });
}

/** A fresh install id (22 characters of base64url, 128 random bits). */
export function newInstallId(): string {
  return randomBytes(16).toString("base64url");
}

/** Sign an install request as `keyPair` (for the CLI and tests). */
export function signInstall(keyPair: KeyPair, payload: InstallPayload): string {
  return signJws({ kid: keyPair.did, typ: INSTALL_TYP }, JSON.stringify(payload), keyPair.secretKey);
}
