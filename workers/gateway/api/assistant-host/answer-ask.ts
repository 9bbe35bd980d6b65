/**
 * @module Answering an ask of the assistant, the one way `POST /api/asks/{id}/answer` and an AG-UI
 * resume on `/copilotkit` both do it: the answer is checked against the ask (a bad one is `400`
 * naming the field, and nothing is written), an ask that no longer waits is `409` (one past its
 * time is recorded `Expired` first; one whose turn has ended is withdrawn), then `Answer` is signed
 * as the person with the answering session, `/api/events` hears of it, and the turn that asked is
 * queued to run on (once: the ask's id is the queuing's key).
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type AskView, type AskWriteDeps, checkAnswer, expireAsk, findAsk, readAsk, signAnswer, withdrawAsks } from "./asks.ts";
import { findTurn } from "./conversation.ts";
import type { TurnHost } from "./turn-host.ts";

/** What answering needs. */
export interface AnswerAskDeps extends AskWriteDeps {
  readonly turns: Pick<TurnHost, "enqueue">;
}

/** Answers ask `id` with `body` (`{choices, text?}`) for `session`; answers the ask then, or throws its problem. */
export async function answerAsk(deps: AnswerAskDeps, id: string, body: { readonly choices?: unknown; readonly text?: unknown }, session: string): Promise<AskView> {
  let ask = readAsk(deps.reader, id, deps.now());
  if (ask.status === "open") {
    const turn = findTurn(deps.reader, ask.turn);
    if (turn === null || turn.status === "done" || turn.status === "failed" || turn.status === "cancelled") {
      // Its turn ended without it (cancelled while the node was stopping): nothing waits for an answer.
      await withdrawAsks(deps, ask.turn);
      ask = readAsk(deps.reader, id, deps.now());
    }
  }
  if (ask.status === "expired") ask = await expireAsk(deps, ask);
  if (ask.status !== "open") throw notOpen(ask);
  const checked = checkAnswer(ask, body);
  if (!checked.ok) throw new HttpProblem(problem(400, "malformed-body", checked.errors.map((e) => e.detail).join("; "), checked.errors));
  let answered: AskView;
  try {
    answered = await signAnswer(deps, ask, { choices: checked.choices, text: checked.text, session });
  } catch (error) {
    // Refused because another answer (or its time) came first: that is the conflict, not the contract's wording.
    const now = findAsk(deps.reader, id, deps.now());
    if (error instanceof HttpProblem && error.problem.status === 422 && now !== null && now.status !== "open") throw notOpen(now);
    throw error;
  }
  await deps.turns.enqueue(answered.turn, `${answered.id}:answered`);
  return answered;
}

function notOpen(ask: AskView): HttpProblem {
  const why = ask.status === "answered" ? "was answered already" : ask.status === "expired" ? "expired before it was answered" : "was withdrawn: its turn was cancelled";
  return new HttpProblem(problem(409, "ask-closed", `ask '${ask.id}' ${why}`));
}
