/**
 * @module The channel between the outbox worker and the gateway (`DATA/run/outbox.sock`, the gateway
 * listens). The gateway holds the person's secrets (connector accounts' passwords and tokens,
 * sealed at rest); the outbox holds the effects in flight. So the outbox asks the gateway for an
 * account's settings when an effect needs them (they travel only this channel, never the journal),
 * and the gateway tells the outbox when there is work (`wake`) or an account changed.
 */

/** The journal topic of effects: each entry one effect, keyed by its idempotency key. */
export const EFFECT_TOPIC = "effect";

/** What an effect's journal entry holds (never a secret: an account is named, its settings asked for when the effect runs). */
export interface EffectPayload {
  readonly connector: string;
  readonly effect: string;
  readonly account: string | null;
  readonly args: Readonly<Record<string, unknown>>;
}

/** An entry's payload as an effect, or why it is not one (never throws: it reads only the four known fields). */
export function effectPayload(raw: unknown): EffectPayload | string {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return "the effect's entry is not an object";
  const p = raw as Record<string, unknown>;
  if (typeof p.connector !== "string" || typeof p.effect !== "string") return "the effect's entry names no connector and effect";
  if (p.account !== undefined && p.account !== null && typeof p.account !== "string") return "the effect's account is not a name";
  const args = p.args ?? {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) return "the effect's arguments are not an object";
  return { connector: p.connector, effect: p.effect, account: typeof p.account === "string" ? p.account : null, args: args as Record<string, unknown> };
}

/** A connector account's settings as the outbox needs them to act. */
export interface ConnectorAccountConfig {
  readonly connector: string;
  readonly id: string;
  readonly fields: Readonly<Record<string, string | number | boolean>>;
  /** The account's password or token; null when it has none. */
  readonly secret: string | null;
}

/** The webhook listener's sources: each is served at `/hooks/<source>` and verified with its own secret. */
export const HOOK_SOURCES = ["github", "mastodon", "mastodon-media"] as const;
export type HookSource = (typeof HOOK_SOURCES)[number];

/** The journal topic of admitted webhook deliveries (keyed `<source>:<delivery>`, so each is admitted once). */
export const HOOK_TOPIC = "hook";

/** A webhook delivery as the listener journals it, verified, for the gateway to act on. */
export interface HookDelivery {
  readonly source: HookSource;
  /** The sender's id of the delivery (`X-GitHub-Delivery`; for Mastodon, which sends none, the SHA-256 of the body). */
  readonly delivery: string;
  /** GitHub's `X-GitHub-Event`; Mastodon's `event` member of the body (`status.created`); "" when it has none. */
  readonly event: string;
  /** The body's `action` member (GitHub: `opened`, `closed`, …); "" when it has none. */
  readonly action: string;
  /** When the listener admitted it (ms since the epoch). */
  readonly receivedAt: number;
  /** The body as received: a JSON object, as text. */
  readonly body: string;
}

/** The journal topic of mail read from an account's IMAP inbox (keyed `<account>:<uidvalidity>:<uid>`). */
export const MAIL_TOPIC = "mail";

/**
 * What the journal stops keeping of an entry once it has been done for `COMPACT_AFTER_MS`: a
 * webhook delivery's body (what it made is a command in history, and the entry — its key, what came
 * of it — stays, so it is still admitted once) and a message's text (std.comms keeps it). Without
 * this, every delivery (up to 1 MiB) and every message read (up to 64 KiB) would stay in the store
 * twice, for good.
 */
export const COMPACTED_MEMBERS: readonly { readonly topic: string; readonly member: string }[] = [
  { topic: HOOK_TOPIC, member: "body" },
  { topic: MAIL_TOPIC, member: "text" },
];
export const COMPACT_AFTER_MS = 7 * 24 * 3_600_000;

/** The bounds of what a mail entry holds: std.comms keeps no more (contracts/std/node/comms.charter.md). */
export const MAIL_LIMITS = { text: 65_536, title: 500, address: 320, name: 200, messageId: 500, addresses: 50, references: 20 } as const;

/** One message as the mail reader journals it, parsed and cut to MAIL_LIMITS, for the gateway to record as the person. */
export interface MailEntry {
  readonly account: string;
  readonly uidvalidity: number;
  readonly uid: number;
  /** The Message-ID, angle brackets included (one the message lacked is made from the account, UIDVALIDITY and UID). */
  readonly messageId: string;
  /** In-Reply-To ("" when none) and References (the last MAIL_LIMITS.references), angle brackets included. */
  readonly inReplyTo: string;
  readonly references: readonly string[];
  readonly from: { readonly address: string; readonly name: string };
  /** The Reply-To address, "" when none. */
  readonly replyTo: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly subject: string;
  /** The Date header (else the server's arrival time), ms since the epoch. */
  readonly date: number;
  /** The text body (an HTML-only message's text as mailparser renders it). */
  readonly text: string;
  /** The text was cut, or the message was larger than what is fetched of one. */
  readonly truncated: boolean;
  /** The server had it `\Seen` already. */
  readonly seen: boolean;
}

/** An entry's payload as a mail entry, or why it is not one (reads only the known fields, each checked against its bound). */
export function mailEntry(raw: unknown): MailEntry | string {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return "the mail entry is not an object";
  const p = raw as Record<string, unknown>;
  const text = (v: unknown, max: number) => typeof v === "string" && v.length <= max;
  const list = (v: unknown, max: number, each: number) => Array.isArray(v) && v.length <= max && v.every((x) => text(x, each));
  const whole = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
  const from = p.from as Record<string, unknown> | null;
  if (!text(p.account, 40) || p.account === "" || !whole(p.uidvalidity) || !whole(p.uid)) return "the mail entry names no account, UIDVALIDITY and UID";
  if (!text(p.messageId, MAIL_LIMITS.messageId) || p.messageId === "" || !text(p.inReplyTo, MAIL_LIMITS.messageId) || !list(p.references, MAIL_LIMITS.references, MAIL_LIMITS.messageId)) return "the mail entry's Message-IDs are not within bounds";
  if (typeof from !== "object" || from === null || !text(from.address, MAIL_LIMITS.address) || !text(from.name, MAIL_LIMITS.name) || !text(p.replyTo, MAIL_LIMITS.address)) return "the mail entry's sender is not within bounds";
  if (!list(p.to, MAIL_LIMITS.addresses, MAIL_LIMITS.address) || !list(p.cc, MAIL_LIMITS.addresses, MAIL_LIMITS.address)) return "the mail entry's recipients are not within bounds";
  if (!text(p.subject, MAIL_LIMITS.title) || !text(p.text, MAIL_LIMITS.text) || !whole(p.date) || typeof p.truncated !== "boolean" || typeof p.seen !== "boolean") return "the mail entry's subject, date or text is not within bounds";
  return raw as MailEntry;
}

/** An email account the mail reader reads: its settings (with the secret), and how far it was read (null: never). */
export interface MailAccount {
  readonly config: ConnectorAccountConfig;
  readonly cursor: { readonly uidvalidity: number; readonly lastUid: number } | null;
}

/** What the outbox asks of the gateway. */
export type OutboxHostRequests = {
  "connector-account": { request: { connector: string; account: string }; response: ConnectorAccountConfig | null };
  /** The email accounts whose inbox is read (an IMAP server set, reading on in the comms settings). */
  "mail-accounts": { request: Record<string, never>; response: MailAccount[] };
};

/**
 * The webhook listener's own channel to the gateway (`DATA/run/hooks.sock`, the gateway listens):
 * what it asks (the secrets it verifies deliveries with, which travel only this channel).
 */
export type HookHostRequests = {
  /** The webhook secrets set in settings, by source (a source without one is absent). */
  "hook-secrets": { request: Record<string, never>; response: Partial<Record<HookSource, string>> };
};

/** The gateway's notices to the webhook listener. */
export type HookHostNotices = {
  /** A webhook secret was set or removed: the listener asks for them again. */
  "hook-secrets-changed": Record<string, never>;
};

/** The webhook listener's notices to the gateway. */
export type HookListenerNotices = {
  /** Where the listener serves (`http://127.0.0.1:PORT`), or why it does not (`url` null). */
  "hook-listener": { url: string | null; error: string | null };
};

/** The gateway's notices to the outbox. */
export type OutboxHostNotices = {
  /** Effects were queued. */
  wake: Record<string, never>;
  /** An account's settings changed (or, for email, whether it is read): what the outbox kept of it (an open SMTP pool, an IMAP session) is dropped. */
  "account-changed": { connector: string; account: string };
};
