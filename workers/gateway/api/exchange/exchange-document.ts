/**
 * @module A signed document between two persons' nodes: the current record of a subject of one of
 * the sender's contracts, as a compact JWS (EdDSA) signed with the sender's person key — header
 * `{alg: "EdDSA", kid: <from>, typ: "charter-document+jws"}`, payload
 *
 * ```json
 * {"typ": "charter-document", "id": "doc-…", "from": "did:key:…", "to": "did:key:…",
 *  "namespace": "std.invoices", "aggregate": "Invoice", "subject": "inv-1", "state": {…},
 *  "receipt": "<the receipt JWS of the command that last changed the record>", "sentAt": "…"}
 * ```
 *
 * Checking one is the same wherever it happens (the inbox before it stores anything, a read that
 * re-checks what is stored): the JWS verifies with the key its `kid` names, that key is the
 * document's `from`, the sender and recipient are the expected ones, and the receipt inside is a
 * receipt JWS signed by the node it names, about the same namespace and subject.
 */
import { isDidKey, type KeyPair, parseRfc3339, signJws, verifyJws, verifyReceipt } from "../../../../shared/identity/index.ts";
import { type Problem, problem, problemOf } from "../../../../shared/problem.ts";
import { fail, ok, type Result } from "../../../../shared/result.ts";

/** The JWS `typ` of a document, and the payload's own `typ`. */
export const DOCUMENT_JWS_TYP = "charter-document+jws";
export const DOCUMENT_TYP = "charter-document";

/** A document's id: what its sender made it (`doc-…`), 1 to 128 of `A-Z a-z 0-9 _ . -`. */
const ID = /^[A-Za-z0-9_.-]{1,128}$/;
/** Longest namespace, aggregate or subject a document carries. */
const NAME_MAX = 256;

/** A document's payload. */
export interface ExchangeDocument {
  readonly typ: typeof DOCUMENT_TYP;
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly namespace: string;
  readonly aggregate: string;
  readonly subject: string;
  readonly state: Record<string, unknown>;
  readonly receipt: string;
  readonly sentAt: string;
}

/** Who may have sent a document and whom it may be for, when it is checked. */
export interface DocumentParties {
  /** Whether `did` may be the sender (a pinned relationship; this person for a sent one). */
  readonly sender: (did: string) => boolean;
  /** Whether `did` may be the recipient (this person; the relationship's did for a sent one). */
  readonly recipient: (did: string) => boolean;
}

/** `document` signed with the sender's key (whose did is `document.from`). */
export function signDocument(document: ExchangeDocument, key: KeyPair): string {
  if (key.did !== document.from) throw new Error(`a document from ${document.from} cannot be signed by ${key.did}`);
  return signJws({ kid: key.did, typ: DOCUMENT_JWS_TYP }, JSON.stringify(document), key.secretKey);
}

/** Whether `id` is a document id. */
export function isDocumentId(id: string): boolean {
  return ID.test(id);
}

/**
 * The document a compact JWS carries, once every check passed; else the problem: the JWS's own
 * (`malformed-jws`, `bad-typ`, `bad-signature`, …), `403 unknown-sender` (the signer is not a
 * sender `parties` knows), `400 malformed-payload`, `403 wrong-recipient`, `400 bad-receipt`.
 */
export function checkDocument(jws: string, parties: DocumentParties): Result<ExchangeDocument, Problem> {
  const verified = verifyJws(jws, { typ: DOCUMENT_JWS_TYP });
  if (!verified.ok) return fail(problemOf(verified.error.code, `the document: ${verified.error.message}`));
  const signer = verified.value.signer;
  // The signature first: a caller without a key cannot learn whether a did is pinned. Nothing of
  // an unknown sender's document is looked at beyond its signature.
  if (!parties.sender(signer)) return fail(problem(403, "unknown-sender", `${signer} is not a relationship of this person: nothing is taken from it`));
  const payload = payloadOf(verified.value.payload);
  if (!payload.ok) return fail(problem(400, "malformed-payload", `the document: ${payload.error}`));
  const document = payload.value;
  if (document.from !== signer) return fail(problem(400, "bad-signature", `the document is from ${document.from} but signed by ${signer}`));
  if (!parties.recipient(document.to)) return fail(problem(403, "wrong-recipient", `the document is for ${document.to}, not for this node's person`));
  const receipt = verifyReceipt(document.receipt);
  if (!receipt.ok) return fail(problem(400, "bad-receipt", `the document's receipt: ${receipt.error.message}`));
  const r = receipt.value.receipt;
  if (r.namespace !== document.namespace || r.subject !== document.subject) {
    return fail(problem(400, "bad-receipt", `the document's receipt is about ${r.namespace} ${r.subject}, not ${document.namespace} ${document.subject}`));
  }
  return ok(document);
}

/** The payload as a document, or what is wrong with it. */
function payloadOf(bytes: Buffer): Result<ExchangeDocument, string> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return fail("the payload is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("the payload is not a JSON object");
  const d = value as Record<string, unknown>;
  if (d.typ !== DOCUMENT_TYP) return fail(`typ must be "${DOCUMENT_TYP}"`);
  if (typeof d.id !== "string" || !ID.test(d.id)) return fail("id must be 1 to 128 of A-Z a-z 0-9 _ . -");
  for (const name of ["from", "to"] as const) if (!isDidKey(d[name])) return fail(`${name} must be an Ed25519 did:key`);
  for (const name of ["namespace", "aggregate", "subject"] as const) {
    const text = d[name];
    if (typeof text !== "string" || text.length === 0 || text.length > NAME_MAX) return fail(`${name} must be a string of 1 to ${NAME_MAX} characters`);
  }
  if (typeof d.state !== "object" || d.state === null || Array.isArray(d.state)) return fail("state must be a JSON object");
  if (typeof d.receipt !== "string") return fail("receipt must be a receipt's compact JWS");
  if (typeof d.sentAt !== "string" || parseRfc3339(d.sentAt) === null) return fail("sentAt must be an RFC 3339 date-time");
  return ok(value as ExchangeDocument);
}
