/**
 * @module Receipts signed by the node (`typ: charter-receipt+jws`, `kid` = the node's did:key).
 * The JWS payload is the receipt object exactly as wire.md shows it (the value of `receipt`, in
 * the order the engine builds it), so `{receipt, jws}` carry the same content.
 */
import type { Reason, RefusalCode } from "../../contracts/refusals.ts";
import { signJws, verifyJws, type JwsError, type JwsHeader } from "./jws.ts";
import type { KeyPair } from "./key-pair.ts";
import { fail, ok, type Result } from "../result.ts";

/** The JWS `typ` of a receipt. */
export const RECEIPT_TYP = "charter-receipt+jws";

/** Why a refused command was refused (contracts/refusals.ts holds the one definition). */
export type RefusalReason = Reason;
export type { RefusalCode };

/** A receipt, accepted or refused. */
export interface Receipt {
  readonly id: string;
  /** SHA-256 hex of the command's compact JWS. */
  readonly command: string;
  readonly seq: number;
  readonly tenant: string;
  readonly namespace: string;
  readonly action: string;
  readonly subject: string;
  readonly signer: string;
  readonly artifact: string;
  readonly outcome: "accepted" | "refused";
  readonly reason: RefusalReason | null;
  readonly state: Record<string, unknown> | null;
  readonly committedAt: string;
  /** The node's did:key; equals the JWS `kid`. */
  readonly node: string;
}

/** Why a receipt JWS was rejected: any JWS failure, or a payload that is not a receipt by this node. */
export type ReceiptError = JwsError | { readonly code: "bad-receipt"; readonly message: string };

/**
 * Sign `receipt` with the node key; `json`, when the caller already has it, is `JSON.stringify(receipt)`
 * (the write path serialises each receipt once, for history and for its signature). A receipt naming
 * another node is a bug in the caller, so it throws.
 */
export function signReceipt(nodeKey: KeyPair, receipt: Receipt, json: string = JSON.stringify(receipt)): string {
  if (receipt.node !== nodeKey.did) throw new Error(`receipt.node ${receipt.node} is not the signing node ${nodeKey.did}`);
  return signJws({ kid: nodeKey.did, typ: RECEIPT_TYP }, json, nodeKey.secretKey);
}

/** The receipt JSON a receipt JWS signed by this node carries (its payload, exactly as signed); no check is made. */
export function receiptJsonOf(jws: string): string {
  const dot1 = jws.indexOf(".");
  return Buffer.from(jws.slice(dot1 + 1, jws.indexOf(".", dot1 + 1)), "base64url").toString("utf8");
}

/** The receipt a receipt JWS signed by this node carries; no check is made (use verifyReceipt for one from elsewhere). */
export function receiptOf(jws: string): Receipt {
  return JSON.parse(receiptJsonOf(jws)) as Receipt;
}

/** Verify a receipt JWS; with `node`, it must be signed by that node (from `/.well-known/charter.json`). */
export function verifyReceipt(compact: string, options: { readonly node?: string } = {}): Result<{ readonly header: JwsHeader; readonly receipt: Receipt }, ReceiptError> {
  const verified = verifyJws(compact, { typ: RECEIPT_TYP });
  if (!verified.ok) return verified;
  const { header, payload, signer } = verified.value;
  if (options.node !== undefined && signer !== options.node) return badReceipt(`the receipt is signed by ${signer}, not by the node ${options.node}`);
  let receipt: unknown;
  try {
    receipt = JSON.parse(payload.toString("utf8"));
  } catch {
    return badReceipt("the receipt payload is not JSON");
  }
  if (typeof receipt !== "object" || receipt === null || Array.isArray(receipt)) return badReceipt("the receipt payload is not a JSON object");
  const fields = receipt as Record<string, unknown>;
  for (const name of ["id", "command", "tenant", "namespace", "action", "subject", "signer", "artifact", "committedAt", "node"]) {
    if (typeof fields[name] !== "string") return badReceipt(`the receipt's ${name} is not a string`);
  }
  if (typeof fields.seq !== "number") return badReceipt("the receipt's seq is not a number");
  if (fields.outcome !== "accepted" && fields.outcome !== "refused") return badReceipt("the receipt's outcome is neither accepted nor refused");
  if (fields.node !== signer) return badReceipt(`the receipt names node ${String(fields.node)} but is signed by ${signer}`);
  return ok({ header, receipt: receipt as Receipt });
}

function badReceipt(message: string): Result<never, ReceiptError> {
  return fail({ code: "bad-receipt", message });
}
