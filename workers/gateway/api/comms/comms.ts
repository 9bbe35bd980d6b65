/**
 * @module The gateway's side of the person's email, put together: the accounts the outbox worker
 * reads (answered over the outbox channel), the consumer that records what it fetched
 * (mail-consumer.ts), the sender of what the person writes (mail-sender.ts), and what an email
 * approval does once approved (approvals/decide-approval.ts asks it). Routes: routes/comms.ts.
 */
import type { Logger } from "../../../../shared/log.ts";
import type { MailAccount } from "../../../../shared/protocol/outbox.ts";
import type { EngineLink } from "../../../../shared/worker/engine-link.ts";
import type { ApprovalView } from "../approvals/approval-records.ts";
import type { ConnectorAccounts } from "../connectors/connector-accounts.ts";
import type { OutboxHost } from "../connectors/outbox-host.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { COMMS, mailboxSubject, quietly } from "./comms-records.ts";
import { readCommsSettings } from "./comms-settings.ts";
import { MailConsumer } from "./mail-consumer.ts";
import { EMAIL_APPROVAL, MailSender, type Sent } from "./mail-sender.ts";
import type { OutgoingMail } from "./outgoing.ts";

export { EMAIL_APPROVAL };

export interface CommsDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly engine: EngineLink;
  readonly outbox: Pick<OutboxHost, "queue" | "accountChanged">;
  readonly accounts: Pick<ConnectorAccounts, "list" | "get" | "config">;
  readonly claimant: string;
  readonly now: () => number;
  readonly log: Logger;
  readonly approvalFrame?: (approval: ApprovalView) => void;
}

export class Comms {
  readonly #deps: CommsDeps;
  readonly #sender: MailSender;
  readonly #consumer: MailConsumer;

  constructor(deps: CommsDeps) {
    this.#deps = deps;
    this.#sender = new MailSender(deps);
    this.#consumer = new MailConsumer(deps);
  }

  start(): void {
    this.#consumer.start();
  }

  stop(): Promise<void> {
    return this.#consumer.stop();
  }

  /** The email accounts whose inbox is read: an IMAP server set, reading not turned off; each with its secret and how far it was read. */
  mailAccounts(): MailAccount[] {
    const off = new Set(readCommsSettings(this.#deps.reader).readingOff);
    const out: MailAccount[] = [];
    for (const account of this.#deps.accounts.list("email")) {
      if (typeof account.fields.imapHost !== "string" || off.has(account.id)) continue;
      const config = this.#deps.accounts.config("email", account.id);
      if (config === null) continue;
      const mailbox = quietly(() => this.#deps.reader.record(undefined, COMMS, "Mailbox", mailboxSubject(account.id))?.state ?? null, null);
      const cursor = mailbox === null || Number(mailbox.uidvalidity) <= 0 ? null : { uidvalidity: Number(mailbox.uidvalidity), lastUid: Number(mailbox.last_uid) };
      out.push({ config, cursor });
    }
    return out;
  }

  /** Tells the outbox whether an account is read changed (it asks for the accounts again). */
  readingChanged(account: string): void {
    this.#deps.outbox.accountChanged("email", account);
  }

  /** Sends `mail` as the settings say: an approval, or queued now. */
  send(mail: OutgoingMail): Promise<Sent> {
    return this.#sender.send(mail);
  }

  /** Carries out an approved email approval (read with its payload); anything else is not this one's. */
  carryOutApproved(approval: ApprovalView): Promise<{ effect: string }> | null {
    return approval.kind === EMAIL_APPROVAL ? this.#sender.carryOut(approval) : null;
  }

  /** Carries out the email approvals a stop left approved but not carried out. */
  finishApproved(): Promise<number> {
    return this.#sender.finishApproved();
  }
}
