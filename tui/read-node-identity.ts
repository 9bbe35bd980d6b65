/**
 * @module The node's own did:key, read from the public half of `DATA/node-key.jwk` without
 * creating anything: the console shows which voter is this node even while it is stopped.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { base64urlDecode } from "../shared/identity/base64url.ts";
import { didKeyFromPublicKey } from "../shared/identity/did-key.ts";

/** The did:key of this data directory's node key, or null when there is none (yet). */
export function readNodeIdentity(dataDir: string): string | null {
  try {
    const jwk = JSON.parse(readFileSync(join(dataDir, "node-key.jwk"), "utf8")) as { x?: unknown };
    const x = typeof jwk.x === "string" ? base64urlDecode(jwk.x) : null;
    return x !== null && x.length === 32 ? didKeyFromPublicKey(x) : null;
  } catch {
    return null;
  }
}
