/**
 * @module Compact JWS with EdDSA (Ed25519) on libsodium: the write path's signature format.
 * Parsing is strict — three segments, canonical unpadded base64url, a JSON-object header with
 * `alg` exactly `EdDSA`, a did:key `kid`, no `crit`, a 64-byte signature — and the key is always
 * the one the `kid` names: nothing in the header (`jwk`, `jku`, `x5c`) is trusted for it.
 */
import { base64urlDecode, base64urlEncode, isBase64url } from "./base64url.ts";
import { publicKeyFromDidKey } from "./did-key.ts";
import { fail, ok, type Result } from "../result.ts";
import { ed25519Sign, ed25519Verify, SIGNATURE_BYTES } from "./sodium.ts";

/** Why a compact JWS was rejected. */
export type JwsErrorCode =
  | "malformed-jws" //    not three segments, not base64url, header not a JSON object, signature not 64 bytes
  | "unsupported-alg" //  `alg` missing or not exactly `EdDSA`
  | "unsupported-crit" // a `crit` header: no extensions are understood, so RFC 7515 §4.1.11 says reject
  | "bad-kid" //          `kid` missing or not an Ed25519 did:key
  | "bad-typ" //          `typ` is not the expected one
  | "bad-signature"; //   the signature does not verify with the `kid`'s key

/** A JWS rejection. */
export interface JwsError {
  readonly code: JwsErrorCode;
  readonly message: string;
}

/** A verified protected header. */
export interface JwsHeader {
  readonly alg: "EdDSA";
  readonly kid: string;
  readonly typ?: string;
  readonly [name: string]: unknown;
}

/** What a signer puts in the header; `alg` is always added as `EdDSA`. */
export interface JwsHeaderInput {
  readonly kid: string;
  readonly typ?: string;
  readonly [name: string]: unknown;
}

/** A JWS whose signature verified. `signer` is the `kid` as a bare did:key (any `#fragment` removed). */
export interface VerifiedJws {
  readonly header: JwsHeader;
  readonly payload: Buffer;
  readonly signer: string;
}

/** Sign `payload` (a string is taken as UTF-8) with a libsodium secret key; returns the compact JWS. */
export function signJws(header: JwsHeaderInput, payload: Uint8Array | string, secretKey: Uint8Array): string {
  if (header.alg !== undefined && header.alg !== "EdDSA") throw new Error(`signJws signs EdDSA only, not ${String(header.alg)}`);
  const signingInput = `${base64urlEncode(JSON.stringify({ alg: "EdDSA", ...header }))}.${base64urlEncode(payload)}`;
  const signature = ed25519Sign(Buffer.from(signingInput, "latin1"), secretKey);
  return `${signingInput}.${base64urlEncode(signature)}`;
}

/**
 * Verify a compact JWS against the key its `kid` names; `typ`, when given, must match (RFC 7515
 * media type rules). `signedHere`: the JWS was signed a moment ago in this process, with a key it
 * holds (the node writing as the person), so the signature itself is not checked again; its form,
 * header and `kid` are, as for any other.
 */
export function verifyJws(compact: string, options: { readonly typ?: string; readonly signedHere?: boolean } = {}): Result<VerifiedJws, JwsError> {
  if (typeof compact !== "string") return malformed("a compact JWS must be a string");
  const dot1 = compact.indexOf(".");
  const dot2 = dot1 < 0 ? -1 : compact.indexOf(".", dot1 + 1);
  if (dot2 < 0 || compact.indexOf(".", dot2 + 1) >= 0) return malformed("a compact JWS has exactly three '.'-separated segments");
  if (dot1 === 0) return malformed("the protected header segment is empty");
  if (!isBase64url(compact, 0, dot1)) return malformed("the protected header is not unpadded base64url");
  if (!isBase64url(compact, dot1 + 1, dot2)) return malformed("the payload is not unpadded base64url");
  const signature = base64urlDecode(compact.slice(dot2 + 1));
  if (signature === null) return malformed("the signature is not unpadded base64url");
  if (signature.length !== SIGNATURE_BYTES) return malformed(`an EdDSA signature has ${SIGNATURE_BYTES} bytes, not ${signature.length}`);

  const header = parseHeader(Buffer.from(compact.slice(0, dot1), "base64url").toString("utf8"));
  if (!header.ok) return header;
  const { kid, typ } = header.value;
  if (options.typ !== undefined && (typeof typ !== "string" || normaliseTyp(typ) !== normaliseTyp(options.typ))) {
    return fail({ code: "bad-typ", message: `expected typ '${options.typ}', got ${typ === undefined ? "none" : JSON.stringify(typ)}` });
  }
  const signer = signerOf(kid);
  if (signer === null) return fail({ code: "bad-kid", message: "kid must be the signer's did:key (or did:key#fragment of the same key)" });
  const publicKey = publicKeyFromDidKey(signer);
  if (!publicKey.ok) return fail({ code: "bad-kid", message: `kid: ${publicKey.error.message}` });

  if (options.signedHere !== true && !ed25519Verify(signature, Buffer.from(compact.slice(0, dot2), "latin1"), publicKey.value)) {
    return fail({ code: "bad-signature", message: `the signature does not verify with the key of ${signer}` });
  }
  return ok({ header: header.value, payload: Buffer.from(compact.slice(dot1 + 1, dot2), "base64url"), signer });
}

function parseHeader(json: string): Result<JwsHeader, JwsError> {
  let header: unknown;
  try {
    header = JSON.parse(json);
  } catch {
    return malformed("the protected header is not JSON");
  }
  if (typeof header !== "object" || header === null || Array.isArray(header)) return malformed("the protected header is not a JSON object");
  const fields = header as Record<string, unknown>;
  if (fields.alg !== "EdDSA") return fail({ code: "unsupported-alg", message: `alg must be "EdDSA", not ${JSON.stringify(fields.alg) ?? "missing"}` });
  if (fields.crit !== undefined) return fail({ code: "unsupported-crit", message: "no critical header extensions are supported ('crit' must be absent)" });
  if (typeof fields.kid !== "string") return fail({ code: "bad-kid", message: "the protected header has no string kid" });
  if (fields.typ !== undefined && typeof fields.typ !== "string") return malformed("typ must be a string");
  return ok(header as JwsHeader);
}

/** The bare did:key of a `kid`: `did:key:X` or the DID URL `did:key:X#X` that DID libraries produce. */
function signerOf(kid: string): string | null {
  const hash = kid.indexOf("#");
  if (hash < 0) return kid;
  const did = kid.slice(0, hash);
  return did.startsWith("did:key:") && kid.slice(hash + 1) === did.slice("did:key:".length) ? did : null;
}

/** RFC 7515 §4.1.9: media types compare case-insensitively and `application/` may be left out. */
function normaliseTyp(typ: string): string {
  const lower = typ.toLowerCase();
  return lower.startsWith("application/") ? lower.slice("application/".length) : lower;
}

function malformed(message: string): Result<never, JwsError> {
  return fail({ code: "malformed-jws", message });
}
