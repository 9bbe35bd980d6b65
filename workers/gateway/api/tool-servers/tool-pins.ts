/**
 * @module A server's tools as the node keeps them, and what the person set for each. What a server
 * says of a tool (its description, input schema, annotations) is untrusted: the annotations only
 * suggest a mode (`readOnlyHint` → `read`, anything else → `ask`), and a tool the person has not
 * set is `off`. Setting a mode pins a digest of the tool's description, schema and annotations;
 * when the server later describes the tool otherwise, the tool is back at `ask` (an `off` tool
 * stays off) and shows that it changed and what the person had set, until the person sets it
 * again. Pure: listings and pins in, states out.
 */
import { createHash } from "node:crypto";
import type { ToolMode } from "../assistant-host/tool-modes.ts";

/** The most tools kept of one server, and the most bytes of one tool's input schema (a larger one is not offered). */
export const MAX_TOOLS = 200;
export const MAX_SCHEMA_BYTES = 16 * 1024;
/** The most characters of a tool's description kept (the model is given at most 1,000 of them). */
const MAX_DESCRIPTION = 4000;
const MAX_NAME = 128;

/** The hints a server may give of a tool (MCP's ToolAnnotations), only booleans and a title. */
export interface ToolHints {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** One tool as the server last described it, bounded. */
export interface SeenTool {
  readonly name: string;
  readonly title: string | null;
  readonly description: string;
  /** Its input schema, or null when it is too large or not an object schema (then it is not offered). */
  readonly inputSchema: Record<string, unknown> | null;
  readonly annotations: ToolHints;
  /** SHA-256 of what the server said of it (description, input schema, annotations), as it said it. */
  readonly digest: string;
}

/** What the person set for a tool: its mode and the digest of the tool as it was then. */
export interface Pin {
  readonly mode: ToolMode;
  readonly digest: string;
  readonly at: number;
}

/** A tool's state under its pin. */
export interface ToolState {
  readonly mode: ToolMode;
  readonly suggested: "read" | "ask";
  /** The server describes the tool otherwise than when the person set its mode. */
  readonly changed: boolean;
  /** What the person had set (null: never). */
  readonly set: ToolMode | null;
}

/** A listing's tools, bounded and digested: at most MAX_TOOLS, the rest counted in `dropped`. Names that repeat keep their first. */
export function seenTools(listed: readonly unknown[]): { tools: SeenTool[]; dropped: number } {
  const tools: SeenTool[] = [];
  const names = new Set<string>();
  let dropped = 0;
  for (const raw of listed) {
    const tool = seenTool(raw);
    if (tool === null || names.has(tool.name)) continue;
    if (tools.length >= MAX_TOOLS) {
      dropped++;
      continue;
    }
    names.add(tool.name);
    tools.push(tool);
  }
  return { tools, dropped };
}

/** One listed tool, or null when it has no usable name. */
export function seenTool(raw: unknown): SeenTool | null {
  if (typeof raw !== "object" || raw === null) return null;
  const t = raw as { name?: unknown; title?: unknown; description?: unknown; inputSchema?: unknown; annotations?: unknown };
  if (typeof t.name !== "string" || t.name === "" || t.name.length > MAX_NAME) return null;
  const description = typeof t.description === "string" ? t.description : "";
  // As the server said it: any change of what it says (even of order) is a change the person sees.
  const digest = createHash("sha256").update(JSON.stringify([description, t.inputSchema ?? null, t.annotations ?? null])).digest("hex");
  const schemaJson = JSON.stringify(t.inputSchema ?? null);
  const schema = isObjectSchema(t.inputSchema) && Buffer.byteLength(schemaJson) <= MAX_SCHEMA_BYTES ? (JSON.parse(schemaJson) as Record<string, unknown>) : null;
  const annotations = hintsOf(t.annotations);
  const title = typeof t.title === "string" ? t.title.slice(0, 200) : (annotations.title ?? null);
  return { name: t.name, title, description: description.slice(0, MAX_DESCRIPTION), inputSchema: schema, annotations, digest };
}

/** The mode a server's hints suggest: `read` for a tool it says only reads, else `ask`. Only ever shown: never applied. */
export function suggestedMode(tool: Pick<SeenTool, "annotations">): "read" | "ask" {
  return tool.annotations.readOnlyHint === true ? "read" : "ask";
}

/** A tool's state: `off` until set; the set mode while the tool is as it was; changed since, `ask` (or `off` if it was off). */
export function toolState(tool: Pick<SeenTool, "digest" | "annotations">, pin: Pin | undefined): ToolState {
  const suggested = suggestedMode(tool);
  if (pin === undefined) return { mode: "off", suggested, changed: false, set: null };
  if (pin.digest === tool.digest) return { mode: pin.mode, suggested, changed: false, set: pin.mode };
  return { mode: pin.mode === "off" ? "off" : "ask", suggested, changed: true, set: pin.mode };
}

/** Whether `x` is a tool mode. */
export function isToolMode(x: unknown): x is ToolMode {
  return x === "off" || x === "read" || x === "ask";
}

function isObjectSchema(x: unknown): boolean {
  return typeof x === "object" && x !== null && !Array.isArray(x) && (x as { type?: unknown }).type === "object";
}

function hintsOf(x: unknown): ToolHints {
  if (typeof x !== "object" || x === null) return {};
  const a = x as Record<string, unknown>;
  const hints: Record<string, unknown> = {};
  if (typeof a.title === "string") hints.title = a.title.slice(0, 200);
  for (const key of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) if (typeof a[key] === "boolean") hints[key] = a[key];
  return hints as ToolHints;
}
