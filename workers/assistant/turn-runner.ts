/**
 * @module One turn, run by the assistant worker: load what it starts from (the gateway answers),
 * replay its recorded steps, settle the tool calls the last model call left, then call the model
 * and the tools until the model answers without asking for tools — streaming its text as it comes,
 * recording each step before the next, and stopping to wait (the turn parks) when a call needs the
 * person's approval. Every step is recorded before it is built on, so a turn stopped anywhere (a
 * crash, a kill -9 of this worker or of the whole node) resumes from its last recorded step, and a
 * tool call is never carried out twice: its approval is named after its place in the turn, and
 * the command it signs carries the approval's id as its idempotency key.
 *
 * Models are tried in the route's order: the chosen one, then its fallbacks; each with retries for
 * failures that may pass (withRetries). A failure with nothing streamed yet moves on to the next
 * model; all failing, the turn fails with the last failure's kind, for the person to retry.
 */
import type { Logger } from "../../shared/log.ts";
import { type ChatMessage, isModelError, ModelError, type ModelProvider, type ModelRequest, type ToolCall } from "../../shared/models/model.ts";
import { withRetries } from "../../shared/models/retry.ts";
import type { AssistantHostRequests, AssistantNotices, RecordedStep, RouteModel, TurnLoad, TurnWrite } from "../../shared/protocol/assistant.ts";

/** What the runner needs: the gateway's answers, a way to send it frames, providers for a route. */
export interface TurnRunnerDeps {
  request<K extends keyof AssistantHostRequests & string>(type: K, body: AssistantHostRequests[K]["request"]): Promise<AssistantHostRequests[K]["response"]>;
  notify<K extends keyof AssistantNotices & string>(type: K, body: AssistantNotices[K]): void;
  provider(model: RouteModel): ModelProvider;
  readonly log: Logger;
  readonly now?: () => number;
}

/** How a run ended: the turn is over, or waits (for an approval), or was not this run's to do. */
export type RunEnd = "ended" | "parked" | "idle";

/**
 * The most characters one model call may stream (its text and its tool calls' arguments): a
 * provider that keeps sending is cut off here instead of filling this worker's memory.
 */
export const MAX_ANSWER_CHARS = 200_000;

/** The back-off between retries of one model. */
const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 30_000;

/** Runs turn `id` from where it stands. `signal` cancels it (the partial text is kept and marked). */
export async function runTurn(deps: TurnRunnerDeps, id: string, signal: AbortSignal): Promise<RunEnd> {
  const now = deps.now ?? Date.now;
  const load = await deps.request("turn-load", { turn: id });
  if (load === null) return "idle";
  const status = load.turn.status;
  if (status === "done" || status === "failed" || status === "cancelled") return "idle";

  const steps = [...load.steps];
  const transcript: ChatMessage[] = [...load.messages];
  for (const step of steps) transcript.push(messageOf(step));
  const texts = steps.flatMap((s) => (s.body.kind === "model" && s.body.text !== "" ? [s.body.text] : []));
  let route = load.route;

  const write = async (w: TurnWrite) => {
    const answer = await deps.request("turn-write", w);
    if (!answer.ok) throw new TurnWriteError(answer.error);
    return answer;
  };
  const end = async (kind: "done" | "failed" | "cancelled", error?: { kind: string; message: string }, partialText?: string) => {
    const text = [...texts, ...(partialText === undefined || partialText === "" ? [] : [partialText])].join("\n\n");
    await write({ op: "end", turn: id, status: kind, text, partial: kind !== "done", ...(error === undefined ? {} : { error }) });
    deps.notify("turn", { turn: id, status: kind, ...(error === undefined ? {} : { error: error.message }) });
    return "ended" as const;
  };

  let started = status === "running" || status === "queued" ? null : false;
  const start = async (model: RouteModel | undefined) => {
    if (started === true) return;
    started = true;
    await write({ op: "start", turn: id, connection: model?.connection ?? "", model: model?.model ?? "" });
    deps.notify("turn", { turn: id, status: "running" });
  };

  try {
    if (route.length === 0) {
      await start(undefined);
      return await end("failed", { kind: "no-model", message: "no model is configured: set one up in the settings (/api/setup/model)" });
    }
    for (;;) {
      if (signal.aborted) {
        await start(route[0]);
        return await end("cancelled");
      }
      // The calls the last model step asked for that have no recorded result yet.
      const lastModel = [...steps].reverse().find((s) => s.body.kind === "model");
      const answered = new Set(steps.flatMap((s) => (s.body.kind === "tool" ? [s.body.toolCallId] : [])));
      const pending = lastModel !== undefined && lastModel.body.kind === "model" ? lastModel.body.toolCalls.map((call, index) => ({ call, index })).filter(({ call }) => !answered.has(call.id)) : [];
      if (pending.length > 0 && lastModel !== undefined && lastModel.body.kind === "model") {
        const connection = lastModel.body.connection;
        for (const { call, index } of pending) {
          const t0 = now();
          const outcome = await deps.request("tool-call", { turn: id, step: lastModel.n, index, connection, call });
          if (outcome.kind === "approval" || outcome.kind === "ask") {
            // Parked until the person decides (or answers); a turn loaded already waiting stays as it is.
            if (started !== false) {
              await start(route[0]);
              if (outcome.kind === "approval") {
                await write({ op: "wait-approval", turn: id });
                deps.notify("turn", { turn: id, status: "waiting-approval", approval: outcome.approval });
              } else {
                await write({ op: "wait-ask", turn: id });
                deps.notify("turn", { turn: id, status: "waiting-ask", ask: outcome.ask });
              }
            }
            return "parked";
          }
          await start(route[0]);
          const step: RecordedStep = { n: steps.length, body: { kind: "tool", toolCallId: call.id, name: call.name, content: outcome.content, isError: outcome.isError, ...(outcome.approval === undefined ? {} : { approval: outcome.approval }) }, tokensIn: 0, tokensOut: 0, ms: now() - t0 };
          await write({ op: "step", turn: id, step });
          steps.push(step);
          transcript.push(messageOf(step));
        }
        continue;
      }
      await start(route[0]);
      // The last model call answered without tools (a crash came before the turn's end was recorded).
      if (lastModel !== undefined && lastModel.body.kind === "model" && lastModel.body.toolCalls.length === 0 && steps[steps.length - 1] === lastModel) return await end("done");
      const calls = steps.filter((s) => s.body.kind === "model").length;
      if (calls >= load.maxModelCalls) return await end("failed", { kind: "too-many-steps", message: `the model asked for tools ${calls} times without answering; stopped` });
      if (load.maxTokens !== null) {
        let spent = 0;
        for (const s of steps) spent += s.tokensIn + s.tokensOut;
        if (spent >= load.maxTokens) return await end("failed", { kind: "budget", message: `the turn spent ${spent} tokens of its budget of ${load.maxTokens}; stopped` });
      }

      const t0 = now();
      const called = await callModels(deps, id, load, route, transcript, signal);
      if (called.kind === "cancelled") return await end("cancelled", undefined, called.text);
      if (called.kind === "failed") return await end("failed", { kind: called.error.kind, message: called.error.message }, called.text);
      route = called.route;
      const { result, model } = called;
      const step: RecordedStep = {
        n: steps.length,
        body: { kind: "model", text: result.text, toolCalls: result.toolCalls, stopReason: result.stopReason, model: model.model, connection: model.connection },
        tokensIn: result.inputTokens,
        tokensOut: result.outputTokens,
        ms: now() - t0,
      };
      await write({ op: "step", turn: id, step });
      steps.push(step);
      transcript.push(messageOf(step));
      if (result.text !== "") texts.push(result.text);
      if (result.toolCalls.length === 0) return await end("done");
    }
  } catch (error) {
    if (error instanceof TurnWriteError) {
      // The turn's record refused the write: another hand ended it (cancelled while queued) — nothing more to do.
      deps.log.info("turn stopped: its record refused a write", { turn: id, error: error.message });
      return "idle";
    }
    throw error;
  }
}

class TurnWriteError extends Error {}

interface ModelResult {
  text: string;
  toolCalls: ToolCall[];
  stopReason: string;
  inputTokens: number;
  outputTokens: number;
}

type Called =
  | { kind: "ok"; result: ModelResult; model: RouteModel; route: readonly RouteModel[] }
  | { kind: "cancelled"; text: string }
  | { kind: "failed"; error: ModelError; text: string };

/** Calls the route's models in order until one answers; streams its text as it comes. */
async function callModels(deps: TurnRunnerDeps, turn: string, load: TurnLoad, route: readonly RouteModel[], transcript: readonly ChatMessage[], signal: AbortSignal): Promise<Called> {
  let last: ModelError | null = null;
  for (let i = 0; i < route.length; i++) {
    const model = route[i] as RouteModel;
    const memory = model.memory && load.memory !== "";
    const memoryTools = new Set(load.memoryTools);
    const request: ModelRequest = {
      model: model.model,
      system: memory ? `${load.system}\n\n${load.memory}` : load.system,
      messages: [...transcript],
      tools: model.memory ? [...load.tools] : load.tools.filter((t) => !memoryTools.has(t.name)),
      maxTokens: model.maxTokens,
      ...(model.temperature === null ? {} : { temperature: model.temperature }),
    };
    const result: ModelResult = { text: "", toolCalls: [], stopReason: "end", inputTokens: 0, outputTokens: 0 };
    try {
      const provider = deps.provider(model);
      const events = withRetries(() => provider.stream(request, signal), { maxAttempts: model.retries + 1, baseMs: RETRY_BASE_MS, maxMs: RETRY_MAX_MS, signal });
      let chars = 0;
      for await (const event of events) {
        if (event.type === "text" || event.type === "tool-call-delta") {
          chars += event.type === "text" ? event.delta.length : event.argumentsDelta.length;
          if (chars > MAX_ANSWER_CHARS) throw new ModelError("malformed", `the model's answer ran past ${MAX_ANSWER_CHARS} characters; it was cut off`);
        }
        switch (event.type) {
          case "text":
            result.text += event.delta;
            deps.notify("text", { turn, delta: event.delta });
            break;
          case "tool-call":
            result.toolCalls.push({ id: event.id, name: event.name, argumentsJson: event.argumentsJson });
            break;
          case "usage":
            result.inputTokens = event.inputTokens;
            result.outputTokens = event.outputTokens;
            break;
          case "done":
            result.stopReason = event.stopReason;
            break;
          case "tool-call-delta":
            break;
        }
      }
      // The models after this one stay as fallbacks for the next call of the turn; this one goes first.
      return { kind: "ok", result, model, route: [model, ...route.filter((m) => m !== model)] };
    } catch (caught) {
      const error = isModelError(caught) ? caught : new ModelError("server", caught instanceof Error ? caught.message : String(caught));
      if (error.kind === "cancelled" || signal.aborted) return { kind: "cancelled", text: result.text };
      // Text already shown cannot be taken back: the turn fails with what it had.
      if (result.text !== "" || result.toolCalls.length > 0) return { kind: "failed", error, text: result.text };
      deps.log.warn("model call failed", { turn, connection: model.connection, model: model.model, kind: error.kind, error: error.message, fallback: i + 1 < route.length });
      last = error;
    }
  }
  return { kind: "failed", error: last ?? new ModelError("server", "no model answered"), text: "" };
}

/** A recorded step as the model's transcript holds it. */
function messageOf(step: RecordedStep): ChatMessage {
  if (step.body.kind === "model") return { role: "assistant", content: step.body.text, toolCalls: [...step.body.toolCalls] };
  return { role: "tool", toolCallId: step.body.toolCallId, content: step.body.content, isError: step.body.isError };
}
