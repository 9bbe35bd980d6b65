/**
 * @module Starting `/api/events` for `charter node`: the event sockets (events-socket.ts) with
 * their sources — for now the commit feed (commit-feed.ts). Frames of other kinds join as other
 * sources of the same sockets.
 *
 * `CHARTER_EVENTS_SESSION_CHECK_MS` sets how often each socket's session is looked up again
 * (default 10 s); tests shorten it to see a signed-out socket close.
 */
import type { SessionRecord } from "../account/account-store.ts";
import type { Logger } from "../../../../shared/log.ts";
import type { EventHub } from "../../event-hub.ts";
import { CommitFeed } from "./commit-feed.ts";
import { DEFAULT_LIMITS, type EventSocketLimits, EventSockets } from "./events-socket.ts";

export { EventSockets, isWebSocketUpgrade, upgradeListener } from "./events-socket.ts";

/** What the event sockets need from the gateway. */
export interface EventsOptions extends EventSocketLimits {
  readonly hub: Pick<EventHub, "subscribe">;
  /** The store's file (read-only here). */
  readonly storePath: string;
  /** The node's origin: the only `Origin` a page may open the socket from. */
  readonly origin: string;
  /** The live session a cookie's token opens now (with no cookie: sign-in off's standing session), or null. */
  readonly session: (token: string | null) => SessionRecord | null;
  /** The person's did:key, or null before set-up. */
  readonly personDid: () => string | null;
  readonly log: Logger;
}

/** Starts the event sockets and their sources. */
export function startEvents(options: EventsOptions, env: Record<string, string | undefined> = process.env): EventSockets {
  const feed = new CommitFeed({ hub: options.hub, storePath: options.storePath, personDid: options.personDid, log: options.log });
  return new EventSockets({ ...options, sessionCheckMs: options.sessionCheckMs ?? sessionCheckMs(env), sources: [feed] });
}

/** The session re-check period from `CHARTER_EVENTS_SESSION_CHECK_MS`, else the default. */
export function sessionCheckMs(env: Record<string, string | undefined>): number {
  const ms = Number(env.CHARTER_EVENTS_SESSION_CHECK_MS);
  return env.CHARTER_EVENTS_SESSION_CHECK_MS !== undefined && Number.isInteger(ms) && ms > 0 ? ms : DEFAULT_LIMITS.sessionCheckMs;
}
