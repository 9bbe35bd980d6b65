/**
 * @module What the person might say next (`GET /api/suggestions`): short sentences made from the
 * records — tasks due today or overdue (`std.tasks`), an approval or an ask waiting for them — and,
 * when a model is configured, up to three follow-ups a model writes from the last messages of the
 * main conversation. The model is the planning route's first (the conversation's when planning has
 * none), asked once per last message: its follow-ups are kept until the conversation moves on (one
 * entry per conversation, a bounded number of them), so asking again costs no call. A model that
 * fails or is slow (10 s) leaves the follow-ups out and never fails the suggestions; its failure is
 * kept for a minute, so a provider that is down is not asked on every look.
 */
import type { Logger } from "../../../../shared/log.ts";
import type { ModelProvider, ModelRequest } from "../../../../shared/models/model.ts";
import { HttpProblem } from "../../../../shared/problem.ts";
import { APPROVALS, STATUS_VALUES } from "../approvals/approval-records.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { clipText } from "./contract-docs.ts";
import type { ConnectionSecret, Connections } from "./connections.ts";
import { CONVERSATION, MAIN, transcriptLines } from "./conversation.ts";
import { dueTasks } from "./due-tasks.ts";
import { routeFor, vendorCallSettings } from "./model-route.ts";
import type { NodeSettings } from "./node-settings.ts";

/** One suggestion: what to say, where it comes from, and the record it is about. */
export interface Suggestion {
  readonly text: string;
  readonly kind: "task" | "approval" | "ask" | "follow-up";
  readonly ref: string;
}

/** The most suggestions answered, and the most a model writes. */
export const MAX_SUGGESTIONS = 6;
export const MAX_FOLLOW_UPS = 3;
/** The longest follow-up kept. */
export const FOLLOW_UP_CHARS = 200;
/** The model's limits: its tokens, its time, and the characters of its answer read. */
const MODEL_TOKENS = 160;
const MODEL_MS = 10_000;
const ANSWER_CHARS = 4000;
/** What the model is shown: the last messages, each clipped, all within a bound. */
const MESSAGES = 10;
const MESSAGE_CHARS = 600;
const TRANSCRIPT_CHARS = 4000;
/** Conversations whose follow-ups are kept, and how long a model's failure is. */
const CACHED_CONVERSATIONS = 32;
const FAILURE_MS = 60_000;
/** The longest title or question quoted in a suggestion. */
const QUOTED_CHARS = 80;

const SYSTEM = [
  "You suggest what the person might say next to their assistant, from the end of their conversation.",
  `Answer with at most ${MAX_FOLLOW_UPS} suggestions, one per line, each a short sentence in the person's own voice (under 100 characters).`,
  "No numbering, no quotes, no introduction: only the lines.",
].join(" ");

export interface SuggestionsDeps {
  readonly reader: PersonReader;
  readonly settings: NodeSettings;
  readonly connections: Connections;
  readonly now: () => number;
  readonly timeZone: () => string;
  readonly log: Logger;
  /** The provider of a connection (default: provider-adapters.ts, loaded on first use). */
  readonly provider?: (secret: ConnectionSecret) => Promise<ModelProvider>;
  /** How long the model may take (default 10 s). */
  readonly modelMs?: number;
}

interface Kept {
  readonly last: string;
  readonly items: readonly string[];
  /** Until when the entry holds (a failure's for a minute, follow-ups until the conversation moves on). */
  readonly until: number;
}

/** The suggestions, with the model's follow-ups kept per conversation. */
export class Suggestions {
  readonly #deps: SuggestionsDeps;
  readonly #kept = new Map<string, Kept>();
  readonly #asking = new Map<string, Promise<readonly string[]>>();

  constructor(deps: SuggestionsDeps) {
    this.#deps = deps;
  }

  /** At most MAX_SUGGESTIONS: an ask, an approval, tasks due, then the follow-ups of the main conversation. */
  async list(): Promise<Suggestion[]> {
    const followUps = await this.#followUps(MAIN);
    const records = this.#fromRecords(MAX_SUGGESTIONS - followUps.length);
    return [...records, ...followUps].slice(0, MAX_SUGGESTIONS);
  }

  #fromRecords(room: number): Suggestion[] {
    const { reader, now } = this.#deps;
    const out: Suggestion[] = [];
    const ask = quietly(() => reader.query(undefined, CONVERSATION, "Open", { after: "", limit: 20 }).rows, []).find((row) => Number(row.expires_at ?? 0) === 0 || Number(row.expires_at) > now());
    if (ask !== undefined) out.push({ text: `Answer your question: "${clipText(String(ask.question ?? ""), QUOTED_CHARS)}"`, kind: "ask", ref: String(ask.id) });
    const [approval] = quietly(() => reader.query(undefined, APPROVALS, "ByStatus", { status: STATUS_VALUES.waiting, after: "", limit: 1 }).rows, []);
    if (approval !== undefined) out.push({ text: "What is waiting for my approval?", kind: "approval", ref: String(approval.id) });
    for (const task of dueTasks(reader, this.#deps.timeZone(), now(), MAX_SUGGESTIONS)) out.push({ text: `Mark '${clipText(task.title, QUOTED_CHARS)}' done`, kind: "task", ref: task.id });
    return out.slice(0, Math.max(0, room));
  }

  async #followUps(conversation: string): Promise<Suggestion[]> {
    const rows = quietly(() => this.#deps.reader.query(undefined, CONVERSATION, "Recent", { conversation, before: "~", limit: MESSAGES }).rows, []);
    const lastRow = rows[0];
    if (lastRow === undefined) return [];
    const last = String(lastRow.id);
    const kept = this.#kept.get(conversation);
    let items: readonly string[];
    if (kept !== undefined && kept.last === last && kept.until > this.#deps.now()) items = kept.items;
    else {
      const key = `${conversation}\n${last}`;
      let asking = this.#asking.get(key);
      if (asking === undefined) {
        asking = this.#ask(conversation, last, rows).finally(() => this.#asking.delete(key));
        this.#asking.set(key, asking);
      }
      items = await asking;
    }
    return items.map((text) => ({ text, kind: "follow-up", ref: last }));
  }

  /** Asks the model for follow-ups of the messages `rows` (newest first) and keeps its answer. */
  async #ask(conversation: string, last: string, rows: readonly Record<string, unknown>[]): Promise<readonly string[]> {
    const { settings, connections, log } = this.#deps;
    const [step] = routeFor("planning", settings, connections);
    if (step === undefined) return [];
    let items: readonly string[];
    let until = Number.POSITIVE_INFINITY;
    try {
      const provider = await (this.#deps.provider ?? defaultProvider(this.#deps.modelMs ?? MODEL_MS))(step.connection);
      const { temperature } = vendorCallSettings(settings, step.connection.provider);
      const request: ModelRequest = { model: step.model, system: SYSTEM, messages: [{ role: "user", content: transcript(rows) }], tools: [], maxTokens: MODEL_TOKENS, ...(temperature === null ? {} : { temperature }) };
      let text = "";
      for await (const event of provider.stream(request, AbortSignal.timeout(this.#deps.modelMs ?? MODEL_MS))) {
        if (event.type === "text") text += event.delta;
        if (text.length >= ANSWER_CHARS) break;
      }
      items = parseFollowUps(text);
    } catch (error) {
      log.warn("no follow-ups: the model did not answer", { connection: step.connection.id, model: step.model, error: error instanceof Error ? error.message : String(error) });
      items = [];
      until = this.#deps.now() + FAILURE_MS;
    }
    this.#kept.delete(conversation);
    if (this.#kept.size >= CACHED_CONVERSATIONS) this.#kept.delete(this.#kept.keys().next().value as string);
    this.#kept.set(conversation, { last, items, until });
    return items;
  }
}

/** The model's answer as follow-ups: one a line, bullets, numbers and quotes taken off, at most MAX_FOLLOW_UPS of at most FOLLOW_UP_CHARS each. */
export function parseFollowUps(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.slice(0, ANSWER_CHARS).split(/\r?\n/)) {
    const line = raw
      .trim()
      .replace(/^(?:[-*•]|\d{1,2}[.)])\s*/u, "")
      .replace(/^["'“”‘’]+|["'“”‘’]+$/gu, "")
      .replace(/\p{Cc}/gu, "")
      .trim();
    if (line === "" || out.includes(line)) continue;
    out.push(clipText(line, FOLLOW_UP_CHARS));
    if (out.length >= MAX_FOLLOW_UPS) break;
  }
  return out;
}

/** The last messages (given newest first) as one text, oldest first, within TRANSCRIPT_CHARS. */
function transcript(rows: readonly Record<string, unknown>[]): string {
  return `The end of the conversation, oldest first:\n${transcriptLines(rows, MESSAGE_CHARS, TRANSCRIPT_CHARS).join("\n")}\n\nWhat might the person say next?`;
}

function defaultProvider(ms: number): (secret: ConnectionSecret) => Promise<ModelProvider> {
  return async (secret) => {
    // Loaded on first use: a node whose person never configures a model never loads the SDKs.
    const { adapterFor } = await import("./provider-adapters.ts");
    return adapterFor(secret, { responseTimeoutMs: ms, idleTimeoutMs: ms });
  };
}

/** `read`'s answer, or `fallback` where the records cannot say (before set-up, a contract or query not installed). */
function quietly<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof HttpProblem && (error.problem.status === 404 || error.problem.status === 409)) return fallback;
    throw error;
  }
}
