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

/** What the outbox asks of the gateway. */
export type OutboxHostRequests = {
  "connector-account": { request: { connector: string; account: string }; response: ConnectorAccountConfig | null };
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
  /** An account's settings changed: what the outbox kept of it (an open SMTP pool) is dropped. */
  "account-changed": { connector: string; account: string };
};
