/**
 * @module Reading one email account's inbox over IMAP (imapflow): connect, open `INBOX` read-only,
 * fetch what is newer than the cursor (UIDVALIDITY and the last UID journaled), journal it, then
 * wait in IDLE for new mail and fetch again. The cursor comes from the gateway at start (std.comms
 * `Mailbox`, as far as the records go) and is kept here as entries are journaled, so a restart
 * fetches only what was not journaled yet (an entry journaled twice is one: its key is
 * `<account>:<uidvalidity>:<uid>`). With no cursor, or under a new UIDVALIDITY, only the newest
 * `FIRST_WINDOW` messages are fetched. A message is fetched up to `MAX_RAW` bytes, and fetches are
 * grouped within `BATCH_BYTES`, so what one session holds is bounded. A failure (refused login,
 * server gone, a timeout) closes the session; the next one starts after a back-off (1 s doubling to
 * 5 minutes, with jitter), reset once a session has read its inbox.
 */
import { ImapFlow } from "imapflow";
import type { Logger } from "../../../shared/log.ts";
import { MAIL_TOPIC, type MailAccount, type MailEntry } from "../../../shared/protocol/outbox.ts";
import { type FetchedMessage, parseMessage, unreadable } from "./mail-parse.ts";

/** What is fetched of one message at most (a larger one is cut, and its entry says so). */
export const MAX_RAW = 10 * 1024 * 1024;
/** How many of the newest messages are read when an inbox is read for the first time, or under a new UIDVALIDITY. */
export const FIRST_WINDOW = 200;
/** One fetch holds at most this many messages, and this many bytes of them. */
const BATCH_COUNT = 20;
const BATCH_BYTES = 16 * 1024 * 1024;
const MIN_DELAY_MS = 1000;
const MAX_DELAY_MS = 5 * 60_000;

/** Appends entries to the journal (the engine's `journal-append-many`), answering in order. */
export type AppendMail = (entries: { topic: string; key: string; payload: MailEntry }[]) => Promise<unknown>;

export interface MailReaderDeps {
  readonly account: MailAccount;
  readonly append: AppendMail;
  readonly log: Logger;
  /** Hears what the reader is doing, for the worker's status line. */
  readonly status: (text: string) => void;
  readonly now?: () => number;
}

/** Reads one account's inbox until stopped. */
export class MailReader {
  readonly #deps: MailReaderDeps;
  #cursor: { uidvalidity: number; lastUid: number } | null;
  #client: ImapFlow | null = null;
  #stopped = false;
  #loop: Promise<void> | null = null;
  #sleeping: { timer: NodeJS.Timeout; resolve: () => void } | null = null;

  constructor(deps: MailReaderDeps) {
    this.#deps = deps;
    this.#cursor = deps.account.cursor;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Ends the session (logging out when it can) and stops. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#sleeping !== null) {
      clearTimeout(this.#sleeping.timer);
      this.#sleeping.resolve();
    }
    const client = this.#client;
    if (client !== null) await Promise.race([client.logout().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 2000).unref())]).finally(() => client.close());
    await this.#loop;
  }

  async #run(): Promise<void> {
    const id = this.#deps.account.config.id;
    let delay = MIN_DELAY_MS;
    while (!this.#stopped) {
      let read = false;
      try {
        await this.#session(() => {
          read = true;
          delay = MIN_DELAY_MS;
        });
      } catch (error) {
        if (this.#stopped) break;
        const message = describe(error);
        this.#deps.log.warn("mail reading failed; trying again", { account: id, error: message, inMs: delay });
        this.#deps.status(`${id}: ${message}`);
      }
      if (this.#stopped) break;
      if (!read) delay = Math.min(delay * 2, MAX_DELAY_MS);
      await this.#sleep(delay / 2 + Math.random() * (delay / 2));
    }
  }

  /** One IMAP session: catch up, then fetch again whenever the server says new mail came, until the connection ends. */
  async #session(caughtUp: () => void): Promise<void> {
    const { config } = this.#deps.account;
    const f = config.fields;
    const security = String(f.imapSecurity ?? "tls");
    const client = new ImapFlow({
      host: String(f.imapHost),
      port: Number(f.imapPort),
      secure: security === "tls",
      doSTARTTLS: security === "starttls",
      auth: { user: typeof f.user === "string" && f.user !== "" ? f.user : String(f.from ?? ""), pass: config.secret ?? "" },
      logger: false,
      // IDLE soon after the last command: new mail is heard of at once, not after imapflow's 15 s default.
      autoIdleDelay: 1000,
      connectionTimeout: 30_000,
      greetingTimeout: 20_000,
      socketTimeout: 10 * 60_000,
      maxLineLength: 1024 * 1024,
      maxLiteralSize: MAX_RAW + 1024,
      maxResponseSize: MAX_RAW + 2 * 1024 * 1024,
    });
    this.#client = client;
    // Errors also close the connection, which ends the session: they are only heard here.
    client.on("error", (error: unknown) => this.#deps.log.debug("imap error", { account: config.id, error: describe(error) }));
    const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
    let more = false;
    let wake: (() => void) | null = null;
    client.on("exists", () => {
      more = true;
      wake?.();
    });
    try {
      if (this.#stopped) return;
      await client.connect();
      const box = await client.mailboxOpen("INBOX", { readOnly: true });
      const uidvalidity = Number(box.uidValidity);
      let journaled = await this.#catchUp(client, uidvalidity, box.exists);
      caughtUp();
      this.#deps.status(`${config.id}: read (${journaled} new)`);
      while (!this.#stopped && client.usable) {
        if (!more) {
          await Promise.race([closed, new Promise<void>((resolve) => (wake = resolve))]);
          wake = null;
        }
        if (this.#stopped || !client.usable) break;
        more = false;
        journaled = await this.#catchUp(client, uidvalidity, client.mailbox === false ? 0 : client.mailbox.exists);
        if (journaled > 0) this.#deps.status(`${config.id}: read (${journaled} new)`);
      }
    } finally {
      this.#client = null;
      client.close();
    }
  }

  /** Fetches and journals what is newer than the cursor; answers how many messages it journaled. */
  async #catchUp(client: ImapFlow, uidvalidity: number, exists: number): Promise<number> {
    const cursor = this.#cursor;
    let listed: { uid: number; size: number }[] = [];
    if (cursor !== null && cursor.uidvalidity === uidvalidity) {
      // `N:*` answers the last message even when its UID is below N: it is filtered out.
      for await (const m of client.fetch(`${cursor.lastUid + 1}:*`, { uid: true, size: true }, { uid: true })) listed.push({ uid: m.uid, size: m.size ?? 0 });
      listed = listed.filter((m) => m.uid > cursor.lastUid);
    } else if (exists > 0) {
      for await (const m of client.fetch(`${Math.max(1, exists - FIRST_WINDOW + 1)}:*`, { uid: true, size: true })) listed.push({ uid: m.uid, size: m.size ?? 0 });
      if (cursor !== null) this.#deps.log.info("the inbox's UIDVALIDITY changed: reading its newest messages again", { account: this.#deps.account.config.id, was: cursor.uidvalidity, now: uidvalidity });
    }
    listed.sort((a, b) => a.uid - b.uid);
    if (listed.length === 0) {
      if (cursor === null || cursor.uidvalidity !== uidvalidity) this.#cursor = { uidvalidity, lastUid: 0 };
      return 0;
    }
    let journaled = 0;
    for (const batch of batches(listed)) {
      if (this.#stopped) break;
      const fetched: FetchedMessage[] = [];
      const range = batch.map((m) => m.uid).join(",");
      for await (const m of client.fetch(range, { uid: true, flags: true, internalDate: true, size: true, source: { maxLength: MAX_RAW } }, { uid: true })) {
        if (m.source === undefined) continue;
        const arrived = m.internalDate instanceof Date ? m.internalDate.getTime() : typeof m.internalDate === "string" ? Date.parse(m.internalDate) : Number.NaN;
        fetched.push({
          account: this.#deps.account.config.id,
          uidvalidity,
          uid: m.uid,
          source: m.source,
          size: m.size ?? m.source.length,
          internalDate: Number.isFinite(arrived) ? arrived : null,
          seen: m.flags?.has("\\Seen") === true,
        });
      }
      const now = (this.#deps.now ?? Date.now)();
      const entries: { topic: string; key: string; payload: MailEntry }[] = [];
      for (const message of fetched.sort((a, b) => a.uid - b.uid)) {
        const payload = await parseMessage(message, now).catch((error: unknown) => {
          // A message mailparser cannot read is still recorded (once), as unreadable, rather than fetched for ever.
          this.#deps.log.warn("a message could not be parsed", { account: message.account, uid: message.uid, error: String(error).slice(0, 300) });
          return unreadable(message, now);
        });
        entries.push({ topic: MAIL_TOPIC, key: `${payload.account}:${uidvalidity}:${payload.uid}`, payload });
      }
      if (entries.length > 0) {
        await this.#deps.append(entries);
        this.#deps.log.info("mail journaled", { account: this.#deps.account.config.id, uidvalidity, uids: entries.map((e) => e.payload.uid) });
      }
      journaled += entries.length;
      this.#cursor = { uidvalidity, lastUid: Math.max(...batch.map((m) => m.uid)) };
    }
    return journaled;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#sleeping = null;
        resolve();
      }, ms);
      this.#sleeping = { timer, resolve };
    });
  }
}

/** The listed messages in fetch groups: at most BATCH_COUNT each, and BATCH_BYTES of what is fetched (one larger message goes alone). */
export function batches(listed: readonly { uid: number; size: number }[]): { uid: number; size: number }[][] {
  const out: { uid: number; size: number }[][] = [];
  let current: { uid: number; size: number }[] = [];
  let bytes = 0;
  for (const m of listed) {
    const size = Math.min(m.size, MAX_RAW);
    if (current.length > 0 && (current.length >= BATCH_COUNT || bytes + size > BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(m);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** An IMAP failure in one line: imapflow's response text or code where it gives one (never the password). */
function describe(error: unknown): string {
  const e = error as { responseText?: string; code?: string; message?: string; authenticationFailed?: boolean };
  if (e.authenticationFailed === true) return "the IMAP server refused the login";
  return String(e.responseText ?? e.message ?? e.code ?? error).slice(0, 300);
}
