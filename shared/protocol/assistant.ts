/**
 * @module The channel between the assistant worker and the gateway (`DATA/run/assistant.sock`, the
 * gateway listens). The gateway holds the person: their key, their records, the node's settings
 * and the model connections' keys; the assistant holds the turns in flight and the model calls.
 * So the assistant asks the gateway for what a turn needs (`turn-load`), has it record what the
 * turn did (`turn-write`: signed as the person into `std.conversation`), and hands it each tool
 * call the model makes (`tool-call`: the gateway checks it against the tool's mode and the
 * contract). Streamed text goes the other way as notices, straight to `/api/events`; the gateway
 * tells the assistant when there is work (`wake`) or a turn to stop (`cancel`).
 */
import type { ChatMessage, ToolCall, ToolSpec } from "../models/model.ts";

/** A turn's record as the assistant needs it. */
export interface TurnHead {
  readonly id: string;
  readonly status: "queued" | "running" | "waiting-approval" | "waiting-ask" | "done" | "failed" | "cancelled";
  readonly conversation: string;
  readonly message: string;
  readonly origin: string;
  readonly attempts: number;
}

/** One model the turn may call, with what calling it takes (the key only travels this channel). */
export interface RouteModel {
  readonly connection: string;
  readonly provider: "openai" | "anthropic";
  readonly baseUrl: string | null;
  readonly key: string;
  readonly model: string;
  readonly maxTokens: number;
  readonly temperature: number | null;
  readonly responseTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly retries: number;
  /** Whether the person lets this connection's provider see memory notes. */
  readonly memory: boolean;
}

/** A recorded step of a turn: a model call, or a tool call and what came of it. */
export type StepBody =
  | { readonly kind: "model"; readonly text: string; readonly toolCalls: readonly ToolCall[]; readonly stopReason: string; readonly model: string; readonly connection: string }
  | { readonly kind: "tool"; readonly toolCallId: string; readonly name: string; readonly content: string; readonly isError: boolean; readonly approval?: string };

export interface RecordedStep {
  readonly n: number;
  readonly body: StepBody;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly ms: number;
}

/** What running a turn starts from. */
export interface TurnLoad {
  readonly turn: TurnHead;
  /** The models to try, in order (the chosen one, then its fallbacks); empty: none is configured. */
  readonly route: readonly RouteModel[];
  readonly system: string;
  /** The memory notes, to add to `system` for a model whose connection may see them ("" when memory is off). */
  readonly memory: string;
  /** The tools (by the model's name for them) that read or write memory: offered only where memory may be seen. */
  readonly memoryTools: readonly string[];
  /** The conversation before and including the person's message this turn answers. */
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolSpec[];
  readonly steps: readonly RecordedStep[];
  /** At most this many model calls in one turn. */
  readonly maxModelCalls: number;
  /** The most tokens (in and out, all its model calls) the turn may spend; null: no budget. */
  readonly maxTokens: number | null;
}

/** What a turn records, each one command signed as the person. */
export type TurnWrite =
  | { readonly op: "start"; readonly turn: string; readonly connection: string; readonly model: string }
  | { readonly op: "step"; readonly turn: string; readonly step: RecordedStep }
  | { readonly op: "wait-approval"; readonly turn: string }
  | { readonly op: "wait-ask"; readonly turn: string }
  | { readonly op: "end"; readonly turn: string; readonly status: "done" | "failed" | "cancelled"; readonly text: string; readonly partial: boolean; readonly error?: { readonly kind: string; readonly message: string } };

/** What became of a tool call: its result for the model, or the approval or the person's answer (an ask) it now waits for. */
export type ToolOutcome =
  | { readonly kind: "result"; readonly content: string; readonly isError: boolean; readonly approval?: string }
  | { readonly kind: "approval"; readonly approval: string }
  | { readonly kind: "ask"; readonly ask: string };

export type AssistantHostRequests = {
  "turn-load": { request: { turn: string }; response: TurnLoad | null };
  "turn-write": { request: TurnWrite; response: { ok: true; message?: string } | { ok: false; error: string } };
  "tool-call": { request: { turn: string; step: number; index: number; connection: string; call: ToolCall }; response: ToolOutcome };
  /** Turns queued or running (what a crash may have left), for the assistant to take up at start. */
  "turns-active": { request: Record<string, never>; response: string[] };
};

/** The gateway's notices to the assistant. */
export type AssistantHostNotices = {
  wake: Record<string, never>;
  cancel: { turn: string };
};

/** The assistant's notices to the gateway: frames for `/api/events`. */
export type AssistantNotices = {
  text: { turn: string; delta: string };
  turn: { turn: string; status: TurnHead["status"]; error?: string; approval?: string; ask?: string };
};
