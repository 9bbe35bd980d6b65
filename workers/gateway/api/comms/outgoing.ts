/**
 * @module What the person sends, before it is sent: the exact message (account, sender, recipients,
 * subject, text, HTML, In-Reply-To and References), as a reply to a thread or a new email, with the
 * account's signature appended. Pure: addresses are parsed with nodemailer's `addressparser` and
 * bounded; every wrong field is named at once. The Message-ID the outbox will give it is known
 * here already: it is made from the effect's idempotency key exactly as the email connector makes
 * it, so the sent message is recorded under it and replies to it thread.
 */
import addressparser from "nodemailer/lib/addressparser";
import { MAIL_LIMITS } from "../../../../shared/protocol/outbox.ts";
import type { FieldError } from "../connectors/account-fields.ts";
import type { MessageView } from "./comms-records.ts";

/** A message to send, exactly as an approval keeps it and the outbox sends it. */
export interface OutgoingMail {
  readonly account: string;
  readonly from: string;
  readonly fromName: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
  readonly subject: string;
  readonly text: string;
  readonly html: string | null;
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  /** The thread it replies in, or null for a new one. */
  readonly thread: string | null;
}

/** The most recipients of one message (To, Cc and Bcc together), the longest text and HTML taken. */
export const MAX_RECIPIENTS = 50;
export const MAX_TEXT = 30_000;
export const MAX_HTML = 30_000;
export const MAX_SIGNATURE = 2000;

const ADDRESS = /^[^\s@<>(),;:"[\]\\]{1,64}@[A-Za-z0-9.-]{1,253}$/;

/** `value` (a list of addresses, each `a@b` or `Name <a@b>`) as lower-cased bare addresses, or the errors naming each bad one. */
export function addressList(value: unknown, field: string, errors: FieldError[], required: boolean): string[] {
  if (value === undefined || value === null) {
    if (required) errors.push({ pointer: `#/${field}`, detail: "a list of at least one email address" });
    return [];
  }
  if (!Array.isArray(value) || value.length > MAX_RECIPIENTS) {
    errors.push({ pointer: `#/${field}`, detail: `a list of at most ${MAX_RECIPIENTS} email addresses` });
    return [];
  }
  if (required && value.length === 0) errors.push({ pointer: `#/${field}`, detail: "a list of at least one email address" });
  const out: string[] = [];
  value.forEach((item, i) => {
    const one = typeof item === "string" && item.length <= MAIL_LIMITS.address + MAIL_LIMITS.name + 10 ? singleAddress(item) : null;
    if (one === null) errors.push({ pointer: `#/${field}/${i}`, detail: "an email address (a@example.com or Name <a@example.com>)" });
    else if (!out.includes(one)) out.push(one);
  });
  return out;
}

/** The one address `text` holds, lower-cased, or null (none, several, a group, or not an address). */
function singleAddress(text: string): string | null {
  if (/[\r\n\0]/.test(text)) return null;
  const parsed = addressparser(text, { flatten: true });
  if (parsed.length !== 1) return null;
  const address = (parsed[0]?.address ?? "").toLowerCase();
  return address.length <= MAIL_LIMITS.address && ADDRESS.test(address) ? address : null;
}

/** A reply's subject: `Re: ` and the subject, unless it is a reply already. */
export function replySubject(subject: string): string {
  return /^\s*re:/i.test(subject) ? subject : `Re: ${subject}`.slice(0, MAIL_LIMITS.title);
}

/**
 * Whom a reply to `last` (the thread's newest message) goes to: a received message's Reply-To or
 * sender; a sent one's own recipients again (following up on what the person sent).
 */
export function replyRecipients(last: MessageView): { to: string[]; cc: string[] } {
  if (last.direction === "received") return { to: [last.replyTo ?? last.from.address].filter((a) => a !== ""), cc: [] };
  return { to: [...last.to], cc: [...last.cc] };
}

/** A reply's References: the parent's, then the parent itself, the newest MAIL_LIMITS.references. */
export function replyReferences(last: MessageView): string[] {
  return [...last.references.filter((r) => r !== last.messageId), last.messageId].slice(-MAIL_LIMITS.references);
}

/** The text and HTML with the account's signature appended (the conventional `-- ` line before it); no signature: as they are. */
export function withSignature(text: string, html: string | null, signature: string): { text: string; html: string | null } {
  if (signature.trim() === "") return { text, html };
  return { text: `${text}\n\n-- \n${signature}`, html: html === null ? null : `${html}<br><br>-- <br>${escapeHtml(signature).replace(/\n/g, "<br>")}` };
}

/** The one-line summary an approval of `mail` shows. */
export function mailSummary(mail: OutgoingMail): string {
  const to = [...mail.to, ...mail.cc, ...mail.bcc];
  const shown = to.slice(0, 3).join(", ") + (to.length > 3 ? ` and ${to.length - 3} more` : "");
  const text = `Send email from ${mail.from} to ${shown}: "${mail.subject.replace(/\s+/g, " ")}"`;
  return text.length <= 500 ? text : `${text.slice(0, 498)}…"`;
}

/** An approval's payload read back as the message it keeps, or null when it is not one. */
export function mailOfPayload(payload: string): OutgoingMail | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const m = value as Record<string, unknown>;
  const strings = (v: unknown) => Array.isArray(v) && v.length <= MAX_RECIPIENTS && v.every((x) => typeof x === "string");
  const text = (v: unknown) => typeof v === "string";
  const ok =
    text(m.account) && text(m.from) && text(m.fromName) && strings(m.to) && strings(m.cc) && strings(m.bcc) && text(m.subject) && text(m.text) &&
    (m.html === null || text(m.html)) && (m.inReplyTo === null || text(m.inReplyTo)) && Array.isArray(m.references) && (m.references as unknown[]).every(text) && (m.thread === null || text(m.thread));
  return ok ? (value as OutgoingMail) : null;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
