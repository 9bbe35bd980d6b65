/**
 * @module The assistant's built-in `ask_person` tool: the model asks the person to choose among
 * 2–8 options (one, or several; maybe an answer of their own), and its turn waits for the answer.
 * It is offered in every turn that has tools, beside the contracts' tools (it is none of them:
 * no tool setting turns it off, since asking changes nothing). A call opens an ask (`OpenAsk`)
 * named after the call's place in the turn, with a fixed idempotency key, so a turn resumed after
 * a crash finds its ask instead of asking twice; while the ask is open the call answers that the
 * turn waits (`{kind: "ask"}`), and once answered, the same call answers the person's choices.
 */
import type { ToolCall, ToolSpec } from "../../../../shared/models/model.ts";
import type { ToolOutcome } from "../../../../shared/protocol/assistant.ts";
import { receiptOf } from "../../../../shared/identity/index.ts";
import { ASK_LIMITS, askId, type AskView, type AskWriteDeps, expireAsk, findAsk } from "./asks.ts";
import { CONVERSATION } from "./conversation.ts";

/** The call name the model asks with. */
export const ASK_TOOL = "ask_person";
/** The most characters of a call's arguments read (a question and eight whole options fit well within). */
const MAX_ARGUMENTS_CHARS = 16_000;

/** The tool as the model is offered it. */
export const ASK_TOOL_SPEC: ToolSpec = {
  name: ASK_TOOL,
  description:
    "Ask the person to choose among a few options (a step of a wizard) when you need their decision to go on; your turn waits for the answer, " +
    "and the call's result is their choice: {choices: [the chosen labels], text: their own words, or \"\"}. Ask one question at a time, with 2 to 8 short options. " +
    "Set multiple to let them choose several, allowOther to let them answer in their own words.",
  parameters: {
    type: "object",
    properties: {
      question: { type: "string", minLength: 1, maxLength: ASK_LIMITS.question, description: "the question, in one or two sentences" },
      options: {
        type: "array",
        minItems: ASK_LIMITS.minOptions,
        maxItems: ASK_LIMITS.maxOptions,
        items: {
          type: "object",
          properties: {
            label: { type: "string", minLength: 1, maxLength: ASK_LIMITS.label, description: "what the person chooses: a few words, unlike every other label" },
            description: { type: "string", maxLength: ASK_LIMITS.description, description: "what choosing it means, when the label does not say" },
          },
          required: ["label"],
          additionalProperties: false,
        },
      },
      multiple: { type: "boolean", description: "whether the person may choose several options (default false)" },
      allowOther: { type: "boolean", description: "whether the person may answer in their own words instead (default false)" },
    },
    required: ["question", "options"],
    additionalProperties: false,
  },
};

/** What an ask is opened with, once its call's arguments are checked. */
export interface AskArguments {
  readonly question: string;
  readonly options: readonly { readonly label: string; readonly description: string }[];
  readonly multiple: boolean;
  readonly allowOther: boolean;
}

/** The call's arguments checked against the tool's parameters; the error says, for the model, what is wrong. */
export function parseAskArguments(json: string): { ok: true; ask: AskArguments } | { ok: false; error: string } {
  if (json.length > MAX_ARGUMENTS_CHARS) return { ok: false, error: `the arguments are longer than ${MAX_ARGUMENTS_CHARS} characters` };
  let value: unknown;
  try {
    value = JSON.parse(json === "" ? "{}" : json);
  } catch {
    return { ok: false, error: "the arguments are not JSON" };
  }
  if (!isObject(value)) return { ok: false, error: "the arguments are an object: {question, options, multiple?, allowOther?}" };
  const unknown = Object.keys(value).filter((k) => !["question", "options", "multiple", "allowOther"].includes(k));
  if (unknown.length > 0) return { ok: false, error: `unknown argument ${JSON.stringify(unknown[0]?.slice(0, 64))}` };
  const { question, options, multiple, allowOther } = value;
  if (typeof question !== "string" || question.trim() === "" || question.length > ASK_LIMITS.question) return { ok: false, error: `question is a string of 1 to ${ASK_LIMITS.question} characters` };
  if (!Array.isArray(options) || options.length < ASK_LIMITS.minOptions || options.length > ASK_LIMITS.maxOptions) return { ok: false, error: `options is a list of ${ASK_LIMITS.minOptions} to ${ASK_LIMITS.maxOptions} options` };
  const parsed: { label: string; description: string }[] = [];
  for (const [i, option] of options.entries()) {
    if (!isObject(option) || Object.keys(option).some((k) => k !== "label" && k !== "description")) return { ok: false, error: `options[${i}] is an object {label, description?}` };
    const { label, description } = option;
    if (typeof label !== "string" || label.trim() === "" || label.length > ASK_LIMITS.label) return { ok: false, error: `options[${i}].label is a string of 1 to ${ASK_LIMITS.label} characters` };
    if (description !== undefined && (typeof description !== "string" || description.length > ASK_LIMITS.description)) return { ok: false, error: `options[${i}].description is a string of at most ${ASK_LIMITS.description} characters` };
    if (parsed.some((p) => p.label === label.trim())) return { ok: false, error: `options[${i}].label repeats another option's label: each must be different` };
    parsed.push({ label: label.trim(), description: typeof description === "string" ? description.trim() : "" });
  }
  if (multiple !== undefined && typeof multiple !== "boolean") return { ok: false, error: "multiple is true or false" };
  if (allowOther !== undefined && typeof allowOther !== "boolean") return { ok: false, error: "allowOther is true or false" };
  return { ok: true, ask: { question: question.trim(), options: parsed, multiple: multiple === true, allowOther: allowOther === true } };
}

/** What the tool needs: writing and reading asks, the clock, and how long a new ask waits. */
export interface AskToolDeps extends AskWriteDeps {
  readonly askMs: number;
}

/** Decides a call of `ask_person`: opens its ask, or answers what became of it. */
export async function handleAskCall(deps: AskToolDeps, request: { turn: string; step: number; index: number; call: ToolCall }): Promise<ToolOutcome> {
  const id = askId(request.turn, request.step, request.index);
  const existing = findAsk(deps.reader, id, deps.now());
  if (existing !== null) return settled(deps, existing);
  const parsed = parseAskArguments(request.call.argumentsJson);
  if (!parsed.ok) return error(`The arguments do not fit ${ASK_TOOL}: ${parsed.error}. Nothing was asked.`);
  const { question, options, multiple, allowOther } = parsed.ask;
  const args = {
    turn: request.turn,
    question,
    labels: options.map((o) => o.label),
    descriptions: options.map((o) => o.description),
    multiple,
    allow_other: allowOther,
    expires_at: deps.now() + deps.askMs,
  };
  const answer = await deps.writer.act({ namespace: CONVERSATION, action: "OpenAsk", subject: id, args, idempotencyKey: `${id}:open` });
  if (answer.kind === "problem") return error(`The question could not be put to the person: ${answer.problem.detail ?? answer.problem.title}`);
  if (answer.outcome === "refused") return error(`The question could not be put to the person: ${receiptOf(answer.jws).reason?.message ?? "refused"}`);
  const opened = findAsk(deps.reader, id, deps.now());
  if (opened !== null) deps.onAsk?.(opened);
  return { kind: "ask", ask: id };
}

/** What the model is told of an ask it made: still waiting, the answer, or why there is none. */
async function settled(deps: AskToolDeps, ask: AskView): Promise<ToolOutcome> {
  switch (ask.status) {
    case "open":
      return { kind: "ask", ask: ask.id };
    case "answered": {
      const answer = ask.answer ?? { labels: [], text: "" };
      return { kind: "result", content: JSON.stringify({ choices: answer.labels, text: answer.text }), isError: false };
    }
    case "expired":
      // Past its time but not yet recorded so: recorded once, here.
      await expireAsk(deps, ask);
      return error("The person did not answer in time: the question expired. Go on without their answer, or ask again later if it still matters.");
    case "cancelled":
      return error("The question was withdrawn: the person cancelled the turn.");
  }
}

function error(content: string): ToolOutcome {
  return { kind: "result", content, isError: true };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
