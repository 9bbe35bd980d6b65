/**
 * @module The engine's side of a done effect: the outbox reports which of its claimed `effect`
 * entries are done (and the provider's id for each); the engine signs each one's receipt with the
 * node key and marks them done with their receipts, all in one transaction, so an effect is either
 * still pending or done with its receipt — never done without one.
 */
import { signEffectReceipt, type EffectDone } from "../../shared/connectors/effect-receipt.ts";
import type { KeyPair } from "../../shared/identity/index.ts";
import type { Journal } from "../../shared/journal.ts";
import { EFFECT_TOPIC, effectPayload } from "../../shared/protocol/outbox.ts";

/** The receipts of the entries completed, by id; an entry the claimant no longer holds is left out. */
export function completeEffects(journal: Journal, nodeKey: KeyPair, claimant: string, done: readonly EffectDone[], now = Date.now()): { id: number; receipt: string }[] {
  const signed: { id: number; result: { receipt: string; providerId: string | null } }[] = [];
  for (const d of done) {
    const entry = journal.get(EFFECT_TOPIC, d.id);
    if (entry === null || entry.state !== "claimed") continue;
    const payload = effectPayload(entry.payload);
    const receipt = signEffectReceipt(nodeKey, {
      id: `effect-${d.id}`,
      key: entry.key,
      connector: typeof payload === "string" ? "?" : payload.connector,
      effect: typeof payload === "string" ? "?" : payload.effect,
      providerId: typeof d.providerId === "string" ? d.providerId.slice(0, 500) : null,
      attempts: entry.attempts,
      doneAt: new Date(now).toISOString(),
      node: nodeKey.did,
    });
    signed.push({ id: d.id, result: { receipt, providerId: d.providerId } });
  }
  const completed = new Set(journal.complete(claimant, signed));
  return signed.filter((s) => completed.has(s.id)).map((s) => ({ id: s.id, receipt: s.result.receipt }));
}
