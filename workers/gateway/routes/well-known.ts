/**
 * @module `GET /.well-known/charter.json`: the node's identity (to verify receipts), its version, its
 * voters, and where it serves gRPC (`HOST:PORT`, null until a contract is installed). Public by
 * design: it holds nothing but public keys and addresses.
 */
import type { Hono } from "hono";

export function mountWellKnown(app: Hono, info: { readonly identity: string; readonly version: string; readonly grpc?: () => string | null; readonly voters?: readonly string[] | undefined }): void {
  app.get("/.well-known/charter.json", function wellKnown(c) {
    return c.json({ identity: info.identity, version: info.version, voters: info.voters ?? [info.identity], grpc: info.grpc?.() ?? null });
  });
}
