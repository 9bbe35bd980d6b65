/**
 * @module The person's email, records of `std.comms` in the personal tenant (comms/*):
 *
 * ```
 * GET  /api/comms/list?filter=inbox|starred|held&account=&after=&limit= → {items: [thread + {messages, unread}], next}   (newest first)
 * GET  /api/comms/counts                    → {unread, held, starred, accounts: {"<id>": {unread, held, starred}}}
 * GET  /api/comms/people?limit=             → {items: [{address, name, received, sent, lastAt, allowed}]}
 * GET  /api/comms/threads/{id}?after=&limit= → the thread, {messages: [message…] (oldest first), next}
 * POST /api/comms/threads/{id}/reply {text, html?} → 202 {approval} | 202 {effect, message}
 * POST /api/comms/threads/{id}/star {starred}  → the thread, {receipt, jws}
 * POST /api/comms/threads/{id}/seen {seen}     → the thread, {changed}
 * POST /api/comms/threads/{id}/allow {}        → the thread, {allowed: [address…], released}
 * POST /api/comms/compose {account, to, cc?, bcc?, subject, text, html?} → 202 {approval} | 202 {effect, message}
 * POST /api/comms/translate {text, to}      → {text, to, model}
 * GET/PUT /api/comms/settings               → {ask, accounts: [{id, from, imap, reading}]}; PUT {ask?, reading?: {"<id>": boolean}}
 * GET/PUT /api/comms/signatures             → {signatures: {"<id>": text}}; PUT {signatures: {"<id>": text | null}}
 * ```
 *
 * Sending is comms/mail-sender.ts's: an approval while the settings say ask (the default), else
 * queued at once. Turning ask off needs a step-up (it lets mail go out unasked); nothing else here
 * does. Every field is checked and every wrong one named (`400`, `errors: [{pointer, detail}]`); an
 * unknown thread or account is `404`.
 */
import type { Context, Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import type { Connections } from "../assistant-host/connections.ts";
import type { NodeSettings } from "../assistant-host/node-settings.ts";
import { allowAddress } from "../comms/allow-list.ts";
import { COMMS, isAllowed, messageView, quietly, readThread, senderSubject, SETTINGS, signatureSubject, threadView } from "../comms/comms-records.ts";
import type { Comms } from "../comms/comms.ts";
import { readCommsSettings, readSignatures, signatureOf } from "../comms/comms-settings.ts";
import { addressList, MAX_HTML, MAX_RECIPIENTS, MAX_SIGNATURE, MAX_TEXT, type OutgoingMail, replyRecipients, replyReferences, replySubject, withSignature } from "../comms/outgoing.ts";
import { MAX_LANGUAGE, MAX_TRANSLATE_TEXT, translate } from "../comms/translate.ts";
import type { FieldError } from "../connectors/account-fields.ts";
import { ACCOUNT_ID, type ConnectorAccounts } from "../connectors/connector-accounts.ts";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { signedWrite } from "../personal/signed-write.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";
import { badParameter } from "./data-input.ts";

export interface CommsRouteDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly comms: Comms;
  readonly connectorAccounts: Pick<ConnectorAccounts, "list" | "get">;
  readonly account: Pick<AccountCeremonies, "context">;
  /** The assistant's models, for translation; absent: translation is `503`. */
  readonly settings?: NodeSettings;
  readonly connections?: Connections;
}

const FILTERS = { inbox: { held: false, starred: false }, starred: { held: false, starred: true }, held: { held: true, starred: false } } as const;
/** The most messages of a thread marked seen, or looked at for senders to allow, at once. */
const THREAD_SCAN = 500;
/** The most senders one allow puts on the list. */
const MAX_ALLOW = 20;
const SUBJECT_MAX = 500;

export function mountCommsRoutes(api: Hono<ApiEnv>, deps: CommsRouteDeps): void {
  const { reader, writer } = deps;

  api.get("/api/comms/list", (c) => {
    sessionOf(c);
    const filter = c.req.query("filter") ?? "inbox";
    if (!Object.hasOwn(FILTERS, filter)) throw badParameter("filter", "filter is inbox, starred or held");
    const account = c.req.query("account") ?? "";
    if (account !== "" && !ACCOUNT_ID.test(account)) throw badParameter("account", "account is an email account's id");
    const limit = limitOf(c);
    const after = cursorOf(c.req.query("after"), /^thr-[0-9a-f]{32}$/);
    const { held, starred } = FILTERS[filter as keyof typeof FILTERS];
    const params = { held, starred_only: starred, account, before_at: after?.at ?? Number.MAX_SAFE_INTEGER, before: after?.id ?? "", limit: limit + 1 };
    const rows = quietly(() => reader.query(undefined, COMMS, "Threads", params).rows, []);
    const page = rows.slice(0, limit).map((row) => threadView(String(row.id), row));
    const ids = page.map((t) => t.id);
    const counts = countsBy(ids.length === 0 ? [] : reader.query(undefined, COMMS, "MessageCounts", { threads: ids }).rows);
    const unread = countsBy(ids.length === 0 ? [] : reader.query(undefined, COMMS, "ThreadUnread", { threads: ids }).rows);
    const items = page.map((t) => ({ ...t, messages: counts.get(t.id) ?? 0, unread: unread.get(t.id) ?? 0 }));
    const last = page.at(-1);
    return c.json({ items, next: rows.length > limit && last !== undefined ? cursor(Date.parse(last.lastAt ?? "") || 0, last.id) : null });
  });

  api.get("/api/comms/counts", (c) => {
    sessionOf(c);
    const accounts: Record<string, { unread: number; held: number; starred: number }> = {};
    const totals = { unread: 0, held: 0, starred: 0 };
    for (const [name, query] of [["unread", "UnreadCount"], ["held", "HeldCount"], ["starred", "StarredCount"]] as const) {
      for (const row of quietly(() => reader.query(undefined, COMMS, query, {}).rows, [])) {
        const id = String(row.account);
        const n = Number(row.n);
        accounts[id] ??= { unread: 0, held: 0, starred: 0 };
        accounts[id][name] += n;
        totals[name] += n;
      }
    }
    return c.json({ ...totals, accounts });
  });

  api.get("/api/comms/people", (c) => {
    sessionOf(c);
    const limit = limitOf(c);
    const people = new Map<string, { address: string; name: string; received: number; sent: number; lastAt: number; allowed: boolean }>();
    const person = (address: string) => {
      let found = people.get(address);
      if (found === undefined) {
        found = { address, name: "", received: 0, sent: 0, lastAt: 0, allowed: false };
        people.set(address, found);
      }
      return found;
    };
    for (const row of quietly(() => reader.query(undefined, COMMS, "Correspondents", { limit: MAX_LIMIT }).rows, [])) {
      const p = person(String(row.address));
      p.received = Number(row.messages);
      p.lastAt = Math.max(p.lastAt, Number(row.last_at));
    }
    for (const row of quietly(() => reader.query(undefined, COMMS, "Recipients", { limit: MAX_LIMIT }).rows, [])) {
      const p = person(String(row.address));
      p.sent = Number(row.messages);
      p.lastAt = Math.max(p.lastAt, Number(row.last_at));
    }
    const ranked = [...people.values()].filter((p) => p.address !== "").sort((a, b) => b.received + b.sent - (a.received + a.sent) || b.lastAt - a.lastAt || a.address.localeCompare(b.address));
    const items = ranked.slice(0, limit).map((p) => {
      const sender = reader.record(undefined, COMMS, "Sender", senderSubject(p.address));
      return { ...p, name: String(sender?.state.name ?? ""), allowed: sender?.state.allowed === true, lastAt: p.lastAt > 0 ? new Date(p.lastAt).toISOString() : null };
    });
    return c.json({ items });
  });

  api.get("/api/comms/threads/:id", (c) => {
    sessionOf(c);
    const thread = readThread(reader, c.req.param("id"));
    const limit = limitOf(c);
    const after = cursorOf(c.req.query("after"), /^msg-[0-9a-f]{32}$/);
    const { rows } = reader.query(undefined, COMMS, "ThreadMessages", { thread: thread.id, after_date: after?.at ?? -1, after: after?.id ?? "", limit: limit + 1 });
    const messages = rows.slice(0, limit).map((row) => messageView(String(row.id), row));
    const last = messages.at(-1);
    return c.json({ ...thread, messages, next: rows.length > limit && last !== undefined ? cursor(Date.parse(last.date ?? "") || 0, last.id) : null });
  });

  api.post("/api/comms/threads/:id/reply", async (c) => {
    sessionOf(c);
    const thread = readThread(reader, c.req.param("id"));
    const body = await jsonBody(c, ["text", "html"]);
    const errors: FieldError[] = [];
    const text = textField(body.text, "text", MAX_TEXT, errors, true);
    const html = body.html === undefined || body.html === null ? null : textField(body.html, "html", MAX_HTML, errors, true);
    failOn(errors);
    const [row] = reader.query(undefined, COMMS, "LatestMessage", { thread: thread.id, limit: 1 }).rows;
    if (row === undefined) throw new HttpProblem(problem(404, "not-found", `thread '${thread.id}' has no message to reply to`));
    const last = messageView(String(row.id), row);
    const account = accountOf(thread.account, "the thread's account");
    const { to, cc } = replyRecipients(last);
    if (to.length === 0) throw new HttpProblem(problem(404, "not-found", "the message replied to names no sender to reply to"));
    const signed = withSignature(text, html, signatureOf(reader, account.id));
    const mail: OutgoingMail = {
      account: account.id,
      from: account.from,
      fromName: account.name,
      to,
      cc: cc.filter((a) => a !== account.from && !to.includes(a)),
      bcc: [],
      subject: replySubject(last.subject || thread.subject),
      ...signed,
      inReplyTo: last.messageId,
      references: replyReferences(last),
      thread: thread.id,
    };
    return c.json(await deps.comms.send(mail), 202);
  });

  api.post("/api/comms/threads/:id/star", async (c) => {
    sessionOf(c);
    const thread = readThread(reader, c.req.param("id"));
    const body = await jsonBody(c, ["starred"]);
    if (typeof body.starred !== "boolean") failOn([{ pointer: "#/starred", detail: "true to star the thread, false to unstar it" }]);
    const signed = await signedWrite(writer, { namespace: COMMS, action: "Star", subject: thread.id, args: { starred: body.starred } });
    return c.json({ ...threadView(thread.id, signed.receipt.state ?? {}), receipt: signed.receipt, jws: signed.jws });
  });

  api.post("/api/comms/threads/:id/seen", async (c) => {
    sessionOf(c);
    const thread = readThread(reader, c.req.param("id"));
    const body = await jsonBody(c, ["seen"]);
    if (typeof body.seen !== "boolean") failOn([{ pointer: "#/seen", detail: "true to mark the thread's messages seen, false unseen" }]);
    let changed = 0;
    for (const row of threadMessages(thread.id)) {
      if (row.direction !== "Received" || row.seen === body.seen) continue;
      await signedWrite(writer, { namespace: COMMS, action: "See", subject: String(row.id), args: { seen: body.seen } });
      changed++;
    }
    return c.json({ ...readThread(reader, thread.id), changed });
  });

  api.post("/api/comms/threads/:id/allow", async (c) => {
    sessionOf(c);
    const thread = readThread(reader, c.req.param("id"));
    await jsonBody(c, []);
    const senders = new Map<string, string>();
    for (const row of threadMessages(thread.id)) {
      const address = String(row.from_address);
      if (row.direction === "Received" && address !== "" && !senders.has(address) && !isAllowed(reader, address)) senders.set(address, String(row.from_name));
      if (senders.size >= MAX_ALLOW) break;
    }
    let released = 0;
    for (const [address, name] of senders) released += await allowAddress(deps, address, name);
    return c.json({ ...readThread(reader, thread.id), allowed: [...senders.keys()], released });
  });

  api.post("/api/comms/compose", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["account", "to", "cc", "bcc", "subject", "text", "html"]);
    const errors: FieldError[] = [];
    const accountId = typeof body.account === "string" && ACCOUNT_ID.test(body.account) ? body.account : null;
    if (accountId === null) errors.push({ pointer: "#/account", detail: "the id of an email account" });
    const to = addressList(body.to, "to", errors, true);
    const cc = addressList(body.cc, "cc", errors, false);
    const bcc = addressList(body.bcc, "bcc", errors, false);
    if (to.length + cc.length + bcc.length > MAX_RECIPIENTS) errors.push({ pointer: "#/to", detail: `at most ${MAX_RECIPIENTS} recipients in all (to, cc and bcc)` });
    const subject = textField(body.subject, "subject", SUBJECT_MAX, errors, false);
    if (/[\r\n]/.test(subject)) errors.push({ pointer: "#/subject", detail: "one line" });
    const text = textField(body.text, "text", MAX_TEXT, errors, true);
    const html = body.html === undefined || body.html === null ? null : textField(body.html, "html", MAX_HTML, errors, true);
    failOn(errors);
    const account = accountOf(accountId as string, "#/account");
    const signed = withSignature(text, html, signatureOf(reader, account.id));
    const mail: OutgoingMail = { account: account.id, from: account.from, fromName: account.name, to, cc, bcc, subject, ...signed, inReplyTo: null, references: [], thread: null };
    return c.json(await deps.comms.send(mail), 202);
  });

  api.post("/api/comms/translate", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["text", "to"]);
    const errors: FieldError[] = [];
    const text = textField(body.text, "text", MAX_TRANSLATE_TEXT, errors, true);
    const to = typeof body.to === "string" && /^[\p{L}\p{M}][\p{L}\p{M} ()-]{0,39}$/u.test(body.to) && body.to.length <= MAX_LANGUAGE ? body.to : "";
    if (to === "") errors.push({ pointer: "#/to", detail: `the language to translate into, by name or tag (French, pt-BR): at most ${MAX_LANGUAGE} letters` });
    failOn(errors);
    if (deps.settings === undefined || deps.connections === undefined) throw new HttpProblem(problem(503, "no-translation-model", "this node runs no assistant: nothing can translate"));
    const translated = await translate({ settings: deps.settings, connections: deps.connections }, text, to, c.req.raw.signal);
    return c.json({ text: translated.text, to, model: translated.model, connection: translated.connection });
  });

  api.get("/api/comms/settings", (c) => {
    sessionOf(c);
    return c.json(settingsView());
  });

  api.put("/api/comms/settings", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["ask", "reading"]);
    // Nothing asked to change: nothing is written.
    if (body.ask === undefined && body.reading === undefined) return c.json(settingsView());
    const errors: FieldError[] = [];
    const now = readCommsSettings(reader);
    if (body.ask !== undefined && typeof body.ask !== "boolean") errors.push({ pointer: "#/ask", detail: "true to ask before any email is sent, false to send at once" });
    const off = new Set(now.readingOff);
    if (body.reading !== undefined) {
      if (typeof body.reading !== "object" || body.reading === null || Array.isArray(body.reading)) errors.push({ pointer: "#/reading", detail: "an object: {\"<account>\": true | false}" });
      else {
        for (const [id, on] of Object.entries(body.reading).slice(0, 100)) {
          if (deps.connectorAccounts.get("email", id) === null) errors.push({ pointer: `#/reading/${id.slice(0, 64)}`, detail: "not an email account" });
          else if (typeof on !== "boolean") errors.push({ pointer: `#/reading/${id}`, detail: "true to read the account's inbox, false not to" });
          else if (on) off.delete(id);
          else off.add(id);
        }
      }
    }
    failOn(errors);
    const ask = typeof body.ask === "boolean" ? body.ask : now.ask;
    // Letting mail go out unasked is a step the person confirms with a passkey.
    if (now.ask && !ask) requireSteppedUp(c, deps.account);
    const readingOff = [...off].filter((id) => deps.connectorAccounts.get("email", id) !== null).sort();
    const signed = await signedWrite(writer, { namespace: COMMS, action: "Configure", subject: SETTINGS, args: { ask, reading_off: readingOff } });
    for (const id of new Set([...now.readingOff, ...readingOff])) if (now.readingOff.includes(id) !== readingOff.includes(id)) deps.comms.readingChanged(id);
    return c.json({ ...settingsView(), receipt: signed.receipt, jws: signed.jws });
  });

  api.get("/api/comms/signatures", (c) => {
    sessionOf(c);
    return c.json({ signatures: readSignatures(reader) });
  });

  api.put("/api/comms/signatures", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["signatures"]);
    const errors: FieldError[] = [];
    const wanted: [string, string][] = [];
    if (typeof body.signatures !== "object" || body.signatures === null || Array.isArray(body.signatures)) errors.push({ pointer: "#/signatures", detail: "an object: {\"<account>\": text | null}" });
    else {
      for (const [id, text] of Object.entries(body.signatures).slice(0, 100)) {
        if (deps.connectorAccounts.get("email", id) === null) errors.push({ pointer: `#/signatures/${id.slice(0, 64)}`, detail: "not an email account" });
        else if (text !== null && (typeof text !== "string" || text.length > MAX_SIGNATURE || /\0/.test(text))) errors.push({ pointer: `#/signatures/${id}`, detail: `a text of at most ${MAX_SIGNATURE} characters, or null for none` });
        else wanted.push([id, text ?? ""]);
      }
    }
    failOn(errors);
    for (const [id, text] of wanted) await signedWrite(writer, { namespace: COMMS, action: "Sign", subject: signatureSubject(id), args: { account: id, text } });
    return c.json({ signatures: readSignatures(reader) });
  });

  function settingsView(): { ask: boolean; accounts: { id: string; from: string; imap: boolean; reading: boolean }[] } {
    const settings = readCommsSettings(reader);
    const accounts = deps.connectorAccounts.list("email").map((a) => ({ id: a.id, from: String(a.fields.from ?? ""), imap: typeof a.fields.imapHost === "string", reading: !settings.readingOff.includes(a.id) }));
    return { ask: settings.ask, accounts };
  }

  /** An email account that exists: its id, address and name; `404` naming `where` otherwise. */
  function accountOf(id: string, where: string): { id: string; from: string; name: string } {
    const account = deps.connectorAccounts.get("email", id);
    if (account === null) {
      const detail = `no email account '${id.slice(0, 64)}'`;
      throw new HttpProblem(problem(404, "not-found", detail, where.startsWith("#/") ? [{ pointer: where, detail }] : undefined));
    }
    return { id, from: String(account.fields.from ?? ""), name: String(account.fields.name ?? "") };
  }

  /** The first THREAD_SCAN messages of a thread, oldest first. */
  function threadMessages(thread: string): Record<string, unknown>[] {
    return reader.query(undefined, COMMS, "ThreadMessages", { thread, after_date: -1, after: "", limit: THREAD_SCAN }).rows;
  }
}

/** `?limit=` (1–200, 50 by default). */
function limitOf(c: Context<ApiEnv>): number {
  const raw = c.req.query("limit");
  const limit = raw === undefined ? DEFAULT_LIMIT : /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) throw badParameter("limit", `limit is a whole number from 1 to ${MAX_LIMIT}`);
  return limit;
}

/** A page cursor: the base64url of `<ms>:<id>`. */
function cursor(at: number, id: string): string {
  return Buffer.from(`${at}:${id}`, "utf8").toString("base64url");
}

/** `?after=` read back as the position it names, or null when absent; anything else is `400`. */
function cursorOf(raw: string | undefined, id: RegExp): { at: number; id: string } | null {
  if (raw === undefined || raw === "") return null;
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(raw) ? Buffer.from(raw, "base64url").toString("utf8") : "";
  const m = /^(\d{1,16}):(.+)$/.exec(text);
  if (m === null || !id.test(m[2] as string)) throw badParameter("after", "after is a cursor from an earlier page's next");
  return { at: Number(m[1]), id: m[2] as string };
}

/** `{thread, n}` rows by thread. */
function countsBy(rows: readonly Record<string, unknown>[]): Map<string, number> {
  return new Map(rows.map((row) => [String(row.thread), Number(row.n)]));
}

/** A text field within `max` characters (required: present and, when `nonEmpty`, not blank); "" after naming what is wrong. */
function textField(value: unknown, field: string, max: number, errors: FieldError[], nonEmpty: boolean): string {
  if (typeof value !== "string" || value.length > max || (nonEmpty && value.trim() === "") || /\0/.test(value)) {
    errors.push({ pointer: `#/${field}`, detail: `a text of ${nonEmpty ? "1 to " : "at most "}${max} characters` });
    return "";
  }
  return value;
}

/** Throws one `400 malformed-body` naming every wrong field, when there are any. */
function failOn(errors: readonly FieldError[]): void {
  if (errors.length === 0) return;
  throw new HttpProblem(problem(400, "malformed-body", errors.map((e) => `${e.pointer}: ${e.detail}`).join("; ").slice(0, 2000), errors.slice(0, 50)));
}
