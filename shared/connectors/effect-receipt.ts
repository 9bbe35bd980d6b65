/**
 * @module Effect receipts: what the node signs once an effect of the outbox is done, as it signs a
 * command's receipt (`typ: charter-effect-receipt+jws`, `kid` = the node's did:key). It names the
 * effect (its journal id and idempotency key), the connector and effect that did it, the provider's
 * own id for what was done where the provider gives one (an SMTP server's queue id, a message id),
 * how many attempts it took, and when it was done.
 */
import { signJws, verifyJws, type JwsError } from "../identity/jws.ts";
import type { KeyPair } from "../identity/key-pair.ts";
import { fail, ok, type Result } from "../result.ts";

export const EFFECT_RECEIPT_TYP = "charter-effect-receipt+jws";

export interface EffectReceipt {
  /** `effect-<journal id>`. */
  readonly id: string;
  /** The idempotency key the effect was queued with. */
  readonly key: string | null;
  readonly connector: string;
  readonly effect: string;
  /** The provider's own id for what was done, where it gives one. */
  readonly providerId: string | null;
  readonly attempts: number;
  readonly doneAt: string;
  readonly node: string;
}

/** What the outbox reports of a done effect; the engine adds the rest and signs. */
export interface EffectDone {
  readonly id: number;
  readonly providerId: string | null;
}

export function signEffectReceipt(nodeKey: KeyPair, receipt: EffectReceipt): string {
  if (receipt.node !== nodeKey.did) throw new Error(`effect receipt names node ${receipt.node}, not the signing node ${nodeKey.did}`);
  return signJws({ kid: nodeKey.did, typ: EFFECT_RECEIPT_TYP }, JSON.stringify(receipt), nodeKey.secretKey);
}

/** Verifies an effect receipt (by `node` when given). */
export function verifyEffectReceipt(jws: string, options: { node?: string } = {}): Result<EffectReceipt, JwsError | { code: "bad-receipt"; message: string }> {
  const verified = verifyJws(jws, { typ: EFFECT_RECEIPT_TYP });
  if (!verified.ok) return verified;
  const { payload, signer } = verified.value;
  if (options.node !== undefined && signer !== options.node) return fail({ code: "bad-receipt", message: `signed by ${signer}, not by ${options.node}` });
  let receipt: unknown;
  try {
    receipt = JSON.parse(payload.toString("utf8"));
  } catch {
    return fail({ code: "bad-receipt", message: "the payload is not JSON" });
  }
  const r = receipt as Partial<EffectReceipt> | null;
  if (r === null || typeof r !== "object" || typeof r.id !== "string" || typeof r.connector !== "string" || typeof r.effect !== "string" || r.node !== signer) {
    return fail({ code: "bad-receipt", message: "the payload is not an effect receipt by its signer" });
  }
  return ok(r as EffectReceipt);
}
