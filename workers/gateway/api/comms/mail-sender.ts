/**
 * @module Sending what the person wrote: an email effect through the durable outbox. When the comms
 * settings say ask (the default), nothing is queued yet: an approval (`std.approvals` `Request`,
 * kind `email`) keeps the exact message as its payload, sensitive when a recipient is not on the
 * allow-list (approving it then needs a step-up). Approving it queues the message with the
 * approval's id as the idempotency key — done once however often it is carried out — and records
 * what came of it (`CarriedOut`); a denial queues nothing. With ask off the message is queued at
 * once under a fresh key.
 *
 * Queuing is what makes a message sent as far as the records go: it is recorded in its thread then
 * (`std.comms` `Send`, under the Message-ID the outbox will give it, naming the effect that carries
 * it), a new email opening a thread of its own, and its recipients are put on the allow-list (mail
 * from someone the person wrote to is not held). Every step is keyed by the effect's key, so an
 * approval approved but not carried out when the node stopped is carried out at the next start.
 */
import { createHash } from "node:crypto";
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { APPROVALS, approvalId, type ApprovalView, readApproval, signApproval } from "../approvals/approval-records.ts";
import type { ConnectorAccounts } from "../connectors/connector-accounts.ts";
import type { OutboxHost } from "../connectors/outbox-host.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { allowAddress } from "./allow-list.ts";
import { COMMS, findMessage, isAllowed, messageSubject, type MessageView, snippetOf, threadSubject } from "./comms-records.ts";
import { commsAct } from "./comms-writes.ts";
import { readCommsSettings } from "./comms-settings.ts";
import { messageIdFor } from "../../../../shared/connectors/message-id.ts";
import { mailOfPayload, mailSummary, type OutgoingMail } from "./outgoing.ts";

/** The kind of an approval to send an email. */
export const EMAIL_APPROVAL = "email";
/** The most an approval's payload keeps (`std.approvals` `payload: Text(len=65536)`). */
const MAX_PAYLOAD = 65_536;

export interface MailSenderDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly outbox: Pick<OutboxHost, "queue">;
  readonly accounts: Pick<ConnectorAccounts, "get">;
  readonly now: () => number;
  readonly log: Logger;
  /** Hears each approval asked for or carried out (`/api/events`' `approval` frame). */
  readonly approvalFrame?: (approval: ApprovalView) => void;
}

/** What sending answered: an approval waiting, or the effect queued and the message recorded. */
export type Sent = { readonly approval: ApprovalView } | { readonly effect: string; readonly message: MessageView | null };

export class MailSender {
  readonly #deps: MailSenderDeps;

  constructor(deps: MailSenderDeps) {
    this.#deps = deps;
  }

  /** Sends `mail` as the settings say: asks for approval (the default) or queues it now. */
  async send(mail: OutgoingMail): Promise<Sent> {
    if (readCommsSettings(this.#deps.reader).ask) return { approval: await this.#ask(mail) };
    return this.#deliver(mail, timeOrderedId("mail", this.#deps.now()));
  }

  /** Carries out approved email approval `approval` (read with its payload): queued once, recorded, `CarriedOut`. */
  async carryOut(approval: ApprovalView): Promise<{ effect: string; message: MessageView | null }> {
    const mail = mailOfPayload(approval.payload ?? "");
    let outcome: string;
    let sent: { effect: string; message: MessageView | null } | null = null;
    if (mail === null) outcome = "not sent: the approval does not hold a message";
    else if (this.#deps.accounts.get("email", mail.account) === null) outcome = `not sent: email account ${mail.account} no longer exists`;
    else {
      sent = await this.#deliver(mail, approval.id);
      outcome = `queued as ${sent.effect}`;
    }
    const answer = await this.#deps.writer.act({ namespace: APPROVALS, action: "CarriedOut", subject: approval.id, args: { outcome } });
    if (answer.kind === "problem") throw new HttpProblem(answer.problem);
    this.#deps.approvalFrame?.(readApproval(this.#deps.reader, approval.id, false));
    if (sent === null) throw new HttpProblem(problem(404, "not-found", `approved, but ${outcome}`));
    return sent;
  }

  /** Carries out the email approvals approved but not carried out (the node stopped in between); answers how many. */
  async finishApproved(): Promise<number> {
    const { rows } = this.#deps.reader.query(undefined, APPROVALS, "Unfinished", { limit: 50 });
    let finished = 0;
    for (const row of rows) {
      if (row.kind !== EMAIL_APPROVAL) continue;
      const approval = readApproval(this.#deps.reader, String(row.id));
      try {
        await this.carryOut(approval);
      } catch (error) {
        // Recorded as not sent (its account is gone): finished too. Anything else is thrown, to be tried again.
        if (!(error instanceof HttpProblem) || error.problem.status >= 500) throw error;
      }
      this.#deps.log.info("carried out an approved email", { approval: approval.id });
      finished++;
    }
    return finished;
  }

  async #ask(mail: OutgoingMail): Promise<ApprovalView> {
    const payload = JSON.stringify(mail);
    if (payload.length > MAX_PAYLOAD) throw new HttpProblem(problem(413, "body-too-large", `the message is over the ${MAX_PAYLOAD} characters an approval keeps`));
    const id = approvalId(this.#deps.now());
    // Mail to an address never allowed (nobody the person wrote to or let in) needs a step-up to approve.
    const sensitive = [...mail.to, ...mail.cc, ...mail.bcc].some((a) => !isAllowed(this.#deps.reader, a));
    const args = { kind: EMAIL_APPROVAL, summary: mailSummary(mail), payload, digest: createHash("sha256").update(payload).digest("hex"), target: mail.account, sensitive };
    await signApproval(this.#deps.writer, { action: "Request", subject: id, args });
    const approval = readApproval(this.#deps.reader, id, false);
    this.#deps.approvalFrame?.(approval);
    return approval;
  }

  /** Queues `mail` under `key` (once), records it in its thread and allows its recipients; each step keyed by `key`. */
  async #deliver(mail: OutgoingMail, key: string): Promise<{ effect: string; message: MessageView | null }> {
    const { reader, writer } = this.#deps;
    const id = await this.#deps.outbox.queue({
      connector: "email",
      effect: "send",
      account: mail.account,
      args: { from: mail.from, to: mail.to, cc: mail.cc, bcc: mail.bcc, subject: mail.subject, text: mail.text, html: mail.html, inReplyTo: mail.inReplyTo, references: mail.references },
      key,
    });
    const effect = `effect-${id}`;
    const messageId = messageIdFor(key, mail.from);
    const subject = messageSubject(mail.account, messageId);
    const thread = mail.thread ?? threadSubject(mail.account, messageId);
    const act = (write: { action: string; subject: string; args: Record<string, unknown> }, step: string) => commsAct(writer, { ...write, idempotencyKey: `sent:${key}:${step}` });
    const snippet = snippetOf(mail.text);
    const from = { from_address: mail.from, from_name: mail.fromName };
    if (findMessage(reader, subject) === null) {
      await act(
        {
          action: "Send",
          subject,
          args: { account: mail.account, message_id: messageId, thread, ...from, to: mail.to, cc: mail.cc, title: mail.subject, text: mail.text, snippet, in_reply_to: mail.inReplyTo ?? "", references: mail.references, effect },
        },
        "message",
      );
    }
    const message = findMessage(reader, subject);
    const at = Date.parse(message?.date ?? "") || this.#deps.now();
    const open = reader.record(undefined, COMMS, "Thread", thread);
    if (open === null) {
      await act({ action: "Open", subject: thread, args: { account: mail.account, title: mail.subject, at, ...from, snippet, held: false } }, "thread");
    } else {
      if (at >= Number(open.state.last_at)) await act({ action: "Touch", subject: thread, args: { at, ...from, snippet } }, "touch");
      // Writing in a held thread lets it into the inbox.
      if (open.state.held === true) await act({ action: "Show", subject: thread, args: {} }, "show");
    }
    for (const address of [...mail.to, ...mail.cc, ...mail.bcc]) if (!isAllowed(reader, address)) await allowAddress(this.#deps, address, "");
    return { effect, message };
  }
}
