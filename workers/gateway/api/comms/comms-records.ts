/**
 * @module The person's email as records of `std.comms` in the personal tenant
 * (contracts/std/node/comms.charter.md): how records are named, read and shown. Names are digests
 * of what identifies a record (an account and a Message-ID, a lower-cased address), so recording
 * the same message or allowing the same address twice lands on one record.
 */
import { createHash } from "node:crypto";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";

export const COMMS = "std.comms";
/** The one settings record's subject. */
export const SETTINGS = "settings";

/** The first 32 hex digits of the SHA-256 of `parts`, joined by a line feed. */
function digest(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 32);
}

/** The message of `account` with Message-ID `messageId`. */
export function messageSubject(account: string, messageId: string): string {
  return `msg-${digest(account, messageId)}`;
}

/** The thread a message starts when it joins none. */
export function threadSubject(account: string, messageId: string): string {
  return `thr-${digest(account, messageId)}`;
}

/** The reference to a Message-ID not recorded yet. */
export function referenceSubject(account: string, messageId: string): string {
  return `ref-${digest(account, messageId)}`;
}

/** An address of the allow-list. */
export function senderSubject(address: string): string {
  return `snd-${digest(address.toLowerCase())}`;
}

export function mailboxSubject(account: string): string {
  return `mbx-${account}`;
}

export function signatureSubject(account: string): string {
  return `sig-${account}`;
}

/** A thread as `/api/comms` answers it. */
export interface ThreadView {
  readonly id: string;
  readonly account: string;
  readonly subject: string;
  readonly startedAt: string | null;
  readonly lastAt: string | null;
  readonly lastFrom: { readonly address: string; readonly name: string };
  readonly snippet: string;
  readonly held: boolean;
  readonly starred: boolean;
}

/** A message as `/api/comms` answers it. */
export interface MessageView {
  readonly id: string;
  readonly account: string;
  readonly messageId: string;
  readonly thread: string;
  readonly direction: "received" | "sent";
  readonly from: { readonly address: string; readonly name: string };
  readonly replyTo: string | null;
  readonly to: string[];
  readonly cc: string[];
  readonly subject: string;
  readonly date: string | null;
  readonly text: string;
  readonly truncated: boolean;
  readonly snippet: string;
  readonly inReplyTo: string | null;
  readonly references: string[];
  readonly seen: boolean;
  readonly held: boolean;
  /** A sent message's outbox effect (`GET /api/outbox/{effect}` says whether it went). */
  readonly effect: string | null;
}

/** A row of `Threads`, or a Thread record's state with its subject, as the view. */
export function threadView(id: string, row: Record<string, unknown>): ThreadView {
  return {
    id,
    account: String(row.account ?? ""),
    subject: String(row.title ?? ""),
    startedAt: timeOf(row.first_at),
    lastAt: timeOf(row.last_at),
    lastFrom: { address: String(row.last_from ?? ""), name: String(row.last_name ?? "") },
    snippet: String(row.snippet ?? ""),
    held: row.held === true,
    starred: row.starred === true,
  };
}

/** A row of `ThreadMessages`, or a Message record's state with its subject, as the view. */
export function messageView(id: string, row: Record<string, unknown>): MessageView {
  const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  return {
    id,
    account: String(row.account ?? ""),
    messageId: String(row.message_id ?? ""),
    thread: String(row.thread ?? ""),
    direction: row.direction === "Sent" ? "sent" : "received",
    from: { address: String(row.from_address ?? ""), name: String(row.from_name ?? "") },
    replyTo: text(row.reply_to),
    to: list(row.to),
    cc: list(row.cc),
    subject: String(row.title ?? ""),
    date: timeOf(row.date),
    text: String(row.text ?? ""),
    truncated: row.truncated === true,
    snippet: String(row.snippet ?? ""),
    inReplyTo: text(row.in_reply_to),
    references: list(row.references),
    seen: row.seen === true,
    held: row.held === true,
    effect: text(row.effect),
  };
}

/** The thread `id`; `404` when there is none. */
export function readThread(reader: PersonReader, id: string): ThreadView {
  const found = /^thr-[0-9a-f]{32}$/.test(id) ? reader.record(undefined, COMMS, "Thread", id) : null;
  if (found === null) throw new HttpProblem(problem(404, "not-found", `no thread '${id.slice(0, 128)}'`));
  return threadView(id, found.state);
}

/** The message of `subject`, or null. */
export function findMessage(reader: PersonReader, subject: string): MessageView | null {
  const found = reader.record(undefined, COMMS, "Message", subject);
  return found === null ? null : messageView(subject, found.state);
}

/** Whether `address` is on the allow-list. */
export function isAllowed(reader: PersonReader, address: string): boolean {
  return address !== "" && reader.record(undefined, COMMS, "Sender", senderSubject(address))?.state.allowed === true;
}

/** A short one-line preview of a text. */
export function snippetOf(text: string, max = 200): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/** `read`'s answer, or `fallback` where the records cannot say yet (before set-up, or std.comms not installed). */
export function quietly<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof HttpProblem && (error.problem.status === 404 || error.problem.status === 409)) return fallback;
    throw error;
  }
}

/** A `context.time` or date (ms) as RFC 3339; 0 (never set) as null. */
function timeOf(value: unknown): string | null {
  const ms = Number(value);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}
