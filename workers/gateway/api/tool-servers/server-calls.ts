/**
 * @module A model's call of a tool server's tool, decided by the node as any tool call is
 * (tool-calls.ts hands these here): the server lists its tools again, and the tool's mode is what
 * its pin gives the definition it has *now* — a tool whose description, schema or annotations
 * changed since the person set it runs only with their approval. `read` runs at once, `ask`
 * becomes an approval (its payload names the server), `off` is refused. An approved call is
 * carried out at most once: `CarriedOut` is recorded just before it is sent, and a turn resumed
 * after that (the node stopped mid-call) is told the outcome is unknown rather than calling again.
 * Whatever fails (a server that cannot start, a timeout, the ceiling) is the model's error result.
 */
import type { ToolCall } from "../../../../shared/models/model.ts";
import type { ToolOutcome } from "../../../../shared/protocol/assistant.ts";
import { APPROVALS, type ApprovalView } from "../approvals/approval-records.ts";
import type { ToolCallDeps, ToolCommand } from "../assistant-host/tool-calls.ts";
import { toolState } from "./tool-pins.ts";
import { toolServersOf } from "./tool-servers.ts";

/** The most characters of a call's arguments. */
const MAX_ARGUMENTS = 64 * 1024;

/** A server tool as the call needs it. */
export interface ServerToolRef {
  readonly name: string;
  readonly server: string;
  readonly member: string;
}

/** Decides a call of a server's tool; `propose` puts it to the person (the approval flow of every tool). */
export async function handleServerToolCall(deps: Pick<ToolCallDeps, "settings">, tool: ServerToolRef, call: ToolCall, propose: (args: Record<string, unknown>) => Promise<ToolOutcome>): Promise<ToolOutcome> {
  const runtime = toolServersOf(deps.settings);
  if (runtime === null) return error("Tool servers are not available on this node.");
  const args = argumentsOf(call.argumentsJson);
  if (typeof args === "string") return error(`The arguments do not fit ${tool.name}: ${args}`);
  let tools;
  try {
    tools = (await runtime.list(tool.server)).tools;
  } catch (e) {
    return error(`The tool server of ${tool.name} cannot be reached now: ${e instanceof Error ? e.message : String(e)}`);
  }
  const seen = tools.find((t) => t.name === tool.member);
  const server = runtime.store.get(tool.server);
  if (seen === undefined || seen.inputSchema === null || server === null) return error(`The tool server no longer offers ${tool.name}.`);
  const state = toolState(seen, Object.hasOwn(server.pins, seen.name) ? server.pins[seen.name] : undefined);
  if (state.mode === "off") return error(`There is no tool named ${JSON.stringify(tool.name)}, or the person has turned it off.`);
  if (state.mode === "ask") return propose(args);
  const outcome = await runtime.call(tool.server, tool.member, args);
  return { kind: "result", content: outcome.content, isError: outcome.isError };
}

/** Carries out an approved call of a server's tool (at most once); see the module comment. */
export async function runApprovedServerCall(deps: Pick<ToolCallDeps, "settings" | "writer" | "onApproval">, approval: ApprovalView, command: ToolCommand & { readonly server: string }): Promise<ToolOutcome> {
  if (approval.carriedOutAt !== null) {
    return error(`This approved call of ${command.tool} was started before the node stopped; what came of it is not known, and it is not made again. Ask the person before trying it once more.`, approval.id);
  }
  const runtime = toolServersOf(deps.settings);
  if (runtime === null) return error("Tool servers are not available on this node.", approval.id);
  const carriedOut = async (outcome: string) => {
    const answer = await deps.writer.act({ namespace: APPROVALS, action: "CarriedOut", subject: approval.id, args: { outcome: outcome.slice(0, 500) }, idempotencyKey: `${approval.id}:carried-out` });
    if (answer.kind === "receipt" && answer.outcome === "accepted" && !answer.replayed) deps.onApproval?.({ ...approval, carriedOutAt: new Date().toISOString(), outcome });
  };
  const outcome = await runtime.call(command.server, command.member, command.args, () => carriedOut(`called ${command.tool}`));
  if (outcome.refused === "ceiling") await carriedOut(`not called: ${outcome.content}`);
  return { kind: "result", content: outcome.content, isError: outcome.isError, approval: approval.id };
}

/** The call's arguments as an object, or why they are not one. */
function argumentsOf(json: string): Record<string, unknown> | string {
  if (json.length > MAX_ARGUMENTS) return `they are longer than ${MAX_ARGUMENTS} characters`;
  if (json.trim() === "") return {};
  try {
    const value = JSON.parse(json) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return "they are not a JSON object";
    return value as Record<string, unknown>;
  } catch {
    return "they are not JSON";
  }
}

function error(content: string, approval?: string): ToolOutcome {
  return { kind: "result", content, isError: true, ...(approval === undefined ? {} : { approval }) };
}
