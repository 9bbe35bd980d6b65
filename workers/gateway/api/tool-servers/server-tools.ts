/**
 * @module The tool servers' tools in the assistant's catalogue, beside the contracts' (same call
 * names, same modes, same approvals): `mcp:<server>/<tool>`, each with the mode its pin gives it
 * (tool-pins.ts) under the definition the server last listed. Only tools with an object input
 * schema of bounded size are offered. Read from the node's settings alone, so building a turn's
 * catalogue never starts a server; a call checks the live definition again (server-calls.ts).
 */
import { clipText, MAX_TOOL_DESCRIPTION } from "../assistant-host/contract-docs.ts";
import type { NodeSettings } from "../assistant-host/node-settings.ts";
import type { ToolMode } from "../assistant-host/tool-modes.ts";
import { seenOf, serversOf } from "./server-store.ts";
import { toolState } from "./tool-pins.ts";

/** The prefix of a tool server's tools' names (no contract namespace has a `:`). */
export const SERVER_TOOL_PREFIX = "mcp:";

/** A server's tool as the catalogue lists it (everything but the call name, which the catalogue gives). */
export interface ServerToolEntry {
  readonly name: string;
  readonly kind: "query";
  readonly namespace: string;
  readonly member: string;
  /** The server's id. */
  readonly server: string;
  readonly mode: ToolMode;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}

/** The name of tool `tool` of server `server`. */
export function serverToolName(server: string, tool: string): string {
  return `${SERVER_TOOL_PREFIX}${server}/${tool}`;
}

/** Every server's tools, by name. */
export function serverTools(settings: NodeSettings): ServerToolEntry[] {
  const entries: ServerToolEntry[] = [];
  for (const server of serversOf(settings)) {
    for (const tool of seenOf(settings, server.id)?.tools ?? []) {
      if (tool.inputSchema === null) continue;
      const { mode } = toolState(tool, Object.hasOwn(server.pins, tool.name) ? server.pins[tool.name] : undefined);
      const about = `(A tool of the tool server "${server.name}", outside the person's contracts.)`;
      const text = tool.description.trim() === "" ? (tool.title ?? tool.name) : tool.description;
      entries.push({
        name: serverToolName(server.id, tool.name),
        kind: "query",
        namespace: `${SERVER_TOOL_PREFIX}${server.id}`,
        member: tool.name,
        server: server.id,
        mode,
        description: `${clipText(text, MAX_TOOL_DESCRIPTION - about.length - 1)}\n${about}`,
        parameters: tool.inputSchema,
      });
    }
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
