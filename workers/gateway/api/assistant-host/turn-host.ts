/**
 * @module The gateway's side of the assistant channel (shared/protocol/assistant.ts): it listens on
 * `DATA/run/assistant.sock` (mode 0600) and answers the assistant worker — what a turn starts from,
 * recording what it did as the person, deciding its tool calls — and relays its streamed text and
 * turn changes to `/api/events`. It also queues turns: a turn to run (or to resume, once what it
 * waited for is decided) is a `turn` entry of the journal, written before the assistant is woken,
 * so a turn is never lost to a crash of either worker.
 */
import type { Server } from "node:net";
import type { Channel } from "../../../../shared/channel/channel.ts";
import { listenPrivateChannels } from "../../../../shared/channel/socket.ts";
import type { Logger } from "../../../../shared/log.ts";
import type { AssistantHostNotices, AssistantHostRequests, AssistantNotices, RecordedStep, TurnHead, TurnWrite } from "../../../../shared/protocol/assistant.ts";
import type { EngineLink } from "../../../../shared/worker/engine-link.ts";
import type { ApprovalView } from "../approvals/approval-records.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWrite, PersonWriter } from "../personal/person-writer.ts";
import { frameJson } from "../events/frames.ts";
import { receiptOf } from "../../../../shared/identity/index.ts";
import { CONVERSATION, findTurn, stepsOf, stepSubject, type TurnView } from "./conversation.ts";
import { handleToolCall, type ToolCallDeps } from "./tool-calls.ts";
import { loadTurn, type TurnContextDeps } from "./turn-context.ts";
import { type AskView, withdrawAsks } from "./asks.ts";

/** A frame as the node's own listeners hear it (the same as `/api/events` sends). */
export interface TurnFrame {
  readonly kind: "text" | "turn" | "approval" | "ask";
  readonly fields: Readonly<Record<string, unknown>>;
}

type HostChannel = Channel<AssistantHostNotices & Record<string, never>, AssistantHostRequests, AssistantHostNotices, AssistantNotices>;

/** The journal topic of turns to run. */
export const TURN_TOPIC = "turn";
/** A step's body is cut to fit the contract's field. */
const STEP_BODY_CHARS = 60_000;
/** The most turns `turns-active` answers. */
const ACTIVE_LIMIT = 200;

export interface TurnHostDeps extends TurnContextDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  /** How long a new approval waits (tool-calls.ts DEFAULT_APPROVAL_MS when absent). */
  readonly approvalMs?: number;
  readonly engine: Pick<EngineLink, "request">;
  readonly log: Logger;
  /** Sends a frame to every `/api/events` client. */
  readonly broadcast: (json: Buffer) => void;
}

export class TurnHost {
  readonly #deps: TurnHostDeps;
  readonly #channels = new Set<HostChannel>();
  readonly #listeners = new Set<(frame: TurnFrame) => void>();
  #server: Server | null = null;
  #frames = 0;

  constructor(deps: TurnHostDeps) {
    this.#deps = deps;
  }

  /** Listens for the assistant worker. */
  async listen(path: string): Promise<void> {
    this.#server = await listenPrivateChannels<AssistantHostNotices & Record<string, never>, AssistantHostRequests>(path, (channel) => this.#accept(channel as unknown as HostChannel));
  }

  /** Whether an assistant worker is connected now. */
  get connected(): boolean {
    return this.#channels.size > 0;
  }

  /** Queues turn `turn` to run (or resume): a journal entry, then the assistant woken. `key` makes the queuing once-only. */
  async enqueue(turn: string, key: string): Promise<void> {
    await this.#deps.engine.request("journal-append", { topic: TURN_TOPIC, payload: { turn }, key });
    this.wake();
  }

  /** Tells the assistant there is work. */
  wake(): void {
    for (const channel of this.#channels) {
      channel.notify("wake", {});
      channel.flush();
    }
  }

  /** Tells the assistant to stop turn `turn` (it records what it had); false when no assistant is connected. */
  cancel(turn: string): boolean {
    for (const channel of this.#channels) {
      channel.notify("cancel", { turn });
      channel.flush();
    }
    return this.#channels.size > 0;
  }

  /** Hears every frame sent to `/api/events` from here (AG-UI runs follow their turn so); answers how to stop. */
  subscribe(listener: (frame: TurnFrame) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sends a `turn` frame: the turn's status changed. */
  turnFrame(turn: string, status: TurnHead["status"], extra: Record<string, unknown> = {}): void {
    this.#send("turn", { turn, status, ...extra });
  }

  /** Sends an `approval` frame: an approval was proposed, decided, carried out or expired. */
  approvalFrame(approval: ApprovalView): void {
    const { id, kind, summary, status, sensitive, turn, expiresAt, outcome } = approval;
    // The approval's own kind under its own name: a frame's `kind` is the frame's ("approval").
    this.#send("approval", { approval: id, approvalKind: kind, summary, status, sensitive, turn, expiresAt, outcome });
  }

  /** Sends an `ask` frame: an ask was opened, answered, expired or withdrawn. */
  askFrame(ask: AskView): void {
    const { id, turn, question, status, expiresAt } = ask;
    this.#send("ask", { ask: id, turn, question, status, expiresAt });
  }

  #send(kind: TurnFrame["kind"], fields: Record<string, unknown>): void {
    this.#deps.broadcast(frameJson(kind, this.#frameId(kind), fields));
    for (const listener of this.#listeners) listener({ kind, fields });
  }

  close(): void {
    this.#server?.close();
    for (const channel of this.#channels) channel.close();
    this.#channels.clear();
  }

  #frameId(kind: string): string {
    this.#frames += 1;
    return `${kind}-${this.#frames}`;
  }

  #accept(channel: HostChannel): void {
    this.#channels.add(channel);
    channel.onClose(() => this.#channels.delete(channel));
    channel.onError((error) => this.#deps.log.warn("assistant channel error", { error: String(error) }));
    const toolDeps: ToolCallDeps = { ...this.#deps, onApproval: (a) => this.approvalFrame(a), onAsk: (a) => this.askFrame(a) };
    channel.handleAll({
      "turn-load": ({ turn }) => loadTurn(this.#deps, turn),
      "turn-write": (write) => this.#write(write),
      "tool-call": (request) => handleToolCall(toolDeps, request),
      "turns-active": () => {
        const { rows } = this.#deps.reader.query(undefined, CONVERSATION, "Active", { limit: ACTIVE_LIMIT });
        return rows.map((r) => String(r.id));
      },
    });
    channel.onNotice("text", ({ turn, delta }) => {
      if (typeof turn === "string" && typeof delta === "string") this.#send("text", { turn, delta });
    });
    channel.onNotice("turn", ({ turn, status, error, approval, ask }) => {
      if (typeof turn === "string" && typeof status === "string") this.turnFrame(turn, status, { ...(error === undefined ? {} : { error }), ...(approval === undefined ? {} : { approval }), ...(ask === undefined ? {} : { ask }) });
    });
  }

  async #write(write: TurnWrite): Promise<{ ok: true; message?: string } | { ok: false; error: string }> {
    switch (write.op) {
      case "start":
        return this.#act({ namespace: CONVERSATION, action: "Start", subject: write.turn, args: { connection: write.connection.slice(0, 64), model: write.model.slice(0, 200) } });
      case "step":
        return this.#act(stepWrite(write.turn, write.step));
      case "wait-approval":
        return this.#act({ namespace: CONVERSATION, action: "WaitApproval", subject: write.turn, args: {} });
      case "wait-ask":
        return this.#act({ namespace: CONVERSATION, action: "WaitAsk", subject: write.turn, args: {} });
      case "end":
        return this.#end(write);
    }
  }

  /** Records the reply (when there is text) and the turn's end, with its steps and tokens. */
  async #end(write: Extract<TurnWrite, { op: "end" }>): Promise<{ ok: true; message?: string } | { ok: false; error: string }> {
    const turn = findTurn(this.#deps.reader, write.turn);
    if (turn === null) return { ok: false, error: `no turn ${write.turn}` };
    const shape = this.#deps.shapes?.get(turn.origin);
    let reply = "";
    if (write.text !== "" && shape?.reply !== false) {
      // Named after the person's message, so it lists right after it and a resumed turn cannot answer twice.
      reply = `${turn.message}.r`;
      const action = write.partial ? "ReplyPartial" : "Reply";
      const r = await this.#act({ namespace: CONVERSATION, action, subject: reply, args: { conversation: turn.conversation, text: write.text.slice(0, 32_000), turn: turn.id }, idempotencyKey: `${reply}:reply` });
      // Refused: a run before this one recorded the reply already (a resumed turn does not answer twice).
      if (!r.ok && !r.refused) return r;
    }
    const steps = stepsOf(this.#deps.reader, turn.id);
    const totals = { steps: steps.length, tokens_in: sum(steps, (s) => s.tokensIn), tokens_out: sum(steps, (s) => s.tokensOut) };
    const ended =
      write.status === "done"
        ? await this.#act({ namespace: CONVERSATION, action: "Finish", subject: turn.id, args: { reply, ...totals } })
        : write.status === "failed"
          ? await this.#act({ namespace: CONVERSATION, action: "Fail", subject: turn.id, args: { reply, error: (write.error?.message ?? "failed").slice(0, 500) || "failed", error_kind: (write.error?.kind ?? "").slice(0, 32), ...totals } })
          : await this.#act({ namespace: CONVERSATION, action: "Cancel", subject: turn.id, args: { reply, ...totals } });
    if (!ended.ok) return ended;
    await this.afterEnd(turn, write.status, write.text);
    return { ok: true, ...(reply === "" ? {} : { message: reply }) };
  }

  /**
   * What follows the recorded end of `turn` — here, or by a route that ended a queued or waiting
   * turn itself (`POST /api/cancel`): a cancelled turn's open asks are withdrawn, and its shape's
   * `ended` runs. Never throws: what fails is logged (and done again by the next look at it).
   */
  async afterEnd(turn: TurnView, status: "done" | "failed" | "cancelled", text: string): Promise<void> {
    try {
      if (status === "cancelled") await withdrawAsks({ ...this.#deps, onAsk: (a) => this.askFrame(a) }, turn.id);
      await this.#deps.shapes?.get(turn.origin)?.ended?.(turn, status, text);
    } catch (error) {
      this.#deps.log.error("what follows a turn's end failed", { turn: turn.id, origin: turn.origin, error: String(error) });
    }
  }

  async #act(write: PersonWrite): Promise<{ ok: true } | { ok: false; refused: boolean; error: string }> {
    const answer = await this.#deps.writer.act(write);
    if (answer.kind === "problem") return { ok: false, refused: false, error: `${write.action}: ${answer.problem.detail ?? answer.problem.title}` };
    if (answer.outcome === "refused") return { ok: false, refused: true, error: `${write.action} refused: ${receiptOf(answer.jws).reason?.message ?? "no reason recorded"}` };
    return { ok: true };
  }
}

/** The `Record` of one step, its body cut to the field's length. */
function stepWrite(turn: string, step: RecordedStep): PersonWrite {
  let body = JSON.stringify(step.body);
  if (body.length > STEP_BODY_CHARS) {
    const cut = step.body.kind === "model" ? { ...step.body, text: step.body.text.slice(0, 20_000), toolCalls: step.body.toolCalls.map((c) => ({ ...c, argumentsJson: c.argumentsJson.slice(0, 4000) })) } : { ...step.body, content: step.body.content.slice(0, 20_000) };
    body = JSON.stringify(cut);
    // Still too long (many large calls): the record stays valid JSON, with what it could not keep left empty.
    if (body.length > STEP_BODY_CHARS) body = JSON.stringify(step.body.kind === "model" ? { ...cut, text: "", toolCalls: step.body.toolCalls.map((c) => ({ ...c, argumentsJson: "" })) } : { ...cut, content: "" });
  }
  const subject = stepSubject(turn, step.n);
  return {
    namespace: CONVERSATION,
    action: "Record",
    subject,
    args: { turn, n: step.n, kind: step.body.kind, body, tokens_in: step.tokensIn, tokens_out: step.tokensOut, ms: Math.max(0, Math.round(step.ms)) },
    idempotencyKey: `${subject}:record`,
  };
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += of(item);
  return total;
}
