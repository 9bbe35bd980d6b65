/**
 * @module One turn as the AG-UI events of one run: what the frames the node sends to
 * `/api/events` (TurnHost.subscribe) and the turn's recorded steps become. Streamed text is a text
 * message, the reply's (`<message>.r`); the first piece of text of a new model call (its steps
 * before it are recorded by then) and every change of the turn's status bring in the recorded
 * steps not shown yet: each tool call the model made (`TOOL_CALL_START`/`ARGS`/`END`, under the
 * reply) and each recorded result (`TOOL_CALL_RESULT`). Each status is a `STATE_SNAPSHOT`
 * `{turn, status, conversation, message}`. The run ends when the turn does: `done` is
 * `RUN_FINISHED`, waiting for an approval is `RUN_FINISHED` with an interrupt outcome (AG-UI's
 * interrupts: `id` the approval, `reason: "tool_call"`, `toolCallId`, `expiresAt`), and so is
 * waiting for the person's answer to an ask (`id` the ask, `reason: "input_required"`, the question
 * and its options in `metadata`), all after a `MESSAGES_SNAPSHOT`; `failed` and `cancelled` are
 * `RUN_ERROR`.
 *
 * A run that resumes a turn (`prime` with the tool calls it answers) does not show again what the
 * run it resumes showed: the steps up to the model call that made those tool calls. What the turn
 * recorded after them before this run began is shown from the records (a resume sent again after
 * the turn went on); the rest as it streams.
 */
import { type BaseEvent, EventType, type Interrupt } from "@ag-ui/core";
import type { RecordedStep } from "../../../../shared/protocol/assistant.ts";
import { type ApprovalView, needsStepUp } from "../approvals/approval-records.ts";
import { ASK_LIMITS, askCallId, type AskView } from "../assistant-host/asks.ts";
import { stepSubject } from "../assistant-host/conversation.ts";
import { toolCommandOf } from "../assistant-host/tool-calls.ts";
import type { TurnFrame } from "../assistant-host/turn-host.ts";
import { replyId, type TurnSource } from "./turn-source.ts";

/** What the run is: AG-UI's thread and run, and the turn it follows (with its message and conversation). */
export interface RunIds {
  readonly threadId: string;
  readonly runId: string;
  readonly turn: string;
  readonly message: string;
  readonly conversation: string;
}

/** The events a run emits, and how it hears that it has ended. */
export interface RunSink {
  emit(event: BaseEvent): void;
  ended(): void;
}

/** Between the texts of two model calls, as the recorded reply joins them. */
const TEXT_JOINT = "\n\n";

export class TurnEvents {
  readonly #source: TurnSource;
  readonly #ids: RunIds;
  readonly #sink: RunSink;
  readonly #reply: string;
  readonly #calls = new Set<string>();
  readonly #results = new Set<string>();
  /** Steps from here on are not shown yet. */
  #cursor = 0;
  /** Steps before this one that are not shown yet are shown from their records, text included (it did not stream in this run). */
  #catchUp = 0;
  #textOpen = false;
  #hasText = false;
  #ended = false;
  #lastState = "";

  constructor(source: TurnSource, ids: RunIds, sink: RunSink) {
    this.#source = source;
    this.#ids = ids;
    this.#sink = sink;
    this.#reply = replyId(ids.message);
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Starts following (right after subscribing): what was shown before, what is shown now. `resumed`: the tool calls a resume answers (empty for a new turn). */
  prime(resumed: readonly string[]): void {
    const steps = this.#source.steps(this.#ids.turn);
    const at = resumed.length === 0 ? -1 : steps.findIndex((s) => s.body.kind === "model" && s.body.toolCalls.some((c) => resumed.includes(c.id)));
    const shown = resumed.length === 0 ? 0 : at === -1 ? steps.length : at + 1;
    for (const step of steps.slice(0, shown)) this.#mark(step);
    // That model call's tool calls before the first one resumed were settled (and shown) before the turn stopped to wait.
    const made = at === -1 ? [] : (steps[at]?.body.kind === "model" ? steps[at].body.toolCalls : []);
    const first = made.findIndex((c) => resumed.includes(c.id));
    const settled = new Set(made.slice(0, Math.max(0, first)).map((c) => c.id));
    for (const step of steps.slice(shown)) if (step.body.kind === "tool" && settled.has(step.body.toolCallId)) this.#results.add(step.body.toolCallId);
    this.#cursor = shown;
    this.#catchUp = steps.length;
    const turn = this.#source.turn(this.#ids.turn);
    if (turn !== null) this.#state(turn.status);
    this.#sync();
  }

  /** Once the run's own work is done (the message said, the resume decided): a turn that has ended or waits already ends the run now. */
  begin(): void {
    if (this.#ended) return;
    const turn = this.#source.turn(this.#ids.turn);
    if (turn === null) return;
    if (turn.status === "done" || turn.status === "failed" || turn.status === "cancelled") this.#status(turn.status, turn.error?.message);
    else if (turn.status === "waiting-approval" || turn.status === "waiting-ask") this.#status(turn.status);
  }

  /** One frame of `/api/events`: only the run's turn's matter. */
  onFrame(frame: TurnFrame): void {
    if (this.#ended || frame.fields.turn !== this.#ids.turn) return;
    const { delta, status, error, approval, ask } = frame.fields;
    if (frame.kind === "text" && typeof delta === "string" && delta !== "") this.#text(delta);
    else if (frame.kind === "turn" && typeof status === "string") {
      this.#status(status, typeof error === "string" ? error : undefined, typeof approval === "string" ? approval : typeof ask === "string" ? ask : undefined);
    }
  }

  /** Ends the run with `RUN_ERROR` (the node's own reason: a time limit, a failure); the turn itself goes on. */
  fail(code: string, message: string): void {
    if (this.#ended) return;
    this.#closeText();
    this.#end({ type: EventType.RUN_ERROR, code, message });
  }

  #text(delta: string): void {
    // A new model call streams only once the steps before it are recorded.
    if (this.#source.stepRecorded(this.#ids.turn, this.#cursor)) {
      this.#closeText();
      this.#sync();
    }
    this.#content(delta);
  }

  #content(delta: string): void {
    if (!this.#textOpen) {
      this.#emit({ type: EventType.TEXT_MESSAGE_START, messageId: this.#reply, role: "assistant" });
      this.#textOpen = true;
      if (this.#hasText) this.#emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.#reply, delta: TEXT_JOINT });
    }
    this.#emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.#reply, delta });
    this.#hasText = true;
  }

  #closeText(): void {
    if (!this.#textOpen) return;
    this.#emit({ type: EventType.TEXT_MESSAGE_END, messageId: this.#reply });
    this.#textOpen = false;
  }

  /** A change of the turn's status; `waitingFor`: the approval or ask it now waits for, when the frame named it. */
  #status(status: string, error?: string, waitingFor?: string): void {
    switch (status) {
      case "waiting-approval": {
        const approval = this.#source.waiting(this.#ids.turn, waitingFor);
        // An approval no longer waiting (decided by the run that resumes the turn) is not a new interrupt.
        if (approval === null) return;
        this.#closeText();
        this.#sync();
        this.#state(status, approval.id);
        this.#emit({ type: EventType.MESSAGES_SNAPSHOT, messages: this.#source.messages(this.#ids.conversation, this.#ids.turn) });
        this.#end({ type: EventType.RUN_FINISHED, threadId: this.#ids.threadId, runId: this.#ids.runId, outcome: { type: "interrupt", interrupts: [interruptOf(approval)] } });
        return;
      }
      case "waiting-ask": {
        const ask = this.#source.waitingAsk?.(this.#ids.turn, waitingFor) ?? null;
        // An ask no longer open (answered by the run that resumes the turn) is not a new interrupt.
        if (ask === null) return;
        this.#closeText();
        this.#sync();
        this.#state(status, undefined, ask.id);
        this.#emit({ type: EventType.MESSAGES_SNAPSHOT, messages: this.#source.messages(this.#ids.conversation, this.#ids.turn) });
        this.#end({ type: EventType.RUN_FINISHED, threadId: this.#ids.threadId, runId: this.#ids.runId, outcome: { type: "interrupt", interrupts: [askInterruptOf(ask, this.#source.steps(this.#ids.turn))] } });
        return;
      }
      case "done":
      case "failed":
      case "cancelled":
        this.#closeText();
        this.#sync();
        this.#state(status);
        this.#emit({ type: EventType.MESSAGES_SNAPSHOT, messages: this.#source.messages(this.#ids.conversation, this.#ids.turn) });
        if (status === "done") this.#end({ type: EventType.RUN_FINISHED, threadId: this.#ids.threadId, runId: this.#ids.runId, outcome: { type: "success" } });
        else if (status === "failed") this.#end({ type: EventType.RUN_ERROR, code: "turn-failed", message: error ?? "the turn failed" });
        else this.#end({ type: EventType.RUN_ERROR, code: "turn-cancelled", message: "the turn was cancelled" });
        return;
      default:
        this.#closeText();
        this.#sync();
        this.#state(status);
    }
  }

  /** Shows the recorded steps not shown yet. */
  #sync(): void {
    const steps = this.#source.steps(this.#ids.turn);
    for (const step of steps) {
      if (step.n < this.#cursor) continue;
      if (step.body.kind === "model" && step.n < this.#catchUp && step.body.text !== "") {
        this.#content(step.body.text);
        this.#closeText();
      }
      this.#show(step);
    }
    this.#cursor = Math.max(this.#cursor, steps.length);
  }

  #show(step: RecordedStep): void {
    const body = step.body;
    if (body.kind === "tool") {
      if (this.#results.has(body.toolCallId)) return;
      this.#results.add(body.toolCallId);
      this.#emit({ type: EventType.TOOL_CALL_RESULT, messageId: stepSubject(this.#ids.turn, step.n), toolCallId: body.toolCallId, content: body.content, role: "tool" });
      return;
    }
    for (const call of body.toolCalls) {
      if (this.#calls.has(call.id)) continue;
      this.#calls.add(call.id);
      this.#emit({ type: EventType.TOOL_CALL_START, toolCallId: call.id, toolCallName: call.name, parentMessageId: this.#reply });
      if (call.argumentsJson !== "") this.#emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: call.argumentsJson });
      this.#emit({ type: EventType.TOOL_CALL_END, toolCallId: call.id });
    }
  }

  /** Counts a step as shown by an earlier run. */
  #mark(step: RecordedStep): void {
    if (step.body.kind === "tool") this.#results.add(step.body.toolCallId);
    else {
      for (const call of step.body.toolCalls) this.#calls.add(call.id);
      if (step.body.text !== "") this.#hasText = true;
    }
  }

  #state(status: string, approval?: string, ask?: string): void {
    // A status seen twice (at the start, and again as the run begins) is one snapshot.
    const key = `${status} ${approval ?? ""} ${ask ?? ""}`;
    if (key === this.#lastState) return;
    this.#lastState = key;
    const { turn, conversation, message } = this.#ids;
    this.#emit({ type: EventType.STATE_SNAPSHOT, snapshot: { turn, status, conversation, message, ...(approval === undefined ? {} : { approval }), ...(ask === undefined ? {} : { ask }) } });
  }

  #emit(event: BaseEvent): void {
    this.#sink.emit(event);
  }

  #end(event: BaseEvent): void {
    this.#emit(event);
    this.#ended = true;
    this.#sink.ended();
  }
}

/** The AG-UI interrupt of a tool call's approval. */
export function interruptOf(approval: ApprovalView): Interrupt {
  const command = toolCommandOf(approval);
  const properties: Record<string, unknown> = { approved: { type: "boolean" } };
  if (command.kind === "action") properties.editedArgs = { type: "object", description: "the action's arguments to change: each one sent replaces the proposed one, the others stay" };
  return {
    id: approval.id,
    reason: "tool_call",
    message: approval.summary,
    toolCallId: command.toolCallId,
    responseSchema: { type: "object", properties, required: ["approved"] },
    ...(approval.expiresAt === null ? {} : { expiresAt: approval.expiresAt }),
    metadata: { tool: command.tool, sensitive: needsStepUp(approval) },
  };
}

/**
 * The AG-UI interrupt of an ask: the person's input is required. Its `metadata` holds the question
 * and its options; the answer a resume carries is `{choices: [option index…], text?}`, as `POST
 * /api/asks/{id}/answer` takes it (`responseSchema`).
 */
export function askInterruptOf(ask: AskView, steps: readonly RecordedStep[]): Interrupt {
  const call = askCallId(ask.id, steps);
  const last = Math.max(0, ask.options.length - 1);
  const properties: Record<string, unknown> = {
    choices: { type: "array", items: { type: "integer", minimum: 0, maximum: last }, uniqueItems: true, maxItems: ask.multiple ? ask.options.length : 1 },
  };
  if (ask.allowOther) properties.text = { type: "string", maxLength: ASK_LIMITS.text };
  return {
    id: ask.id,
    reason: "input_required",
    message: ask.question,
    ...(call === null ? {} : { toolCallId: call }),
    responseSchema: { type: "object", properties, additionalProperties: false },
    ...(ask.expiresAt === null ? {} : { expiresAt: ask.expiresAt }),
    metadata: { question: ask.question, options: ask.options.map((o) => ({ label: o.label, description: o.description })), multiple: ask.multiple, allowOther: ask.allowOther },
  };
}
