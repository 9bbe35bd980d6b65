/**
 * @module Signed shipping orders for the benchmarks: each a `Request` of the shipping example on a
 * subject of its own (`PREFIX-i`), signed round-robin by `signers`, ready to post.
 */
import { type KeyPair, signCommand } from "../../shared/identity/index.ts";
import { type Req, req } from "./http-load.ts";

/** `count` orders numbered from `from`, all issued now (sign them shortly before sending). */
export function signOrders(signers: readonly KeyPair[], prefix: string, from: number, count: number): Req[] {
  const issuedAt = new Date().toISOString();
  const out: Req[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const i = from + k;
    const jws = signCommand(signers[i % signers.length] as KeyPair, {
      tenant: "acme",
      namespace: "acme.shipping",
      action: "Request",
      subject: `${prefix}-${i}`,
      args: { customer: `Customer ${i}`, destination: "Lisbon", units: 1 + (i % 50), crates: 1 + (i % 5), credit_terms: i % 2 === 0 },
      idempotencyKey: `${prefix}-${i}`,
      issuedAt,
    });
    out[k] = req("/v1/acme/acme.shipping/actions/Request", jws);
  }
  return out;
}
