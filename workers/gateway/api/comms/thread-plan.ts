/**
 * @module Which thread a message joins: a pure decision over bounded lookups, never a walk. The
 * message names its parents (In-Reply-To, then References from the nearest back); it joins the
 * thread of the first parent already recorded. When none is, it may be a parent that arrived
 * after its replies: a reply recorded earlier left a Reference under this message's Message-ID
 * naming its thread, which this message joins. Failing that, a reply to the same missing parent
 * (a sibling) left a Reference under that parent's id. Otherwise the message starts a thread of
 * its own. The parents it names that are not recorded yet, and that no Reference names, are the
 * ones to leave a Reference under, so that they find this thread when they arrive. A message that
 * names two threads joins the first found; threads are never merged.
 */
import { MAIL_LIMITS } from "../../../../shared/protocol/outbox.ts";

/** The lookups a plan may make: each one record read by a digest, at most 2 × (parents + 1). */
export interface ThreadLookup {
  /** The thread of the recorded message with this Message-ID, or null. */
  messageThread(messageId: string): string | null;
  /** The thread a Reference under this Message-ID names, or null. */
  awaitedThread(messageId: string): string | null;
}

export interface ThreadPlan {
  readonly thread: string;
  /** The thread is the message's own (it joins none). */
  readonly own: boolean;
  /** Parents to leave a Reference under. */
  readonly awaits: readonly string[];
}

/** The most parents looked at: In-Reply-To and the References std.comms keeps. */
export const MAX_PARENTS = MAIL_LIMITS.references + 1;

/** Plans the thread of `message`; `ownThread` is the id a thread it starts gets. */
export function planThread(message: { readonly messageId: string; readonly inReplyTo: string; readonly references: readonly string[] }, ownThread: string, lookup: ThreadLookup): ThreadPlan {
  const parents: string[] = [];
  for (const id of [message.inReplyTo, ...[...message.references].reverse()]) {
    if (id !== "" && id !== message.messageId && !parents.includes(id)) parents.push(id);
    if (parents.length >= MAX_PARENTS) break;
  }
  const recorded = parents.map((id) => lookup.messageThread(id));
  const joined = recorded.find((t) => t !== null) ?? lookup.awaitedThread(message.messageId);
  const awaited = parents.map((id, i) => (recorded[i] === null ? lookup.awaitedThread(id) : null));
  const thread = joined ?? awaited.find((t) => t !== null) ?? null;
  return {
    thread: thread ?? ownThread,
    own: thread === null,
    awaits: parents.filter((_, i) => recorded[i] === null && awaited[i] === null),
  };
}
