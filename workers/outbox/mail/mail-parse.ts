/**
 * @module One fetched message as the journal's mail entry: the raw bytes (at most what the reader
 * fetches of one message) parsed by mailparser's `simpleParser`, then every field cut to the bounds
 * std.comms keeps (shared/protocol/outbox.ts `MAIL_LIMITS`). An HTML-only message's text is the one
 * mailparser renders from its HTML; attachments are not kept. A message without a Message-ID gets
 * one made from the account, UIDVALIDITY and UID, so it is still recorded once.
 */
import { type AddressObject, simpleParser } from "mailparser";
import { MAIL_LIMITS, type MailEntry } from "../../../shared/protocol/outbox.ts";

/** What the reader fetched of one message. */
export interface FetchedMessage {
  readonly account: string;
  readonly uidvalidity: number;
  readonly uid: number;
  /** The message's bytes, possibly cut at the fetch bound. */
  readonly source: Buffer;
  /** The message's whole size on the server (larger than `source` when it was cut). */
  readonly size: number;
  /** The server's arrival time, when it gave one. */
  readonly internalDate: number | null;
  readonly seen: boolean;
}

/** The largest HTML rendered to text, in characters (past it the text is rendered from a cut). */
const MAX_HTML = 2 * 1024 * 1024;

/** Parses `message` into a mail entry; never throws for a malformed message (what cannot be read is left empty). */
export async function parseMessage(message: FetchedMessage, now: number): Promise<MailEntry> {
  const parsed = await simpleParser(message.source, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true, maxHtmlLengthToParse: MAX_HTML });
  const body = typeof parsed.text === "string" ? parsed.text : "";
  const text = clip(body.replace(/\r\n/g, "\n"), MAIL_LIMITS.text);
  const from = addresses(parsed.from)[0] ?? { address: "", name: "" };
  const references = (Array.isArray(parsed.references) ? parsed.references : typeof parsed.references === "string" ? parsed.references.split(/\s+/) : [])
    .map(normalizeMessageId)
    .filter((id) => id !== "" && id.length <= MAIL_LIMITS.messageId)
    .slice(-MAIL_LIMITS.references);
  const messageId = normalizeMessageId(parsed.messageId ?? "");
  const date = parsed.date instanceof Date && Number.isFinite(parsed.date.getTime()) && parsed.date.getTime() >= 0 ? parsed.date.getTime() : (message.internalDate ?? now);
  return {
    account: message.account,
    uidvalidity: message.uidvalidity,
    uid: message.uid,
    messageId: messageId !== "" && messageId.length <= MAIL_LIMITS.messageId ? messageId : `<${message.uidvalidity}.${message.uid}.${message.account}@imap.charter.invalid>`,
    inReplyTo: clipId(normalizeMessageId(parsed.inReplyTo ?? "")),
    references,
    from: { address: clip(from.address, MAIL_LIMITS.address), name: clip(from.name, MAIL_LIMITS.name) },
    replyTo: clip(addresses(parsed.replyTo)[0]?.address ?? "", MAIL_LIMITS.address),
    to: addresses(parsed.to).map((a) => clip(a.address, MAIL_LIMITS.address)).slice(0, MAIL_LIMITS.addresses),
    cc: addresses(parsed.cc).map((a) => clip(a.address, MAIL_LIMITS.address)).slice(0, MAIL_LIMITS.addresses),
    subject: clip(oneLine(parsed.subject ?? ""), MAIL_LIMITS.title),
    date,
    text,
    truncated: text.length < body.length || message.source.length < message.size,
    seen: message.seen,
  };
}

/** The entry of a message that could not be parsed: its place in the mailbox, and nothing of its content. */
export function unreadable(message: FetchedMessage, now: number): MailEntry {
  return {
    account: message.account,
    uidvalidity: message.uidvalidity,
    uid: message.uid,
    messageId: `<${message.uidvalidity}.${message.uid}.${message.account}@imap.charter.invalid>`,
    inReplyTo: "",
    references: [],
    from: { address: "", name: "" },
    replyTo: "",
    to: [],
    cc: [],
    subject: "(a message that could not be read)",
    date: message.internalDate ?? now,
    text: "",
    truncated: true,
    seen: message.seen,
  };
}

/** A Message-ID header's first `<…>` token (or the trimmed value when it has none), with no control characters. */
export function normalizeMessageId(raw: string): string {
  const value = raw.slice(0, 4 * MAIL_LIMITS.messageId).replace(/\p{Cc}/gu, "").trim();
  const token = /<[^<>\s]{1,498}>/.exec(value)?.[0];
  if (token !== undefined) return token;
  return /^[^<>\s]{1,498}$/.test(value) ? `<${value}>` : "";
}

/** The addresses of one or more parsed address headers, groups flattened (at most 2 × the bound looked at). */
function addresses(header: AddressObject | AddressObject[] | undefined): { address: string; name: string }[] {
  const out: { address: string; name: string }[] = [];
  for (const object of header === undefined ? [] : Array.isArray(header) ? header : [header]) {
    for (const entry of object.value) {
      // A group's members are one level down; groups do not nest.
      for (const one of entry.group ?? [entry]) {
        if (typeof one.address === "string" && one.address !== "") out.push({ address: oneLine(one.address).toLowerCase(), name: oneLine(one.name ?? "") });
        if (out.length >= 2 * MAIL_LIMITS.addresses) return out;
      }
    }
  }
  return out;
}

function clipId(id: string): string {
  return id.length <= MAIL_LIMITS.messageId ? id : "";
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, " ").replace(/\p{Cc}/gu, "").trim();
}

/** `text` cut to at most `max` UTF-16 units (so at most `max` characters), never inside a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
