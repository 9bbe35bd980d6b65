/**
 * @module What a turn starts from (`turn-load`): the turn's record and recorded steps, the models
 * to call, the system text (the date, the persona, the standing rules, how tools work), the memory
 * notes apart (only a model whose connection may see memory is given them), the conversation so far,
 * and the tools offered. Everything is read in the personal tenant through `PersonReader`; each
 * part is bounded, so a long conversation or a large memory never makes an unbounded prompt.
 */
import type { ChatMessage } from "../../../../shared/models/model.ts";
import type { RouteModel, TurnLoad } from "../../../../shared/protocol/assistant.ts";
import { HttpProblem } from "../../../../shared/problem.ts";
import { zonedText } from "../time-zone.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { Connections } from "./connections.ts";
import { CONVERSATION, findTurn, messageView, stepsOf, type TurnView } from "./conversation.ts";
import { routeFor, vendorCallSettings, type WorkKind } from "./model-route.ts";
import type { NodeSettings } from "./node-settings.ts";
import { clipText } from "./contract-docs.ts";
import { offeredTools, toolCatalogue } from "./tool-catalogue.ts";
import { ASK_TOOL, ASK_TOOL_SPEC } from "./ask-tool.ts";
import { historySegments, rootConversation } from "./branches.ts";

/** The most earlier messages given to the model, and their most characters in all. */
const HISTORY_MESSAGES = 40;
const HISTORY_CHARS = 48_000;
/** The most memory notes and standing rules, and their most characters each part. */
const MEMORY_NOTES = 50;
const RULES = 50;
const PART_CHARS = 8_000;
/** At most this many model calls in one turn: a model that keeps calling tools is stopped. */
export const MAX_MODEL_CALLS = 12;
/** The namespace whose tools read and write memory. */
export const MEMORY_NAMESPACE = "std.memory";

export interface TurnContextDeps {
  readonly reader: PersonReader;
  readonly settings: NodeSettings;
  readonly connections: Connections;
  readonly now: () => number;
  readonly timeZone: () => string;
  /** How turns of each origin other than a person's message differ (by the turn's `origin`). */
  readonly shapes?: ReadonlyMap<string, TurnShape>;
  /** What the model is told of a message's attached library files (their names, small texts' contents). */
  readonly attachments?: (ids: readonly string[]) => string;
}

/**
 * How a turn the node starts itself (a branch's merge, an autonomy run) differs from one answering
 * a person's message: the kind of work its models are routed for, its token budget, what the model
 * is given, and what is done once its end is recorded. Every part left out is the conversation's.
 */
export interface TurnShape {
  readonly kind: WorkKind;
  /** The most tokens the turn may spend (null: no budget). */
  maxTokens?(turn: TurnView): number | null;
  /** The system text, given the conversation's. */
  system?(base: string, turn: TurnView): string;
  /** The messages the model is given, instead of the turn's conversation up to its message. */
  messages?(turn: TurnView): ChatMessage[];
  /** Whether the turn is offered tools (default true). */
  readonly tools?: boolean;
  /** Whether the turn's text is kept as a reply in its conversation (default true); false: `ended` does what is to be done with it. */
  readonly reply?: boolean;
  /** Runs once the turn's end is recorded, with the text of its reply ("" when it had none). */
  ended?(turn: TurnView, status: "done" | "failed" | "cancelled", text: string): Promise<void>;
}

/** Whether memory is on for `conversation` (the `memory` setting: `{off: [conversation…]}`). */
export function memoryOn(settings: NodeSettings, conversation: string): boolean {
  const off = settings.get<{ off?: unknown }>("memory", {}).off;
  return !(Array.isArray(off) && off.includes(conversation));
}

/** The models to call for `kind`, with their call settings, in the order to try them. */
export function routeModels(deps: Pick<TurnContextDeps, "settings" | "connections">, kind: WorkKind): RouteModel[] {
  return routeFor(kind, deps.settings, deps.connections).map(({ connection, model }) => {
    const call = vendorCallSettings(deps.settings, connection.provider);
    return {
      connection: connection.id,
      provider: connection.provider,
      baseUrl: connection.baseUrl,
      key: connection.key,
      model,
      maxTokens: call.maxTokens,
      temperature: call.temperature,
      responseTimeoutMs: call.responseTimeoutSeconds * 1000,
      idleTimeoutMs: call.idleTimeoutSeconds * 1000,
      retries: call.retries,
      memory: connection.memory,
    };
  });
}

/** What turn `id` starts from, or null when there is no such turn. */
export function loadTurn(deps: TurnContextDeps, id: string): TurnLoad | null {
  const turn = findTurn(deps.reader, id);
  if (turn === null) return null;
  const shape = deps.shapes?.get(turn.origin);
  // A branch follows the memory setting of the conversation it descends from.
  const memory = memoryOn(deps.settings, rootConversation(deps.reader, turn.conversation));
  const catalogue = shape?.tools === false ? [] : toolCatalogue(deps.reader, deps.settings).filter((t) => (memory || t.namespace !== MEMORY_NAMESPACE) && t.callName !== ASK_TOOL);
  const offered = new Set(offeredTools(catalogue).map((t) => t.name));
  const system = systemText(deps);
  return {
    turn: { id: turn.id, status: turn.status, conversation: turn.conversation, message: turn.message, origin: turn.origin, attempts: turn.attempts },
    route: routeModels(deps, shape?.kind ?? "conversation"),
    system: shape?.system?.(system, turn) ?? system,
    memory: memory ? memoryText(deps.reader) : "",
    memoryTools: catalogue.filter((t) => t.namespace === MEMORY_NAMESPACE && offered.has(t.callName)).map((t) => t.callName),
    messages: shape?.messages?.(turn) ?? history(deps, turn.conversation, turn.message),
    // Asking the person is offered in every turn that has tools (it changes nothing, so no setting turns it off).
    tools: shape?.tools === false ? [] : [...offeredTools(catalogue), ASK_TOOL_SPEC],
    steps: stepsOf(deps.reader, id),
    maxModelCalls: MAX_MODEL_CALLS,
    maxTokens: shape?.maxTokens?.(turn) ?? null,
  };
}

function systemText(deps: TurnContextDeps): string {
  const zone = deps.timeZone();
  const parts = [
    `You are the assistant of the person who owns this Charter node. It is now ${zonedText(deps.now(), zone)} (${zone}).`,
    "Your tools are the person's contracts. Reading tools answer at once. A tool that changes something is checked against the contract first: when the contract refuses it, you get the reason; when it allows it, the person is asked to approve it, and you are told what they decided. Never claim a change was made before its tool says it was.",
  ];
  const persona = optionalRecord(deps.reader, "std.persona", "Persona", "persona");
  if (persona !== null) {
    const constitution = clipText(String(persona.constitution ?? ""), PART_CHARS);
    const sensitive = clipText(String(persona.sensitive_instructions ?? ""), PART_CHARS);
    if (constitution !== "") parts.push(`The person's constitution for you:\n${constitution}`);
    if (sensitive !== "") parts.push(`The person's instructions for sensitive matters:\n${sensitive}`);
    if (persona.content_mode !== undefined) parts.push(`Content mode: ${String(persona.content_mode)}.`);
  }
  const rules = optionalQuery(deps.reader, "std.rules", "Rules", { after: "", limit: RULES }).filter((r) => r.enabled !== false && r.deleted !== true);
  if (rules.length > 0) parts.push(`Standing rules (always follow them):\n${clipText(rules.map((r) => `- ${String(r.text)}`).join("\n"), PART_CHARS)}`);
  return parts.join("\n\n");
}

function memoryText(reader: PersonReader): string {
  const notes = optionalQuery(reader, MEMORY_NAMESPACE, "Notes", { after: "", limit: MEMORY_NOTES });
  if (notes.length === 0) return "";
  return `What you remember about the person (memory notes):\n${clipText(notes.map((n) => `- ${String(n.text)}`).join("\n"), PART_CHARS)}`;
}

/**
 * The conversation up to and including `message` — in a branch, preceded by the conversation it
 * was opened from up to and including that message (branches.ts historySegments) — newest kept
 * first when it must be cut, oldest first in the answer.
 */
function history(deps: Pick<TurnContextDeps, "reader" | "attachments">, conversation: string, message: string): ChatMessage[] {
  const { reader } = deps;
  const kept: ChatMessage[] = [];
  let chars = 0;
  for (const segment of historySegments(reader, conversation, message)) {
    // Subjects sort by time: everything up to `upTo` is below the first key after it (its replies, `upTo.r`, too).
    const { rows } = reader.query(undefined, CONVERSATION, "Recent", { conversation: segment.conversation, before: `${segment.upTo}\u{10FFFF}`, limit: HISTORY_MESSAGES - kept.length + 1 });
    for (const row of rows) {
      const m = messageView(String(row.id), row);
      if (m.text === "" || (segment.exact && m.id > segment.upTo)) continue;
      const attached = m.role === "person" && m.attachments.length > 0 ? (deps.attachments?.(m.attachments) ?? "") : "";
      const content = attached === "" ? m.text : `${m.text}\n\n${attached}`;
      chars += content.length;
      if ((chars > HISTORY_CHARS && kept.length > 0) || kept.length >= HISTORY_MESSAGES) return kept.reverse();
      kept.push(m.role === "person" ? { role: "user", content } : { role: "assistant", content: m.text, toolCalls: [] });
    }
  }
  return kept.reverse();
}

function optionalRecord(reader: PersonReader, namespace: string, aggregate: string, subject: string): Record<string, unknown> | null {
  try {
    return reader.record(undefined, namespace, aggregate, subject)?.state ?? null;
  } catch (error) {
    if (error instanceof HttpProblem && error.problem.status === 404) return null;
    throw error;
  }
}

function optionalQuery(reader: PersonReader, namespace: string, query: string, params: Record<string, unknown>): Record<string, unknown>[] {
  try {
    return reader.query(undefined, namespace, query, params).rows;
  } catch (error) {
    if (error instanceof HttpProblem && error.problem.status === 404) return [];
    throw error;
  }
}

