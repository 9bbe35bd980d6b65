/**
 * @module A software WebAuthn authenticator and browser in one, for tests: ES256 (P-256) keys from
 * node:crypto, attestation "none", the attestation object and COSE key encoded in CBOR here. It
 * takes the options JSON a node answers and an origin, and answers the `RegistrationResponseJSON` /
 * `AuthenticationResponseJSON` a browser would post back. Unlike a browser it does not check that
 * the relying party id fits the origin, so a test can present a wrong origin; knobs make the other
 * faults a test needs (a counter that does not grow, tampered client data, an unknown credential).
 */
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";

/**
 * Faults to put into a registration. (Tampered client data is an assertion's fault only: with
 * attestation "none" nothing signs a registration's client data.)
 */
export interface CreateKnobs {
  /** Report no user verification (no biometric, no PIN). */
  readonly noUserVerification?: boolean;
}

/** Faults to put into an assertion. */
export interface GetKnobs {
  /** Present the last assertion's counter again, as a cloned authenticator would. */
  readonly staleCounter?: boolean;
  /** Sign with a fresh credential the node never registered. */
  readonly unknownCredential?: boolean;
  /** Change the client data after signing (the signature covers its hash). */
  readonly tamperClientData?: boolean;
  /** Sign with this credential rather than the newest one for the relying party. */
  readonly credentialId?: string;
  /** Report no user verification. */
  readonly noUserVerification?: boolean;
}

interface Credential {
  readonly id: Buffer;
  readonly privateKey: KeyObject;
  readonly rpId: string;
  readonly userHandle: string;
  counter: number;
}

const ES256 = -7;
const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

/** One authenticator holding any number of passkeys. */
export class SoftAuthenticator {
  readonly #credentials: Credential[] = [];
  readonly #zeroCounter: boolean;

  /** `zeroCounter`: never count signatures (always 0), as synced passkeys do. */
  constructor(options: { zeroCounter?: boolean } = {}) {
    this.#zeroCounter = options.zeroCounter ?? false;
  }

  /** The credential ids this authenticator holds, oldest first. */
  get credentialIds(): string[] {
    return this.#credentials.map((c) => c.id.toString("base64url"));
  }

  /** `navigator.credentials.create()` at `origin`: a new passkey for the options' relying party. */
  create(options: PublicKeyCredentialCreationOptionsJSON, origin: string, knobs: CreateKnobs = {}): RegistrationResponseJSON {
    if (!options.pubKeyCredParams.some((p) => p.alg === ES256)) throw new Error("NotSupportedError: ES256 not offered");
    const rpId = options.rp.id ?? new URL(origin).hostname;
    const excluded = new Set((options.excludeCredentials ?? []).map((c) => c.id));
    if (this.#credentials.some((c) => c.rpId === rpId && excluded.has(c.id.toString("base64url")))) throw new Error("InvalidStateError: already registered");
    const credential = newCredential(rpId, options.user.id);
    this.#credentials.push(credential);
    const jwk = credential.privateKey.export({ format: "jwk" });
    const coseKey = cborMap([
      [1, 2], // kty: EC2
      [3, ES256], // alg
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x as string, "base64url")],
      [-3, Buffer.from(jwk.y as string, "base64url")],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const flags = FLAG_UP | FLAG_AT | (knobs.noUserVerification ? 0 : FLAG_UV);
    const authData = Buffer.concat([authDataHead(rpId, flags, 0), Buffer.alloc(16), idLength, credential.id, coseKey]);
    const attestationObject = cborMap([
      ["fmt", "none"],
      ["attStmt", cborMap([])],
      ["authData", authData],
    ]);
    const clientData = clientDataJSON("webauthn.create", options.challenge, origin, false);
    const publicKey = publicSpki(credential.privateKey);
    const id = credential.id.toString("base64url");
    return {
      id,
      rawId: id,
      type: "public-key",
      authenticatorAttachment: "platform",
      clientExtensionResults: { credProps: { rk: true } },
      response: {
        clientDataJSON: clientData.toString("base64url"),
        attestationObject: attestationObject.toString("base64url"),
        authenticatorData: authData.toString("base64url"),
        publicKey: publicKey.toString("base64url"),
        publicKeyAlgorithm: ES256,
        transports: ["internal", "hybrid"],
      },
    };
  }

  /** `navigator.credentials.get()` at `origin`: an assertion by one of this authenticator's passkeys. */
  get(options: PublicKeyCredentialRequestOptionsJSON, origin: string, knobs: GetKnobs = {}): AuthenticationResponseJSON {
    const rpId = options.rpId ?? new URL(origin).hostname;
    const credential = knobs.unknownCredential ? newCredential(rpId, Buffer.from("someone else").toString("base64url")) : this.#pick(rpId, options, knobs.credentialId);
    if (!this.#zeroCounter && !knobs.staleCounter) credential.counter++;
    const counter = this.#zeroCounter ? 0 : credential.counter;
    const authData = authDataHead(rpId, FLAG_UP | (knobs.noUserVerification ? 0 : FLAG_UV), counter);
    const clientData = clientDataJSON("webauthn.get", options.challenge, origin, false);
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientData)]), credential.privateKey);
    const sent = knobs.tamperClientData ? clientDataJSON("webauthn.get", options.challenge, origin, true) : clientData;
    const id = credential.id.toString("base64url");
    return {
      id,
      rawId: id,
      type: "public-key",
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
      response: {
        clientDataJSON: sent.toString("base64url"),
        authenticatorData: authData.toString("base64url"),
        signature: signature.toString("base64url"),
        userHandle: credential.userHandle,
      },
    };
  }

  #pick(rpId: string, options: PublicKeyCredentialRequestOptionsJSON, wanted: string | undefined): Credential {
    const allowed = new Set((options.allowCredentials ?? []).map((c) => c.id));
    const fits = (c: Credential) =>
      c.rpId === rpId && (allowed.size === 0 || allowed.has(c.id.toString("base64url"))) && (wanted === undefined || c.id.toString("base64url") === wanted);
    const found = this.#credentials.findLast(fits);
    if (found === undefined) throw new Error("NotAllowedError: no passkey for this relying party");
    return found;
  }
}

function newCredential(rpId: string, userHandle: string): Credential {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { id: randomBytes(16), privateKey, rpId, userHandle, counter: 0 };
}

/** The credential's public key as a browser gives it (`getPublicKey()`): SPKI, DER. */
function publicSpki(privateKey: KeyObject): Buffer {
  return createPublicKey(privateKey).export({ format: "der", type: "spki" });
}

/** rpIdHash ‖ flags ‖ signCount (big-endian). */
function authDataHead(rpId: string, flags: number, counter: number): Buffer {
  const tail = Buffer.alloc(5);
  tail.writeUInt8(flags, 0);
  tail.writeUInt32BE(counter, 1);
  return Buffer.concat([sha256(Buffer.from(rpId)), tail]);
}

/** The client data a browser makes; `tampered` adds a member, as a meddling script would. */
function clientDataJSON(type: string, challenge: string, origin: string, tampered: boolean): Buffer {
  const data: Record<string, unknown> = { type, challenge, origin, crossOrigin: false };
  if (tampered) data.other_keys_can_be_added_here = "tampered";
  return Buffer.from(JSON.stringify(data));
}

function sha256(data: Buffer): Buffer {
  return createHash("sha256").update(data).digest();
}

// --- the CBOR this needs: unsigned and negative integers, byte and text strings, maps ----------

type CborValue = number | string | Buffer;

function cborHead(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) {
    const b = Buffer.alloc(3);
    b.writeUInt8((major << 5) | 25, 0);
    b.writeUInt16BE(n, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b.writeUInt8((major << 5) | 26, 0);
  b.writeUInt32BE(n, 1);
  return b;
}

function cbor(value: CborValue): Buffer {
  if (typeof value === "number") return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  return Buffer.concat([cborHead(2, value.length), value]);
}

function cborMap(entries: readonly (readonly [number | string, CborValue])[]): Buffer {
  return Buffer.concat([cborHead(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}
