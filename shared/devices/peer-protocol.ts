/**
 * @module The messages paired devices send each other over HTTP(S), each a compact JWS signed by
 * the sending node's key (its did:key, pinned by the other at pairing):
 *
 * - `POST /sync/pair` — a new device asks to join: `charter-pair+jws` signed by the device, with
 *   the pairing code shown on the home node; answered by `charter-paired+jws`, signed by the home
 *   node, carrying the person's identity key sealed under a key derived from the code and both
 *   nodes' dids (so only a device that knew the code can open it, and only a home node that knew it
 *   could have sealed it: both ends are authenticated by the code, then pinned).
 * - `POST /sync/exchange` — `charter-sync+jws`: what the sender holds (a version vector), the
 *   commands the receiver lacks, revocations; answered by `charter-sync-reply+jws` naming the
 *   request's digest, with what the receiver holds and the commands the sender lacks. A request
 *   is fresh (±5 minutes) and its nonce is used once; a reply is bound to its request.
 */
import { hkdfSync, randomBytes } from "node:crypto";
import { signJws, verifyJws, type KeyPair } from "../identity/index.ts";
import { fail, ok, type Result } from "../result.ts";
import { parseVersionVector, type SyncEntry, type VersionVector } from "./entries.ts";

export const PAIR_TYP = "charter-pair+jws";
export const PAIRED_TYP = "charter-paired+jws";
export const SYNC_TYP = "charter-sync+jws";
export const SYNC_REPLY_TYP = "charter-sync-reply+jws";
export const REVOKE_TYP = "charter-revoke+jws";

/** How far a request's time may be from the receiver's clock. */
export const FRESH_MS = 5 * 60_000;
/** The longest a receiver holds an exchange open waiting for something new. */
export const MAX_WAIT_MS = 25_000;
/** The most commands one exchange carries. */
export const MAX_EXCHANGE_ENTRIES = 500;
/** About the most bytes of commands one exchange carries. */
export const MAX_EXCHANGE_BYTES = 384 * 1024;

export interface ExchangeRequest {
  readonly from: string;
  readonly to: string;
  readonly at: number;
  readonly nonce: string;
  readonly tenant: string;
  readonly vv: VersionVector;
  /** Commands the receiver lacks (untrusted until each is verified). */
  readonly entries: readonly unknown[];
  /** How long the receiver may wait for something new before answering (ms). */
  readonly wait: number;
  /** Revocations the sender knows (statements signed by the person's root key). */
  readonly revoked: readonly string[];
}

export interface ExchangeReply {
  readonly from: string;
  readonly to: string;
  /** SHA-256 hex of the request's JWS. */
  readonly re: string;
  readonly vv: VersionVector;
  readonly entries: readonly unknown[];
  readonly more: boolean;
  readonly revoked: readonly string[];
  /** Why the receiver held back some of the sender's commands, or null. */
  readonly held: string | null;
}

export interface PairRequest {
  readonly device: string;
  readonly name: string;
  readonly code: string;
  readonly at: number;
}

export interface PairReply {
  readonly home: string;
  readonly device: string;
  readonly tenant: string;
  readonly person: string;
  readonly firstName: string;
  /** The person's identity key (its private JWK), sealed: base64url nonce and ciphertext. */
  readonly sealedKey: { readonly nonce: string; readonly ciphertext: string };
}

/** A row of the sync worker's `peers` table (sync.db), as the console reads it too. */
export interface PeerRow {
  did: string;
  name: string;
  role: "home" | "device";
  url: string | null;
  paired_at: number;
  revoked_at: number | null;
  last_contact: number | null;
  last_error: string | null;
  their_vv: string | null;
}

/** Signs `payload` as `key` with media type `typ`. */
export function signMessage(key: KeyPair, typ: string, payload: object): string {
  return signJws({ kid: key.did, typ }, JSON.stringify(payload), key.secretKey);
}

/** A message's JSON payload and signer, its signature and `typ` checked, or why not. */
export function openMessage(jws: unknown, typ: string): Result<{ signer: string; body: Record<string, unknown> }, string> {
  if (typeof jws !== "string") return fail("the body must be a compact JWS");
  const v = verifyJws(jws, { typ });
  if (!v.ok) return fail(v.error.message);
  let body: unknown;
  try {
    body = JSON.parse(v.value.payload.toString("utf8"));
  } catch {
    return fail("the payload is not JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return fail("the payload is not a JSON object");
  return ok({ signer: v.value.signer, body: body as Record<string, unknown> });
}

const str = (v: unknown, max: number): v is string => typeof v === "string" && v.length > 0 && v.length <= max;
const count = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const statements = (v: unknown): v is string[] => Array.isArray(v) && v.length <= 64 && v.every((s) => str(s, 4096));

/** An exchange request's payload from its (verified) JSON, or why it is not one. */
export function exchangeRequestOf(signer: string, b: Record<string, unknown>): Result<ExchangeRequest, string> {
  if (b.from !== signer) return fail("from must be the signer");
  if (!str(b.to, 200) || !count(b.at) || !str(b.nonce, 64) || !str(b.tenant, 63) || !count(b.wait)) return fail("to, at, nonce, tenant and wait are required");
  const vv = parseVersionVector(b.vv);
  if (vv === null) return fail("vv must map at most 64 did:keys to counts");
  if (!Array.isArray(b.entries) || b.entries.length > MAX_EXCHANGE_ENTRIES) return fail(`entries must be a list of at most ${MAX_EXCHANGE_ENTRIES}`);
  if (!statements(b.revoked ?? [])) return fail("revoked must be a list of at most 64 statements");
  return ok({ from: signer, to: b.to, at: b.at, nonce: b.nonce, tenant: b.tenant, vv, entries: b.entries, wait: Math.min(b.wait, MAX_WAIT_MS), revoked: (b.revoked ?? []) as string[] });
}

/** An exchange reply's payload from its (verified) JSON, or why it is not one. */
export function exchangeReplyOf(signer: string, b: Record<string, unknown>): Result<ExchangeReply, string> {
  if (b.from !== signer) return fail("from must be the signer");
  if (!str(b.to, 200) || !str(b.re, 64) || typeof b.more !== "boolean") return fail("to, re and more are required");
  const vv = parseVersionVector(b.vv);
  if (vv === null) return fail("vv must map at most 64 did:keys to counts");
  if (!Array.isArray(b.entries) || b.entries.length > MAX_EXCHANGE_ENTRIES) return fail(`entries must be a list of at most ${MAX_EXCHANGE_ENTRIES}`);
  if (!statements(b.revoked ?? [])) return fail("revoked must be a list of at most 64 statements");
  const held = b.held === null || b.held === undefined ? null : str(b.held, 2000) ? b.held : undefined;
  if (held === undefined) return fail("held must be text or null");
  return ok({ from: signer, to: b.to, re: b.re, vv, entries: b.entries, more: b.more, revoked: (b.revoked ?? []) as string[], held });
}

/** A new request's nonce. */
export const newNonce = (): string => randomBytes(16).toString("base64url");

/**
 * The key that seals the person's identity key for a new device: HKDF-SHA256 of the pairing code,
 * salted with both nodes' dids (so a code sealed for one device opens for no other).
 */
export function pairingKey(code: string, home: string, device: string): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", Buffer.from(normalCode(code)), Buffer.from(`${home}\n${device}`), Buffer.from("charter-pairing/1"), 32));
}

/** A pairing code as compared: upper case, without the dash or spaces. */
export function normalCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "");
}

/** The entries of a list as the receiver parses them (shared/devices/entries.ts `parseEntry`). */
export type WireEntries = readonly SyncEntry[];
