/**
 * @module Recording fetched mail: the gateway takes `mail` entries from the journal (the outbox
 * worker's mail reader wrote them) and records each as `std.comms` commands signed as the person,
 * with idempotency keys made from the entry's key — so an entry taken up again after a crash gets
 * the first receipts, never second records. Every step is also safe to repeat on its own: the
 * message is recorded once (its subject is a digest of the account and Message-ID, and a recorded
 * message's thread is taken from its record), its thread is opened once and only moved on by a
 * newer message, a Reference is claimed once, the mailbox cursor only moves forward.
 *
 * A message from a sender not on the allow-list is held. Allowing races with recording: the
 * allow route records `Allow` and then releases what is held, and this records a held message and
 * then looks at the allow-list again, so one of the two always sees the other.
 *
 * An entry that can never be recorded as it is (not a mail entry, a refusal other than "recorded
 * already") is dead-lettered with the reason; what may pass (the engine restarting, std.comms not
 * installed yet) is tried again with the journal's back-off.
 */
import type { JournalEntry } from "../../../../shared/journal.ts";
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem } from "../../../../shared/problem.ts";
import { MAIL_TOPIC, type MailEntry, mailEntry } from "../../../../shared/protocol/outbox.ts";
import type { EngineLink } from "../../../../shared/worker/engine-link.ts";
import { JournalConsumer, PermanentEntryError } from "../../../../shared/worker/journal-consumer.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWrite, PersonWriter } from "../personal/person-writer.ts";
import { commsAct, mayPass } from "./comms-writes.ts";
import { COMMS, findMessage, isAllowed, mailboxSubject, messageSubject, referenceSubject, snippetOf, threadSubject } from "./comms-records.ts";
import { releaseMessage } from "./allow-list.ts";
import { planThread, type ThreadLookup } from "./thread-plan.ts";

/** Entries claimed at once: each holds up to 64 Ki characters of text. */
const CLAIM_BATCH = 16;

export interface MailConsumerDeps {
  readonly engine: EngineLink;
  readonly writer: PersonWriter;
  readonly reader: PersonReader;
  /** The gateway's claimant name (the supervisor hands its claims back when it dies). */
  readonly claimant: string;
  readonly log: Logger;
  /** Hears each message recorded (for the first time). */
  readonly recorded?: (message: { readonly id: string; readonly thread: string; readonly held: boolean }) => void;
}

/** What an entry came to, kept as its journal entry's result. */
export interface MailResult {
  readonly message: string;
  readonly thread: string;
  readonly held: boolean;
  readonly recorded: boolean;
}

/** Takes `mail` entries from the journal and records each as the person. */
export class MailConsumer {
  readonly #deps: MailConsumerDeps;
  readonly #consumer: JournalConsumer;

  constructor(deps: MailConsumerDeps) {
    this.#deps = deps;
    this.#consumer = new JournalConsumer(deps.engine, { claimant: deps.claimant, topics: [MAIL_TOPIC], batch: CLAIM_BATCH, idleMs: 250 }, (entry) => this.#take(entry), deps.log);
  }

  start(): void {
    this.#consumer.start();
  }

  stop(): Promise<void> {
    return this.#consumer.stop();
  }

  /** Records one entry; what may pass (the engine away, the disk full) is tried again, anything else dead-lettered. */
  async #take(entry: JournalEntry): Promise<{ result: MailResult }> {
    const mail = mailEntry(entry.payload);
    if (typeof mail === "string") throw new PermanentEntryError(mail);
    let result: MailResult;
    try {
      result = await recordMail(this.#deps, mail, `mail:${entry.key ?? entry.id}`);
    } catch (error) {
      if (error instanceof PermanentEntryError || mayPass(error)) throw error;
      throw new PermanentEntryError(error instanceof HttpProblem ? `${error.problem.code}: ${error.problem.detail ?? error.problem.title}` : (error as Error).message);
    }
    if (result.recorded) this.#deps.recorded?.({ id: result.message, thread: result.thread, held: result.held });
    return { result };
  }
}

/** Records `mail` as the person (each step under `key` and its own suffix); safe to run again for the same entry. */
export async function recordMail(deps: Pick<MailConsumerDeps, "reader" | "writer">, mail: MailEntry, key: string): Promise<MailResult> {
  const { reader } = deps;
  const act = (write: Omit<PersonWrite, "namespace">, step: string) => commsAct(deps.writer, { ...write, idempotencyKey: `${key}:${step}` });
  const subject = messageSubject(mail.account, mail.messageId);
  const ownThread = threadSubject(mail.account, mail.messageId);
  const lookup = threadLookup(reader, mail.account);
  const before = findMessage(reader, subject);
  const held = before?.held ?? !isAllowed(reader, mail.from.address);
  const thread = before?.thread ?? planThread(mail, ownThread, lookup).thread;
  const snippet = snippetOf(mail.text);
  let recorded = false;
  if (before === null) {
    const answer = await act(
      {
        action: "Receive",
        subject,
        args: {
          account: mail.account,
          message_id: mail.messageId,
          thread,
          from_address: mail.from.address,
          from_name: mail.from.name,
          reply_to: mail.replyTo,
          to: mail.to,
          cc: mail.cc,
          title: mail.subject,
          date: mail.date,
          text: mail.text,
          truncated: mail.truncated,
          snippet,
          in_reply_to: mail.inReplyTo,
          references: mail.references,
          seen: mail.seen,
          held,
          uid: mail.uid,
          uidvalidity: mail.uidvalidity,
        },
      },
      "message",
    );
    // Refused: recorded meanwhile (a sent copy of the same Message-ID), which is what was wanted.
    recorded = answer === "accepted";
    if (!recorded && findMessage(reader, subject) === null) throw new PermanentEntryError(`std.comms refused Receive for ${mail.messageId.slice(0, 100)}`);
  }
  const stored = findMessage(reader, subject);
  const threadOf = stored?.thread ?? thread;
  const heldNow = stored?.held ?? held;
  const from = { from_address: mail.from.address, from_name: mail.from.name };
  const open = reader.record(undefined, COMMS, "Thread", threadOf);
  if (open === null) {
    await act({ action: "Open", subject: threadOf, args: { account: mail.account, title: mail.subject, at: mail.date, ...from, snippet, held: heldNow } }, "thread");
  } else {
    // Only a newer message moves the thread on (the contract refuses an older one); a held one
    // does not show in a thread that is in the inbox until it is let out.
    if (mail.date >= Number(open.state.last_at) && (!heldNow || open.state.held === true)) await act({ action: "Touch", subject: threadOf, args: { at: mail.date, ...from, snippet } }, "touch");
    if (!heldNow && open.state.held === true) await act({ action: "Show", subject: threadOf, args: {} }, "show");
  }
  // The parents not recorded yet: a Reference under each, so that they join this thread when they come.
  for (const parent of planThread(mail, threadOf, lookup).awaits) {
    await act({ action: "Await", subject: referenceSubject(mail.account, parent), args: { account: mail.account, thread: threadOf } }, `await:${referenceSubject(mail.account, parent)}`);
  }
  // Allowed since it was recorded held: let it out (the allow route may have looked before it was there).
  let stillHeld = heldNow;
  if (heldNow && isAllowed(reader, mail.from.address)) {
    await releaseMessage(deps.writer, reader, subject, `${key}:release`);
    stillHeld = false;
  }
  const cursor = { account: mail.account, uidvalidity: mail.uidvalidity, uid: mail.uid };
  const mailbox = reader.record(undefined, COMMS, "Mailbox", mailboxSubject(mail.account));
  const sameValidity = mailbox !== null && Number(mailbox.state.uidvalidity) === mail.uidvalidity;
  if (mail.uidvalidity > 0) await act({ action: sameValidity ? "Advance" : "Reset", subject: mailboxSubject(mail.account), args: cursor }, "cursor");
  return { message: subject, thread: threadOf, held: stillHeld, recorded };
}

/** The thread lookups of one account: each a record read by a digest. */
function threadLookup(reader: PersonReader, account: string): ThreadLookup {
  return {
    messageThread: (id) => {
      const found = reader.record(undefined, COMMS, "Message", messageSubject(account, id));
      return found === null ? null : String(found.state.thread);
    },
    awaitedThread: (id) => {
      const found = reader.record(undefined, COMMS, "Reference", referenceSubject(account, id));
      return found === null || found.state.thread === "" ? null : String(found.state.thread);
    },
  };
}
