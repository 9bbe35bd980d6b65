/**
 * @module The exchange's node-to-node route, on the peer app (peer/peer-app.ts): another person's
 * node delivers a signed document.
 *
 * ```
 * POST /exchange/inbox {"jws": "<compact JWS of a charter-document>"}   (application/json)
 *   → 201 {id, status: "received"} · 200 {id, status: "duplicate"}
 * ```
 *
 * No session and no `Origin`: the document's signature is the caller's credential, and its signer
 * must be a relationship the person pinned (`403 unknown-sender`, nothing stored). Its other
 * refusals: the JWS's own (`400 malformed-jws`, `bad-typ`, `bad-signature`, …), `400
 * malformed-payload`, `403 wrong-recipient`, `400 bad-receipt`, `409 idempotency-conflict`; the
 * body is bounded by the node's body limit (`413`).
 */
import type { Hono } from "hono";
import type { PeerRoutes } from "../peer/peer-app.ts";
import { jsonBody } from "../request-body.ts";
import { badField } from "../routes/data-input.ts";
import type { Exchange } from "./exchange.ts";

/** The inbox route, for the peer app's list of families. */
export function exchangeInbox(exchange: Pick<Exchange, "receive">): PeerRoutes {
  return (app: Hono) => {
    app.post("/exchange/inbox", async (c) => {
      const body = await jsonBody(c, ["jws"]);
      if (typeof body.jws !== "string" || body.jws.length === 0) throw badField("jws", "jws is the document's compact JWS");
      const received = exchange.receive(body.jws);
      return c.json({ id: received.id, status: received.status === 201 ? "received" : "duplicate" }, received.status);
    });
  };
}
