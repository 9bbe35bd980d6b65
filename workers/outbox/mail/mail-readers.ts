/**
 * @module The outbox worker's mail reading: one MailReader per email account whose inbox is read,
 * as the gateway lists them (`mail-accounts`: an IMAP server set, reading on in the comms
 * settings). The list is asked for when the gateway's channel connects and whenever the gateway
 * says an email account changed; a reader whose account is gone, or whose settings changed, is
 * stopped (its session logged out) and, where the account is still read, started again. Asking is
 * serialised, and tried again after a few seconds when the gateway cannot answer.
 */
import type { Logger } from "../../../shared/log.ts";
import type { MailAccount } from "../../../shared/protocol/outbox.ts";
import { type AppendMail, MailReader } from "./mail-reader.ts";

export interface MailReadersDeps {
  /** The accounts to read, with their cursors (the gateway's `mail-accounts`). */
  readonly accounts: () => Promise<MailAccount[]>;
  readonly append: AppendMail;
  readonly log: Logger;
  /** The reading part of the worker's status line. */
  readonly status: (text: string) => void;
}

const RETRY_MS = 5000;

export class MailReaders {
  readonly #deps: MailReadersDeps;
  readonly #readers = new Map<string, { reader: MailReader; fingerprint: string }>();
  readonly #notes = new Map<string, string>();
  #refreshing: Promise<void> = Promise.resolve();
  #again = false;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(deps: MailReadersDeps) {
    this.#deps = deps;
  }

  /** Asks for the accounts again and starts, restarts or stops readers to match. */
  refresh(): void {
    if (this.#closed) return;
    if (this.#again) return;
    this.#again = true;
    this.#refreshing = this.#refreshing.then(async () => {
      this.#again = false;
      await this.#reconcile();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    await this.#refreshing;
    await Promise.all([...this.#readers.values()].map(({ reader }) => reader.stop()));
    this.#readers.clear();
  }

  async #reconcile(): Promise<void> {
    if (this.#closed) return;
    let accounts: MailAccount[];
    try {
      accounts = await this.#deps.accounts();
    } catch (error) {
      this.#deps.log.debug("the mail accounts could not be asked for; asking again soon", { error: String(error) });
      this.#retry ??= setTimeout(() => {
        this.#retry = null;
        this.refresh();
      }, RETRY_MS);
      this.#retry.unref();
      return;
    }
    const wanted = new Map(accounts.map((a) => [a.config.id, a]));
    for (const [id, held] of this.#readers) {
      const account = wanted.get(id);
      if (account !== undefined && fingerprintOf(account) === held.fingerprint) continue;
      await held.reader.stop();
      this.#readers.delete(id);
      this.#notes.delete(id);
    }
    for (const [id, account] of wanted) {
      if (this.#readers.has(id) || this.#closed) continue;
      const reader = new MailReader({ account, append: this.#deps.append, log: this.#deps.log, status: (text) => this.#note(id, text) });
      this.#readers.set(id, { reader, fingerprint: fingerprintOf(account) });
      this.#note(id, `${id}: connecting`);
      reader.start();
    }
    this.#show();
  }

  #note(id: string, text: string): void {
    if (!this.#readers.has(id)) return;
    this.#notes.set(id, text);
    this.#show();
  }

  #show(): void {
    const notes = [...this.#notes.values()];
    this.#deps.status(this.#readers.size === 0 ? "" : `mail: ${notes.join(", ")}`);
  }
}

/** What, when it changes, makes a reader start again: the account's settings and secret (not the cursor, which the reader keeps itself). */
function fingerprintOf(account: MailAccount): string {
  return JSON.stringify([account.config.fields, account.config.secret]);
}
