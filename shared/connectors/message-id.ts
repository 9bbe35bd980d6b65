/**
 * @module The Message-ID of an email the outbox sends: derived from the effect's idempotency key,
 * so a message sent again after a crash is the same message, and the gateway can record a message
 * under the id it will carry before the outbox has sent it.
 */
import { createHash } from "node:crypto";

/** The Message-ID of the message sent for idempotency key `key` from the address `from` (`a@b` or `Name <a@b>`). */
export function messageIdFor(key: string, from: string): string {
  const domain = from.slice(from.lastIndexOf("@") + 1).replace(/[>\s]/g, "") || "charter.invalid";
  return `<charter.${createHash("sha256").update(key).digest("hex").slice(0, 32)}@${domain}>`;
}
