/**
 * @module A tool call the model made, decided by the node, never by the model: the tool must be in
 * the catalogue and not `off` (memory tools only for a connection the person lets see memory), its
 * arguments must be the tool's; a `read` query runs at once; anything else is dry-run against the
 * contract (a refusal goes back to the model as the contract's reason) and then waits for the
 * person as an approval (`std.approvals` `Propose`), whose payload is exactly the command approving
 * it signs. The approval of a call is named after the turn, the step and the call's place in it,
 * so a turn resumed after a crash finds it again instead of asking twice; once approved, the
 * command is signed with the approval's id as its idempotency key, so it is carried out at most once
 * however often the turn resumes.
 */
import { createHash } from "node:crypto";
import { receiptOf } from "../../../../shared/identity/index.ts";
import type { ToolCall } from "../../../../shared/models/model.ts";
import type { ToolOutcome } from "../../../../shared/protocol/assistant.ts";
import type { SignedCommandAnswer } from "../../../../shared/protocol/engine.ts";
import { HttpProblem } from "../../../../shared/problem.ts";
import { APPROVAL, APPROVALS, approvalView, type ApprovalView } from "../approvals/approval-records.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import type { Connections } from "./connections.ts";
import { findTurn } from "./conversation.ts";
import { MEMORY_NAMESPACE, memoryOn } from "./turn-context.ts";
import type { NodeSettings } from "./node-settings.ts";
import { clipText } from "./contract-docs.ts";
import { type AssistantTool, parseToolArguments, toolCatalogue } from "./tool-catalogue.ts";
import { ASK_TOOL, handleAskCall } from "./ask-tool.ts";
import type { AskView } from "./asks.ts";
import { rootConversation } from "./branches.ts";
import { handleServerToolCall, runApprovedServerCall } from "../tool-servers/server-calls.ts";

/** The kind of approval a tool call is. */
export const TOOL_APPROVAL = "tool";
/** How long an approval waits for the person by default: a day. */
export const DEFAULT_APPROVAL_MS = 24 * 3_600_000;
/** The most characters of a tool's result given back to the model. */
const RESULT_CHARS = 16_000;
/** A query's rows when the model names no limit, and the most it may ask for. */
const QUERY_LIMIT = 20;
const QUERY_MAX = 100;

/** The command an approved tool call signs, as its approval's payload holds it. */
export interface ToolCommand {
  readonly tool: string;
  readonly toolCallId: string;
  readonly kind: "action" | "query";
  readonly namespace: string;
  readonly member: string;
  readonly subject: string;
  readonly args: Record<string, unknown>;
  readonly idempotencyKey: string;
  /** The state the dry run said the action would leave (an action), at proposal time. */
  readonly dryRun: Record<string, unknown> | null;
  /** A tool server's tool: the server's id (the call goes to it, tool-servers/server-calls.ts). */
  readonly server?: string;
}

export interface ToolCallDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly settings: NodeSettings;
  readonly connections: Pick<Connections, "get">;
  readonly now: () => number;
  /** How long a new approval waits (DEFAULT_APPROVAL_MS when absent). */
  readonly approvalMs?: number;
  /** Hears each approval proposed or ended here (for `/api/events`). */
  readonly onApproval?: (approval: ApprovalView) => void;
  /** Hears each ask opened or ended here (for `/api/events`). */
  readonly onAsk?: (ask: AskView) => void;
}

/** The approval id of call `index` of turn `turn`'s model step `step`: `apv-` then the turn's own time-ordered part. */
export function toolApprovalId(turn: string, step: number, index: number): string {
  return `apv-${turn.replace(/^turn-/, "")}-${step}-${index}`;
}

/** Decides what becomes of one tool call; see the module comment. */
export async function handleToolCall(deps: ToolCallDeps, request: { turn: string; step: number; index: number; connection: string; call: ToolCall }): Promise<ToolOutcome> {
  // Asking the person is the node's own tool, not a contract's: it waits like an approval, for an answer (ask-tool.ts).
  if (request.call.name === ASK_TOOL) return handleAskCall({ ...deps, askMs: deps.approvalMs ?? DEFAULT_APPROVAL_MS }, request);
  const id = toolApprovalId(request.turn, request.step, request.index);
  const existing = deps.reader.record(undefined, APPROVALS, APPROVAL, id);
  if (existing !== null && existing.state.status !== "New") return settled(deps, approvalView(id, existing.state, true));

  const tool = toolCatalogue(deps.reader, deps.settings).find((t) => t.callName === request.call.name);
  if (tool === undefined || tool.mode === "off") return error(`There is no tool named ${clipName(request.call.name)}, or the person has turned it off.`);
  if (tool.server !== undefined) return handleServerToolCall(deps, { name: tool.name, server: tool.server, member: tool.member }, request.call, (args) => propose(deps, request, id, tool, { subject: "", args, dryRun: null }));
  if (tool.namespace === MEMORY_NAMESPACE && !memoryAllowed(deps, request)) return error("Memory is not shared with this model here: its tools are not available.");
  const parsed = parseToolArguments(tool, request.call.argumentsJson);
  if (!parsed.ok) return error(`The arguments do not fit ${tool.name}: ${parsed.error}`);

  if (tool.kind === "query") {
    const args = { ...parsed.args, ...queryLimit(tool, parsed.args) };
    if (tool.mode === "read") return runQuery(deps, tool, args);
    return propose(deps, request, id, tool, { subject: "", args, dryRun: null });
  }
  const subject = parsed.subject ?? timeOrderedId(subjectPrefix(tool), deps.now());
  const preview = await deps.writer.preview({ namespace: tool.namespace, action: tool.member, subject, args: parsed.args });
  if (preview.kind === "problem") return error(`${tool.name} cannot be called so: ${preview.problem.detail ?? preview.problem.title}${problemFields(preview.problem.errors)}`);
  if (preview.outcome === "refused") return error(`The contract refuses ${tool.name} on ${subject}: ${preview.reason.message} (${preview.reason.code}). Nothing was changed.`);
  return propose(deps, request, id, tool, { subject, args: parsed.args, dryRun: preview.state });
}

/**
 * Carries out an approved tool call's action (once: the approval's id is the command's idempotency
 * key, and `CarriedOut` records it once) and answers the engine's answer; the edited arguments,
 * when the person edited them, are what is signed.
 */
export async function carryOutTool(deps: Pick<ToolCallDeps, "reader" | "writer" | "onApproval">, approval: ApprovalView, editedArgs: Record<string, unknown> | null): Promise<SignedCommandAnswer> {
  const command = toolCommandOf(approval);
  const args = editedArgs ?? editedOf(deps.reader, approval.id) ?? command.args;
  const answer = await deps.writer.act({ namespace: command.namespace, action: command.member, subject: command.subject, args, idempotencyKey: command.idempotencyKey });
  const outcome = answer.kind === "problem" ? `failed: ${answer.problem.detail ?? answer.problem.title}` : answer.outcome === "accepted" ? `accepted: receipt ${receiptOf(answer.jws).id}` : `refused: ${receiptOf(answer.jws).reason?.message ?? "no reason"}`;
  await recordCarriedOut(deps, approval, outcome);
  return answer;
}

/** Records once what came of an approved call (`CarriedOut`); one already recorded is left as it is. */
async function recordCarriedOut(deps: Pick<ToolCallDeps, "writer" | "onApproval">, approval: ApprovalView, outcome: string): Promise<void> {
  if (approval.carriedOutAt !== null) return;
  const recorded = await deps.writer.act({ namespace: APPROVALS, action: "CarriedOut", subject: approval.id, args: { outcome: outcome.slice(0, 500) }, idempotencyKey: `${approval.id}:carried-out` });
  if (recorded.kind === "receipt" && recorded.outcome === "accepted" && !recorded.replayed) deps.onApproval?.({ ...approval, carriedOutAt: new Date().toISOString(), outcome });
}

/** The command an approval of a tool call holds. Throws when its payload is not one (nothing but this module writes them). */
export function toolCommandOf(approval: Pick<ApprovalView, "payload" | "id">): ToolCommand {
  const command = JSON.parse(approval.payload ?? "null") as ToolCommand | null;
  if (command === null || typeof command !== "object" || typeof command.namespace !== "string") throw new Error(`approval ${approval.id} holds no tool command`);
  return command;
}

/** What the model is told of an approval that is no longer waiting (or that it still waits). */
async function settled(deps: ToolCallDeps, approval: ApprovalView): Promise<ToolOutcome> {
  switch (approval.status) {
    case "waiting": {
      const expired = approval.expiresAt !== null && Date.parse(approval.expiresAt) <= deps.now();
      if (!expired) return { kind: "approval", approval: approval.id };
      const answer = await deps.writer.act({ namespace: APPROVALS, action: "Expire", subject: approval.id, args: {}, idempotencyKey: `${approval.id}:expire` });
      if (answer.kind === "receipt" && answer.outcome === "accepted") deps.onApproval?.({ ...approval, status: "expired" });
      return error("The person did not decide in time: the approval expired and nothing was done.", approval.id);
    }
    case "denied":
      return error("The person declined this. Nothing was done; do not try it again unless they ask.", approval.id);
    case "expired":
      return error("The person did not decide in time: the approval expired and nothing was done.", approval.id);
    case "approved": {
      const command = toolCommandOf(approval);
      if (command.server !== undefined) return runApprovedServerCall(deps, approval, { ...command, server: command.server });
      if (command.kind === "query") {
        await recordCarriedOut(deps, approval, "read");
        return runQuery(deps, null, command.args, command, approval.id);
      }
      const answer = await carryOutTool(deps, approval, null);
      return resultOf(command, answer, approval.id);
    }
  }
}

/** The model's view of a carried-out action: its new state, or why it was refused. */
function resultOf(command: ToolCommand, answer: SignedCommandAnswer, approval: string): ToolOutcome {
  if (answer.kind === "problem") return error(`${command.tool} could not be carried out: ${answer.problem.detail ?? answer.problem.title}`, approval);
  const receipt = receiptOf(answer.jws);
  if (answer.outcome === "refused") return error(`The person approved ${command.tool}, but the contract refused it when it ran: ${receipt.reason?.message ?? "no reason"} (${receipt.reason?.code ?? "refused"}). Nothing was changed.`, approval);
  return { kind: "result", content: clipText(JSON.stringify({ done: command.tool, subject: command.subject, receipt: receipt.id, state: receipt.state }), RESULT_CHARS), isError: false, approval };
}

async function propose(deps: ToolCallDeps, request: { turn: string; call: ToolCall }, id: string, tool: AssistantTool, command: { subject: string; args: Record<string, unknown>; dryRun: Record<string, unknown> | null }): Promise<ToolOutcome> {
  const payload: ToolCommand = { tool: tool.name, toolCallId: request.call.id, kind: tool.kind, namespace: tool.namespace, member: tool.member, subject: command.subject, args: command.args, idempotencyKey: id, dryRun: command.dryRun, ...(tool.server === undefined ? {} : { server: tool.server }) };
  const json = JSON.stringify(payload);
  const digest = createHash("sha256").update(JSON.stringify([tool.namespace, tool.member, command.subject, command.args])).digest("hex");
  const args = {
    kind: TOOL_APPROVAL,
    summary: clipText(`${tool.name}${command.subject === "" ? "" : ` on ${command.subject}`}: ${JSON.stringify(command.args)}`, 500),
    payload: json,
    digest,
    target: clipText(`${tool.namespace}.${tool.member}${command.subject === "" ? "" : ` ${command.subject}`}`, 200),
    sensitive: tool.sensitive,
    turn: request.turn,
    expires_at: deps.now() + (deps.approvalMs ?? DEFAULT_APPROVAL_MS),
  };
  const answer = await deps.writer.act({ namespace: APPROVALS, action: "Propose", subject: id, args, idempotencyKey: `${id}:propose` });
  if (answer.kind === "problem") return error(`${tool.name} could not be put to the person: ${answer.problem.detail ?? answer.problem.title}`);
  if (answer.outcome === "refused") {
    const reason = receiptOf(answer.jws).reason;
    return error(`${tool.name} could not be put to the person: ${reason?.message ?? "refused"}${reason?.code === "text_too_long" ? " (the arguments are too long)" : ""}`);
  }
  const state = receiptOf(answer.jws).state;
  if (state !== null) deps.onApproval?.(approvalView(id, state));
  return { kind: "approval", approval: id };
}

/** Runs a query as the person: its rows for the model. */
function runQuery(deps: Pick<ToolCallDeps, "reader">, tool: AssistantTool | null, args: Record<string, unknown>, command?: ToolCommand, approval?: string): ToolOutcome {
  const namespace = tool?.namespace ?? command?.namespace ?? "";
  const member = tool?.member ?? command?.member ?? "";
  try {
    const { rows } = deps.reader.query(undefined, namespace, member, args);
    return { kind: "result", content: clipText(JSON.stringify({ rows }), RESULT_CHARS), isError: false, ...(approval === undefined ? {} : { approval }) };
  } catch (e) {
    if (e instanceof HttpProblem) return error(`${namespace}.${member} cannot be read so: ${e.problem.detail ?? e.problem.title}${problemFields(e.problem.errors)}`, approval);
    throw e;
  }
}

/** Whether memory may be used in this call: the connection's provider may see it, and it is on in the turn's conversation. */
function memoryAllowed(deps: ToolCallDeps, request: { turn: string; connection: string }): boolean {
  if (deps.connections.get(request.connection)?.memory !== true) return false;
  const turn = findTurn(deps.reader, request.turn);
  return turn !== null && memoryOn(deps.settings, rootConversation(deps.reader, turn.conversation));
}

/** A query's `limit` as the model gave it, bounded, or the default when it gave none (only for queries that take one). */
function queryLimit(tool: AssistantTool, args: Record<string, unknown>): Record<string, unknown> {
  const properties = (tool.parameters.properties ?? {}) as Record<string, unknown>;
  if (!Object.hasOwn(properties, "limit")) return {};
  const asked = args.limit;
  return { limit: typeof asked === "number" && Number.isInteger(asked) && asked > 0 ? Math.min(asked, QUERY_MAX) : QUERY_LIMIT };
}

/** The edited arguments recorded with the approval's decision, or null. */
function editedOf(reader: PersonReader, id: string): Record<string, unknown> | null {
  const found = reader.record(undefined, APPROVALS, APPROVAL, id);
  const text = found?.state.edited_args;
  if (typeof text !== "string" || text === "") return null;
  return JSON.parse(text) as Record<string, unknown>;
}

/** A new subject's prefix: the aggregate's name, lower-cased (`task-…` for std.tasks' Task). */
function subjectPrefix(tool: AssistantTool): string {
  return (tool.aggregate ?? "rec").toLowerCase().replace(/[^a-z0-9]/g, "").slice(0, 16) || "rec";
}

function problemFields(errors: readonly unknown[] | undefined): string {
  if (errors === undefined || errors.length === 0) return "";
  return ` (${errors
    .slice(0, 5)
    .map((e) => {
      const { pointer, detail } = e as { pointer?: unknown; detail?: unknown };
      return `${String(pointer ?? "").replace(/^#\/args\//, "")}: ${String(detail ?? "")}`;
    })
    .join("; ")})`;
}

function error(content: string, approval?: string): ToolOutcome {
  return { kind: "result", content, isError: true, ...(approval === undefined ? {} : { approval }) };
}

function clipName(name: string): string {
  return JSON.stringify(name.slice(0, 64));
}

