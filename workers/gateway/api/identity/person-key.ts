/**
 * @module The person's identity, made at set-up: an Ed25519 did:key whose private key is kept only
 * sealed (XChaCha20-Poly1305 under the key-encryption key in `DATA/keys/account-kek`, bound to the
 * did), in `account_identity` beside the account's other tables. The node signs the person's
 * `/api` writes with it (personal/person-writer.ts).
 */
import type { DatabaseSync } from "node:sqlite";
import { fromPrivateJwk, generateKeyPair, type KeyPair, toPrivateJwk } from "../../../../shared/identity/index.ts";
import { ok } from "../../../../shared/result.ts";
import type { Outcome, SetupPlan } from "../account/ceremonies.ts";
import { openSecret, sealSecret } from "./aead.ts";

const DDL = `
CREATE TABLE IF NOT EXISTS account_identity (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  did TEXT NOT NULL,
  nonce BLOB NOT NULL,
  sealed_key BLOB NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;
`;

/** Where the person's key is kept, and how to reach the key that seals it. */
export interface PersonKeyOptions {
  readonly db: DatabaseSync;
  /** The key-encryption key (read, or made on first use). */
  readonly kek: () => Uint8Array;
  readonly now: () => number;
}

/** Creates `account_identity` when missing; safe on every open. */
export function ensurePersonKeyTable(db: DatabaseSync): void {
  db.exec(DDL);
}

/**
 * Set-up's identity step: a new did:key for the person, its private key sealed and kept (replacing
 * the key of a set-up attempt that never finished). Answers the did.
 */
export function personIdentityMaker(options: PersonKeyOptions): (plan: SetupPlan) => Promise<Outcome<{ did: string }>> {
  ensurePersonKeyTable(options.db);
  return async () => {
    const pair = generateKeyPair();
    const sealed = sealSecret(Buffer.from(JSON.stringify(toPrivateJwk(pair))), options.kek(), Buffer.from(pair.did));
    options.db
      .prepare("INSERT OR REPLACE INTO account_identity (id, did, nonce, sealed_key, created_at) VALUES (1, ?, ?, ?, ?)")
      .run(pair.did, sealed.nonce, sealed.ciphertext, options.now());
    return ok({ did: pair.did });
  };
}

/** The person's key pair, opened from its sealed form; null before set-up. Throws when it cannot be opened. */
export function openPersonKey(options: Pick<PersonKeyOptions, "db" | "kek">): KeyPair | null {
  ensurePersonKeyTable(options.db);
  const row = options.db.prepare("SELECT did, nonce, sealed_key FROM account_identity WHERE id = 1").get() as { did: string; nonce: Uint8Array; sealed_key: Uint8Array } | undefined;
  if (row === undefined) return null;
  const opened = openSecret({ nonce: row.nonce, ciphertext: row.sealed_key }, options.kek(), Buffer.from(row.did));
  if (opened === null) throw new Error("the person's key cannot be opened with DATA/keys/account-kek (another key, or altered)");
  const pair = fromPrivateJwk(JSON.parse(opened.toString("utf8")));
  if (!pair.ok || pair.value.did !== row.did) throw new Error("the person's sealed key does not match its did");
  return pair.value;
}
