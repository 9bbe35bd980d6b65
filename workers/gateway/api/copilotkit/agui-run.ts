/**
 * @module One AG-UI run on `/copilotkit`: it starts (`RUN_STARTED`), does its own part, then
 * follows one turn of the assistant to its end or its next interrupt (turn-events.ts).
 *
 * A new run says the last user message in the thread's conversation, as `POST /api/messages`
 * does (assistant-host/say.ts), and follows the turn that answers it. A resume answers the
 * interrupts of one turn: each entry names an approval of a tool call of that turn, or an ask of
 * it, in the thread's conversation; an approval is decided as `POST /api/approvals/{id}` decides it
 * (approvals/decide-approval.ts), an ask answered as `POST /api/asks/{id}/answer` answers it
 * (assistant-host/answer-ask.ts), with the session of the request; a sensitive approval needs the
 * session stepped up, which the entry's `metadata.stepUp.response` (a passkey assertion for a
 * challenge from `POST /api/account/stepup/begin`) does on the spot. An approval decided so
 * already is not decided again: the run follows the turn on. Whatever stops a run before or while
 * it follows its turn is its `RUN_ERROR` (a code, a sentence); the turn itself goes on. The run
 * follows for at most `runLimitMs`, and stops following as soon as its client goes away.
 */
import { EventType, type ResumeEntry } from "@ag-ui/core";
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem } from "../../../../shared/problem.ts";
import { requireStepUp } from "../account/account-context.ts";
import type { SessionRecord } from "../account/account-store.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApprovalView, needsStepUp } from "../approvals/approval-records.ts";
import { decideApproval, type DecideDeps } from "../approvals/decide-approval.ts";
import { findTurn, stepsOf, type TurnView } from "../assistant-host/conversation.ts";
import { answerAsk } from "../assistant-host/answer-ask.ts";
import { askCallId, type AskView, findAsk } from "../assistant-host/asks.ts";
import { type AskPlan, planAskResume } from "./ask-resume.ts";
import { say, saidIds, type SayDeps } from "../assistant-host/say.ts";
import { TOOL_APPROVAL, toolCommandOf } from "../assistant-host/tool-calls.ts";
import type { TurnHost } from "../assistant-host/turn-host.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { EventStream } from "./event-stream.ts";
import { type Answer, answerOf, planResume } from "./resume-plan.ts";
import type { RunRequest } from "./run-input.ts";
import { TurnEvents } from "./turn-events.ts";
import { findApproval, threadConversation, turnSource } from "./turn-source.ts";

/** How long a run follows its turn by default: 10 minutes. */
export const RUN_LIMIT_MS = 10 * 60_000;

/** What a run needs. */
export interface AguiRunDeps extends DecideDeps, SayDeps {
  readonly reader: PersonReader;
  readonly now: () => number;
  readonly turns: Pick<TurnHost, "subscribe" | "enqueue" | "turnFrame" | "approvalFrame" | "askFrame">;
  readonly account: Pick<AccountCeremonies, "context" | "stepUpFinish" | "session">;
  readonly log: Logger;
  readonly runLimitMs?: number;
}

/** Who asks: the request's session, and its cookie's token (to read the session again after a step-up). */
export interface Caller {
  readonly session: SessionRecord;
  readonly token: string | null;
}

/** A resume entry read: the approval it answers, the answer, and whether it is still to be decided. */
interface Answered extends Answer {
  readonly entry: ResumeEntry;
  readonly approval: ApprovalView;
  readonly decide: boolean;
}

/** The runs of this process still streaming, for the gateway to end when it stops (it waits for open answers). */
const streaming = new Set<AguiRun>();

/** Ends every run still streaming with `RUN_ERROR` (the gateway is stopping; the turns go on at the next start). */
export function endAguiRuns(message = "the node is stopping: run again (or resume) once it is back"): void {
  for (const run of [...streaming]) run.fail("unavailable", message);
}

/** Runs `request` into `out`; never throws (a failure is the run's `RUN_ERROR`). */
export async function runAgui(deps: AguiRunDeps, request: RunRequest, caller: Caller, out: EventStream): Promise<void> {
  const run = new AguiRun(deps, request, out);
  streaming.add(run);
  out.onEnd(() => streaming.delete(run));
  try {
    await run.run(caller);
  } catch (error) {
    if (error instanceof HttpProblem) return run.fail(error.problem.code, `${error.problem.detail}${error.problem.reason === undefined ? "" : ` (${error.problem.reason})`}`);
    deps.log.error("an AG-UI run failed", { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    run.fail("internal", "the node could not go on with this run; the turn, if there is one, goes on");
  }
}

class AguiRun {
  readonly #deps: AguiRunDeps;
  readonly #request: RunRequest;
  readonly #out: EventStream;
  #events: TurnEvents | null = null;

  constructor(deps: AguiRunDeps, request: RunRequest, out: EventStream) {
    this.#deps = deps;
    this.#request = request;
    this.#out = out;
  }

  async run(caller: Caller): Promise<void> {
    const { threadId, runId, text, resume } = this.#request;
    this.#out.emit({ type: EventType.RUN_STARTED, threadId, runId });
    const conversation = threadConversation(this.#deps.reader, threadId);
    if (text !== null) await this.#say(text, conversation);
    else await this.#resume(resume, conversation, caller);
  }

  /** Ends the run with `RUN_ERROR`, once. */
  fail(code: string, message: string): void {
    if (this.#events !== null) return this.#events.fail(code, message);
    if (this.#out.closed) return;
    this.#out.emit({ type: EventType.RUN_ERROR, code, message });
    this.#out.close();
  }

  async #say(text: string, conversation: string): Promise<void> {
    if (!this.#deps.modelConfigured()) return this.fail("no-model", "no model is configured: add a connection and choose a model first (/api/setup/model)");
    const { id, turn } = saidIds(this.#deps.now());
    const events = this.#follow({ turn, message: id, conversation }, []);
    await say(this.#deps, { id, turn, conversation, text, attachments: [] });
    events.begin();
  }

  async #resume(entries: readonly ResumeEntry[], conversation: string, caller: Caller): Promise<void> {
    const { reader } = this.#deps;
    const answered: Answered[] = [];
    const asks: { ask: AskView; plan: AskPlan }[] = [];
    let turn: TurnView | null = null;
    for (const entry of entries) {
      const id = JSON.stringify(entry.interruptId.slice(0, 128));
      if (answered.some((a) => a.entry.interruptId === entry.interruptId) || asks.some((a) => a.ask.id === entry.interruptId)) return this.fail("interrupt-malformed", `interrupt ${id} is answered twice`);
      const ask = findAsk(reader, entry.interruptId, this.#deps.now());
      if (ask !== null) {
        const its = findTurn(reader, ask.turn);
        if (its === null || its.conversation !== conversation) return this.fail("interrupt-other-thread", `interrupt ${id} belongs to another thread`);
        if (turn !== null && turn.id !== its.id) return this.fail("interrupt-malformed", "a run resumes one turn: these interrupts belong to different turns");
        turn = its;
        const plan = planAskResume(entry, ask);
        if (plan.kind === "refused") return this.fail(plan.code, plan.message);
        asks.push({ ask, plan });
        continue;
      }
      const approval = findApproval(reader, entry.interruptId);
      if (approval === null || approval.kind !== TOOL_APPROVAL || approval.turn === null) return this.fail("interrupt-unknown", `no interrupt ${id}: it names no tool call the assistant put to the person`);
      const its = findTurn(reader, approval.turn);
      if (its === null || its.conversation !== conversation) return this.fail("interrupt-other-thread", `interrupt ${id} belongs to another thread`);
      if (turn !== null && turn.id !== its.id) return this.fail("interrupt-malformed", "a run resumes one turn: these interrupts belong to different turns");
      turn = its;
      const read = answerOf(entry, toolCommandOf(approval));
      if (!read.ok) return this.fail(read.refusal.code, read.refusal.message);
      const plan = planResume(approval, read.answer.approve, this.#deps.now());
      if (plan.kind === "refused") return this.fail(plan.code, plan.message);
      answered.push({ approval, ...read.answer, decide: plan.kind === "decide", entry });
    }
    if (turn === null) return this.fail("interrupt-malformed", "a resume answers at least one interrupt");
    const session = await this.#steppedUp(answered.filter((a) => a.decide && a.approve && needsStepUp(a.approval)).map((a) => a.entry), caller);
    if (session === null) return;
    const steps = asks.length === 0 ? [] : stepsOf(reader, turn.id);
    const askCalls = asks.flatMap((a) => askCallId(a.ask.id, steps) ?? []);
    const events = this.#follow({ turn: turn.id, message: turn.message, conversation }, [...answered.map((a) => toolCommandOf(a.approval).toolCallId), ...askCalls]);
    for (const a of answered) {
      if (!a.decide) continue;
      try {
        await decideApproval(this.#deps, { approval: a.approval, approve: a.approve, edited: a.edited, session });
      } catch (error) {
        if (!(error instanceof HttpProblem)) throw error;
        // Decided as asked all the same (a resume sent twice at once; approved, but the contract refused the call: the model is told): the turn goes on.
        if (findApproval(reader, a.approval.id)?.status === (a.approve ? "approved" : "denied")) continue;
        throw error;
      }
    }
    const answerDeps = { ...this.#deps, onAsk: (a: AskView) => this.#deps.turns.askFrame(a) };
    for (const { ask, plan } of asks) {
      if (plan.kind !== "answer") continue;
      try {
        await answerAsk(answerDeps, ask.id, { choices: plan.choices, text: plan.text }, session.id);
      } catch (error) {
        if (!(error instanceof HttpProblem)) throw error;
        // Answered so all the same (a resume sent twice at once): the turn goes on.
        const now = findAsk(reader, ask.id, this.#deps.now());
        if (now !== null && planAskResume({ interruptId: ask.id, status: "resolved", payload: { choices: plan.choices, text: plan.text } }, now).kind === "answered") continue;
        throw error;
      }
    }
    events.begin();
  }

  /** The session to decide with: stepped up by an entry's assertion when sensitive approvals are approved; null (after `RUN_ERROR`) when it is not. */
  async #steppedUp(sensitive: readonly ResumeEntry[], caller: Caller): Promise<SessionRecord | null> {
    if (sensitive.length === 0) return caller.session;
    const { account } = this.#deps;
    const given = sensitive.map((e) => (e.metadata as { stepUp?: unknown } | undefined)?.stepUp).find((s) => s !== undefined);
    let session = caller.session;
    if (given !== undefined) {
      if (typeof given !== "object" || given === null || !("response" in given)) {
        this.fail("interrupt-malformed", "metadata.stepUp is {response}: a passkey assertion for a challenge from POST /api/account/stepup/begin");
        return null;
      }
      const finished = await account.stepUpFinish(session, { response: given.response });
      if (!finished.ok) {
        this.fail(finished.error.code, `the step-up did not succeed: ${finished.error.message}`);
        return null;
      }
      session = account.session(caller.token) ?? session;
    }
    const allowed = requireStepUp(account.context, session);
    if (!allowed.ok) {
      this.fail(allowed.error.code, `approving this needs a fresh passkey confirmation: send metadata.stepUp with the resume (${allowed.error.message})`);
      return null;
    }
    return session;
  }

  /** Follows `turn` from now on: subscribed before the run's own work, so no frame of it is missed. */
  #follow(turn: { turn: string; message: string; conversation: string }, resumed: readonly string[]): TurnEvents {
    const { threadId, runId } = this.#request;
    let stop = (_why: string) => {};
    const events = new TurnEvents(turnSource(this.#deps.reader), { threadId, runId, ...turn }, {
      emit: (event) => this.#out.emit(event),
      ended: () => {
        stop("the run ended");
        this.#out.close();
      },
    });
    this.#events = events;
    const unsubscribe = this.#deps.turns.subscribe((frame) => {
      try {
        events.onFrame(frame);
      } catch (error) {
        this.#deps.log.error("an AG-UI run could not follow its turn", { turn: turn.turn, error: error instanceof Error ? error.message : String(error) });
        events.fail("internal", "the node could not follow the turn; it goes on (GET /api/turns/{id})");
      }
    });
    const limit = this.#deps.runLimitMs ?? RUN_LIMIT_MS;
    const timer = setTimeout(() => events.fail("run-timeout", `stopped following turn ${turn.turn} after ${Math.round(limit / 1000)} s; it goes on (GET /api/turns/${turn.turn})`), limit);
    timer.unref();
    let following = true;
    stop = (why) => {
      if (!following) return;
      following = false;
      unsubscribe();
      clearTimeout(timer);
      this.#deps.log.info("an AG-UI run stopped following its turn", { run: runId.slice(0, 128), turn: turn.turn, why });
    };
    this.#out.onGone(() => stop("the client went away"));
    events.prime(resumed);
    return events;
  }
}
