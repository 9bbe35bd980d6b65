/**
 * @module The signatures webhook senders put on a delivery, checked in constant time against the
 * secret set in settings: GitHub's `X-Hub-Signature-256: sha256=<hex>` (checked by
 * `@octokit/webhooks`), and the WebSub-style `X-Hub-Signature: sha256=<hex>` that Mastodon sends —
 * both an HMAC-SHA256 of the raw body under the shared secret.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhooks } from "@octokit/webhooks";

/** Verifiers kept per secret (a node has a few secrets; one replaced leaves its verifier behind). */
const MAX_KEPT = 8;
const verifiers = new Map<string, Webhooks>();

/**
 * Whether `header` is GitHub's signature of `body` under `secret`. The body is the raw body as
 * text (the listener decodes it as strict UTF-8 first, so no two byte strings give one text).
 */
export async function verifyGithubSignature(secret: string, body: string, header: string | undefined): Promise<boolean> {
  // @octokit/webhooks throws for an empty secret, body or signature: none of them can verify.
  if (secret === "" || body === "" || header === undefined || header === "") return false;
  let webhooks = verifiers.get(secret);
  if (webhooks === undefined) {
    if (verifiers.size >= MAX_KEPT) verifiers.clear();
    webhooks = new Webhooks({ secret });
    verifiers.set(secret, webhooks);
  }
  return webhooks.verify(body, header);
}

const HUB_SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/** Whether `header` (`sha256=<hex>`) is the HMAC-SHA256 of `body` under `secret`, as Mastodon signs its webhooks. */
export function verifyHubSignature(secret: string, body: Uint8Array, header: string | undefined): boolean {
  if (secret === "" || header === undefined) return false;
  const hex = HUB_SIGNATURE.exec(header.trim())?.[1];
  if (hex === undefined) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  // Both are 32 bytes here, so the comparison's time says nothing about where they differ.
  return timingSafeEqual(Buffer.from(hex, "hex"), expected);
}

/** The `sha256=<hex>` signature of `body` under `secret` (what both senders put in their header). */
export function hubSignature(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
