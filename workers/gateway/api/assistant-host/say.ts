/**
 * @module Saying something to the assistant, the one way `/api/messages` and the AG-UI runs of
 * `/copilotkit` both do it: two commands signed as the person (`Say` records the message, `Queue`
 * the turn that answers it), then a `turn` journal entry the assistant worker runs, and a `turn`
 * frame (`queued`) for `/api/events`. With no model configured nothing is written (`409 no-model`),
 * nor in a conversation that takes no messages: one that is neither `main` nor a branch (`404`), a
 * branch merged, being merged or closed (`409 branch-not-open`).
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { signedWrites } from "../personal/signed-write.ts";
import { requireOpenConversation } from "./branches.ts";
import { CONVERSATION } from "./conversation.ts";
import type { TurnHost } from "./turn-host.ts";

/** What saying needs. */
export interface SayDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly turns: Pick<TurnHost, "enqueue" | "turnFrame">;
  /** Whether a model is configured for conversation. */
  readonly modelConfigured: () => boolean;
}

/** The ids of a message and of the turn answering it: made first, so a caller can follow the turn before it exists. */
export interface SaidIds {
  readonly id: string;
  readonly turn: string;
}

/** What the person says, where. */
export interface Said extends SaidIds {
  readonly conversation: string;
  readonly text: string;
  readonly attachments: readonly string[];
}

/** Fresh ids for a message and its turn (time-ordered, so they list in the order they were said). */
export function saidIds(now: number): SaidIds {
  return { id: timeOrderedId("msg", now), turn: timeOrderedId("turn", now) };
}

/** Records the message and queues its turn; `409 no-model` or the contract's refusal (`422`, with the receipt) are thrown. */
export async function say(deps: SayDeps, said: Said): Promise<void> {
  if (!deps.modelConfigured()) throw new HttpProblem(problem(409, "no-model", "no model is configured: add a connection and choose a model first (/api/setup/model)"));
  const { id, turn, conversation, text, attachments } = said;
  requireOpenConversation(deps.reader, conversation);
  await signedWrites(deps.writer, [
    { namespace: CONVERSATION, action: "Say", subject: id, args: { conversation, text, attachments, turn } },
    { namespace: CONVERSATION, action: "Queue", subject: turn, args: { conversation, message: id, origin: "person" } },
  ]);
  // Announced before the hand-off: the turn may run, and finish, before enqueue returns.
  deps.turns.turnFrame(turn, "queued", { message: id });
  await deps.turns.enqueue(turn, `${turn}:queued`);
}
