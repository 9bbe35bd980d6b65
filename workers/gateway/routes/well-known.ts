/**
 * @module `GET /.well-known/charter.json`: the node's identity (to verify receipts), its version and
 * its voters. Public by design: it holds nothing but public keys.
 */
import type { Hono } from "hono";

export function mountWellKnown(app: Hono, info: { readonly identity: string; readonly version: string }): void {
  app.get("/.well-known/charter.json", function wellKnown(c) {
    return c.json({ identity: info.identity, version: info.version, voters: [info.identity] });
  });
}
