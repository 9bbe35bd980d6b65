/**
 * @module Single-use install ids: a signed `_install` carries a random `id`, and the
 * engine spends it in the same transaction as the install it allows, so the same JWS replayed
 * within its freshness window is refused (`install_replayed`) rather than applied again — say,
 * after its namespace was retired. Deterministic for replicated voters: the check reads only the
 * store and the log entry's time, so every voter spends, refuses and prunes alike.
 */
import type { DatabaseSync } from "node:sqlite";
import { INSTALL_ID_PATTERN } from "../../shared/identity/install.ts";
import { parseRfc3339 } from "../../shared/identity/rfc3339.ts";

/** What the gateway passes along from a verified install JWS. */
export interface SignedInstall {
  readonly id: string;
  /** The payload's RFC 3339 `issuedAt`. */
  readonly issuedAt: string;
}

/**
 * How far from the applying entry's time an install's `issuedAt` may be, and so how long its id is
 * kept. Three times the gateway's 5-minute freshness window: a JWS the gateway let through is
 * never refused here for a slow compile or a leader whose clock is a little off, and an id is only
 * pruned once any JWS bearing it is refused here as stale anyway.
 */
export const INSTALL_ID_KEEP_MS = 15 * 60_000;

type Spent = { readonly ok: true } | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/** Spends `signed.id` for `signer` at `now` (call inside the install's transaction), or says why not. */
export function spendInstallId(db: DatabaseSync, signer: string, signed: SignedInstall, now: number): Spent {
  // It arrived over the admin channel as JSON: check its shape rather than trust the type.
  const wellFormed = typeof signed === "object" && signed !== null && typeof signed.id === "string" && typeof signed.issuedAt === "string";
  const issuedAt = wellFormed ? parseRfc3339(signed.issuedAt) : null;
  if (!wellFormed || !INSTALL_ID_PATTERN.test(signed.id) || issuedAt === null) {
    return { ok: false, error: { code: "bad_install", message: "a signed install names {id, issuedAt}: an id of 16–64 base64url characters and an RFC 3339 time" } };
  }
  // Refused before pruning can matter: a JWS this old would find its id gone.
  if (Math.abs(issuedAt - now) > INSTALL_ID_KEEP_MS) {
    return { ok: false, error: { code: "install_stale", message: `the install was signed at ${signed.issuedAt}, more than ${INSTALL_ID_KEEP_MS / 60_000} minutes from the node's time; sign it again` } };
  }
  db.prepare("DELETE FROM install_ids WHERE issued_at < ?").run(now - INSTALL_ID_KEEP_MS);
  if (db.prepare("SELECT 1 FROM install_ids WHERE signer = ? AND id = ?").get(signer, signed.id) !== undefined) {
    return { ok: false, error: { code: "install_replayed", message: `install ${signed.id} was already used; an install applies once — sign it again with a new id` } };
  }
  db.prepare("INSERT INTO install_ids (signer, id, issued_at, used_at) VALUES (?, ?, ?, ?)").run(signer, signed.id, issuedAt, now);
  return { ok: true };
}
