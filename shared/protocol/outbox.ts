/**
 * @module The channel between the outbox worker and the gateway (`DATA/run/outbox.sock`, the gateway
 * listens). The gateway holds the person's secrets (connector accounts' passwords and tokens,
 * sealed at rest); the outbox holds the effects in flight. So the outbox asks the gateway for an
 * account's settings when an effect needs them (they travel only this channel, never the journal),
 * and the gateway tells the outbox when there is work (`wake`) or an account changed.
 */

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
