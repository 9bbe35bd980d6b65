/**
 * @module The email connector's `send` effect: one message through the account's SMTP server
 * (nodemailer, one pooled transport per account). The message's Message-ID is made from the
 * effect's idempotency key, so an attempt repeated after a crash (the outbox died after the server
 * took the message, before its receipt was written) sends the same message again under the same
 * Message-ID, which mail stores and readers treat as one message. The receipt names the server's
 * own queue id when its answer gives one.
 */
import { createTransport, type Transporter } from "nodemailer";
import type { ConnectorAccountConfig } from "../../../shared/protocol/outbox.ts";
import { messageIdFor } from "../../../shared/connectors/message-id.ts";
import { type Connector, type EffectJob, PermanentEffectError } from "./connector.ts";

/** The most recipients one message may have, and the longest subject and body taken. */
const MAX_RECIPIENTS = 100;
const MAX_SUBJECT = 998;
const MAX_BODY = 10 * 1024 * 1024;

interface SendArgs {
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text: string;
  html: string | null;
  inReplyTo: string | null;
  references: string[];
}

export function emailConnector(): Connector {
  const transports = new Map<string, { transport: Transporter; fingerprint: string }>();
  const transportFor = (account: ConnectorAccountConfig): Transporter => {
    const f = account.fields;
    const fingerprint = JSON.stringify([f, account.secret]);
    const held = transports.get(account.id);
    if (held !== undefined && held.fingerprint === fingerprint) return held.transport;
    held?.transport.close();
    const security = String(f.smtpSecurity ?? "starttls");
    const transport = createTransport({
      host: String(f.smtpHost),
      port: Number(f.smtpPort),
      secure: security === "tls",
      requireTLS: security === "starttls",
      ignoreTLS: security === "none",
      ...(typeof f.user === "string" && f.user !== "" ? { auth: { user: f.user, pass: account.secret ?? "" } } : {}),
      pool: true,
      maxConnections: 2,
      connectionTimeout: 20_000,
      greetingTimeout: 20_000,
      socketTimeout: 60_000,
    });
    transports.set(account.id, { transport, fingerprint });
    return transport;
  };
  return {
    needsAccount: true,
    async perform(effect: string, job: EffectJob) {
      if (effect !== "send") throw new PermanentEffectError(`the email connector has no effect ${JSON.stringify(effect)}`);
      const account = job.account;
      if (account === null) throw new PermanentEffectError("the email account of this message no longer exists");
      const args = sendArgs(job.args, account);
      const messageId = messageIdFor(job.key, args.from);
      try {
        const info = (await transportFor(account).sendMail({
          messageId,
          from: args.from,
          to: args.to,
          cc: args.cc,
          bcc: args.bcc,
          subject: args.subject,
          text: args.text,
          ...(args.html === null ? {} : { html: args.html }),
          ...(args.inReplyTo === null ? {} : { inReplyTo: args.inReplyTo }),
          ...(args.references.length === 0 ? {} : { references: args.references }),
        })) as { response?: string; messageId?: string };
        const queued = /queued as ([A-Za-z0-9._-]{1,100})/i.exec(info.response ?? "");
        return { providerId: queued?.[1] ?? info.messageId ?? messageId };
      } catch (error) {
        throw classify(error);
      }
    },
    forget(accountId: string) {
      transports.get(accountId)?.transport.close();
      transports.delete(accountId);
    },
    close() {
      for (const held of transports.values()) held.transport.close();
      transports.clear();
      return Promise.resolve();
    },
  };
}

/** The effect's arguments checked (they were checked when queued; a wrong one here is dead-lettered, not retried). */
function sendArgs(raw: Readonly<Record<string, unknown>>, account: ConnectorAccountConfig): SendArgs {
  const list = (name: string): string[] => {
    const v = raw[name];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.length > MAX_RECIPIENTS || !v.every((a) => typeof a === "string" && a.length <= 320)) {
      throw new PermanentEffectError(`${name}: a list of at most ${MAX_RECIPIENTS} addresses`);
    }
    return v as string[];
  };
  const to = list("to");
  const cc = list("cc");
  const bcc = list("bcc");
  if (to.length + cc.length + bcc.length === 0) throw new PermanentEffectError("a message needs at least one recipient");
  const text = typeof raw.text === "string" ? raw.text : "";
  const html = typeof raw.html === "string" ? raw.html : null;
  if (text.length + (html?.length ?? 0) > MAX_BODY) throw new PermanentEffectError("the message is too large");
  const from = typeof account.fields.from === "string" && account.fields.from !== "" ? account.fields.from : String(account.fields.user ?? "");
  return {
    from,
    to,
    cc,
    bcc,
    subject: typeof raw.subject === "string" ? raw.subject.slice(0, MAX_SUBJECT) : "",
    text,
    html,
    inReplyTo: typeof raw.inReplyTo === "string" ? raw.inReplyTo : null,
    references: Array.isArray(raw.references) ? raw.references.filter((r): r is string => typeof r === "string").slice(0, 100) : [],
  };
}

/** An SMTP failure as the outbox treats it: a 5xx answer or a refused host is for good; the rest is tried again. */
function classify(error: unknown): Error {
  const e = error as { responseCode?: number; code?: string; message?: string; cause?: { code?: string } };
  const text = String(e.message ?? error).slice(0, 500);
  if (e.code === "EGRESS_REFUSED" || e.cause?.code === "EGRESS_REFUSED" || text.includes("EGRESS_REFUSED") || text.includes("declares that host")) return new PermanentEffectError(text);
  if (typeof e.responseCode === "number" && e.responseCode >= 500 && e.responseCode < 600) return new PermanentEffectError(`the SMTP server refused the message: ${text}`);
  return error instanceof Error ? error : new Error(text);
}
