/**
 * @module The assistant's tools: every exposed action and query of the contracts active in the
 * personal tenant (`std.approvals` aside: deciding approvals is the person's alone), as the model is
 * offered them — a call name, a description from the contract's own Markdown, parameters as JSON
 * Schema — with the mode and sensitivity the person set (tool-modes.ts). Artifacts never change, so
 * what is built from one (everything but mode, sensitivity and call name) is kept per artifact id.
 */
import type { Type } from "../../../../contracts/ast.ts";
import type { Schema } from "../../../../contracts/schema.ts";
import type { ToolSpec } from "../../../../shared/models/model.ts";
import { APPROVALS } from "../approvals/approval-records.ts";
import { CONVERSATION } from "./conversation.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { contractTools } from "../workbench/tools.ts";
import { clipText, contractDocs, type ContractDocs, MAX_TOOL_DESCRIPTION, memberText } from "./contract-docs.ts";
import type { NodeSettings } from "./node-settings.ts";
import { callNames } from "./tool-call-names.ts";
import { modeOf, readToolSettings, sensitiveOf, type ToolMode, type ToolSettings } from "./tool-modes.ts";
import { defaultValue } from "../../../../contracts/schema.ts";
import { objectSchema, type SchemaProperty, SUBJECT_MAX, SUBJECT_PATTERN, typeSchema } from "./tool-schema.ts";
import { type ServerToolEntry, serverTools } from "../tool-servers/server-tools.ts";

export type { ToolMode } from "./tool-modes.ts";
export { parseToolArguments } from "./tool-arguments.ts";

/** One tool as the turn runner and the settings see it. */
export interface AssistantTool {
  /** `<namespace>.<Action|Query>`: the setting's key. */
  name: string;
  /** The name the model sees: `^[A-Za-z0-9_-]{1,64}$`, unique within the catalogue, stable for the same name. */
  callName: string;
  kind: "action" | "query";
  namespace: string;
  /** The action's or query's name. */
  member: string;
  /** An action's aggregate. */
  aggregate?: string;
  mode: ToolMode;
  /** Approving a call needs a step-up. */
  sensitive: boolean;
  description: string;
  /** A JSON Schema object: an action's optional `subject` then its parameters; a query's parameters. */
  parameters: Record<string, unknown>;
  /** A tool server's tool: the server's id (its mode is the server's pinned one, tool-servers/tool-pins.ts). */
  server?: string;
}

/** An installed contract as the catalogue reads it. */
export interface InstalledContract {
  readonly artifact: string;
  readonly schema: Pick<Schema, "namespace" | "actions" | "queries">;
  /** The contract's Markdown source (asked for only when the artifact's tools are not kept yet). */
  readonly source: () => string;
}

/** A query's `limit`: 20 rows unless the model asks for another number, at most 100. */
export const QUERY_LIMIT = { default: 20, minimum: 1, maximum: 100 } as const;

/** A query's part of the schema that a tool needs. */
interface QueryHead {
  readonly params: readonly { readonly name: string; readonly type: Type }[];
}

/** A tool as its artifact defines it: everything but the person's settings and the call name. */
type BuiltTool = Omit<AssistantTool, "callName" | "mode" | "sensitive">;

/** Artifacts whose tools are kept; past this the cache starts over (a node has a few dozen contracts). */
const MAX_CACHED = 256;
const built = new Map<string, readonly BuiltTool[]>();

/** The catalogue of the personal tenant: actions then queries, each by name. */
export function toolCatalogue(reader: PersonReader, settings: NodeSettings): AssistantTool[] {
  const stored = readToolSettings(settings);
  // Built inside the read, so an artifact's source is read (in the same snapshot) only when its tools are not kept yet.
  return reader.read(undefined, (r) => {
    const rows = r.db.prepare("SELECT namespace FROM installs WHERE tenant = ? AND status = 'active' ORDER BY namespace").all(r.tenant) as { namespace: string }[];
    const sourceOf = r.db.prepare("SELECT source FROM artifacts WHERE id = ?");
    const contracts = rows.map((row): InstalledContract => {
      const { artifact, schema } = r.contract(row.namespace);
      return { artifact, schema, source: () => String((sourceOf.get(artifact) as { source: string } | undefined)?.source ?? "") };
    });
    return catalogueOf(contracts, stored, serverTools(settings));
  });
}

/** The catalogue of `contracts` under the stored setting (NOT_TOOLS left out), then the tool servers' tools. */
export function catalogueOf(contracts: readonly InstalledContract[], stored: ToolSettings, servers: readonly ServerToolEntry[] = []): AssistantTool[] {
  // Deciding approvals is the person's alone: a tool that could approve would defeat them.
  const tooled = contracts.filter((c) => !NOT_TOOLS.has(c.schema.namespace));
  // The engine runs the first action of a name, and a query of that name would share its setting: one tool per name.
  const byName = new Map<string, BuiltTool>();
  for (const tool of tooled.flatMap(toolsOf)) if (!byName.has(tool.name) && !NOT_TOOL_MEMBERS.has(tool.name)) byName.set(tool.name, tool);
  const byKind = (kind: BuiltTool["kind"]) => [...byName.values()].filter((t) => t.kind === kind).sort((a, b) => compare(a.name, b.name));
  const ordered = [...byKind("action"), ...byKind("query")];
  const names = callNames([...ordered.map((t) => t.name), ...servers.map((t) => t.name)]);
  // `parameters` is the kept artifact's object, shared by every catalogue: read it, never change it.
  const contractsTools = ordered.map((t, i): AssistantTool => ({ ...t, callName: names[i] as string, mode: modeOf(t, stored), sensitive: sensitiveOf(t, stored) }));
  // A server's tool has the mode its pin gives it, never one from the `tools` setting.
  return [...contractsTools, ...servers.map((t, i): AssistantTool => ({ ...t, callName: names[ordered.length + i] as string, sensitive: sensitiveOf(t, stored) }))];
}

/** The tools the model is offered: those not `off`, as it sees them. */
export function offeredTools(catalogue: readonly AssistantTool[]): ToolSpec[] {
  return catalogue.filter((t) => t.mode !== "off").map((t) => ({ name: t.callName, description: t.description, parameters: t.parameters }));
}

/** The tool a model's call names, if the catalogue has it. */
export function toolByCallName(catalogue: readonly AssistantTool[], callName: string): AssistantTool | undefined {
  return catalogue.find((t) => t.callName === callName);
}

/** The tools an artifact defines, built once per artifact. */
function toolsOf(contract: InstalledContract): readonly BuiltTool[] {
  const kept = built.get(contract.artifact);
  if (kept !== undefined) return kept;
  const docs = contractDocs(contract.source());
  const tools = contractTools(contract.schema).flatMap((tool): BuiltTool[] => {
    const member = tool.name.slice(contract.schema.namespace.length + 1);
    const made = tool.kind === "action" ? actionTool(contract.schema, docs, member, tool.aggregate as string) : queryTool(contract.schema, docs, member);
    return made === null ? [] : [made];
  });
  if (built.size >= MAX_CACHED) built.clear();
  built.set(contract.artifact, tools);
  return tools;
}

/**
 * Contracts that are never tools: deciding approvals is the person's alone (a tool that could
 * approve would defeat them), and the conversation's records are the assistant's own account of
 * itself, written by the node as turns run, never by the model; so are the autonomy runs' records
 * (the goals a run works toward are in its prompt). A knowledge vault's notes are files as well as
 * records: only `/api/knowledge` changes both together. The person's email (`std.comms`) is never
 * given to the assistant: a held message's content must not reach a model, not even in a receipt.
 */
const NOT_TOOLS: ReadonlySet<string> = new Set([APPROVALS, CONVERSATION, "std.autonomy", "std.knowledge", "std.comms"]);
/**
 * Single actions that are the node's to sign: a library file is added only once its bytes are
 * stored (a record naming a blob that is not there would be a file nobody can read).
 */
const NOT_TOOL_MEMBERS: ReadonlySet<string> = new Set(["std.library.Add"]);

/**
 * An action as a tool: `subject` (optional: left out, the node makes a new record's id) then its
 * parameters. An action with a parameter itself named `subject` is left out: the model's `subject`
 * names the record, and the two could not be told apart.
 */
function actionTool(schema: InstalledContract["schema"], docs: ContractDocs, member: string, aggregate: string): BuiltTool | null {
  const params = schema.actions[`${aggregate}.${member}`]?.params ?? [];
  if (params.some((p) => p.name === "subject")) return null;
  const subject: SchemaProperty = {
    name: "subject",
    optional: true,
    schema: { type: "string", maxLength: SUBJECT_MAX, pattern: SUBJECT_PATTERN, description: `The id of the ${aggregate} record to act on. Leave it out to make a new ${aggregate} record: the node makes its id.` },
  };
  const note = `Leave subject out to make a new ${aggregate} record (the node makes its id); give a record's id to act on that record.`;
  return {
    name: `${schema.namespace}.${member}`,
    kind: "action",
    namespace: schema.namespace,
    member,
    aggregate,
    description: describe(docs, member, `${member}, an action on ${aggregate} records of ${schema.namespace}.`, note),
    parameters: objectSchema([subject, ...params.map(withDefault)]),
  };
}

/** A query as a tool: its parameters, `limit` (an Int) optional with the node's default and bound. */
function queryTool(schema: InstalledContract["schema"], docs: ContractDocs, member: string): BuiltTool {
  const query = (schema.queries as Record<string, QueryHead | undefined>)[member];
  const params = (query?.params ?? []).map((p): SchemaProperty => (isLimit(p) ? { name: p.name, optional: true, schema: { type: "integer", ...QUERY_LIMIT } } : withDefault(p)));
  const note = query?.params.some(isLimit) === true ? `It answers at most limit rows (${QUERY_LIMIT.default} when left out, at most ${QUERY_LIMIT.maximum}).` : "";
  return {
    name: `${schema.namespace}.${member}`,
    kind: "query",
    namespace: schema.namespace,
    member,
    description: describe(docs, member, `${member}, a query of ${schema.namespace}.`, note),
    parameters: objectSchema(params),
  };
}

/**
 * A parameter as a property: one whose type has a default (empty text, 0, false, the first enum
 * value, an empty list, 1970-01-01) is optional and left out means that default, which the node
 * fills in — a model need not spell out every field of a large action, and the contract still
 * refuses, with its reason, a value it does not accept. An identity or a reference has no default.
 */
function withDefault(p: { readonly name: string; readonly type: Type }): SchemaProperty {
  const value = defaultValue(p.type, null);
  const schema = typeSchema(p.type);
  return value === null ? { name: p.name, schema } : { name: p.name, optional: true, schema: { ...schema, default: value } };
}

function isLimit(p: QueryHead["params"][number]): boolean {
  return p.name === "limit" && p.type.kind === "Int";
}

/** The tool's description: what the contract says of it (or `fallback`), the note, then what the contract is; at most MAX_TOOL_DESCRIPTION. */
function describe(docs: ContractDocs, member: string, fallback: string, note: string): string {
  const lead = clipText(memberText(docs, member) || fallback, 700);
  const head = note === "" ? lead : `${lead} ${note}`;
  const about = [docs.title, docs.summary].filter((s) => s !== "").join(": ");
  const room = MAX_TOOL_DESCRIPTION - head.length - 1;
  return about !== "" && room >= 40 ? `${head}\n${clipText(about, room)}` : clipText(head, MAX_TOOL_DESCRIPTION);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
