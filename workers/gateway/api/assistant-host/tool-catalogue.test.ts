import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileContract } from "../../../../contracts/compile.ts";
import type { Schema } from "../../../../contracts/schema.ts";
import { standardLibrary } from "../../../../contracts/std/library.ts";
import { type AssistantTool, catalogueOf, type InstalledContract, offeredTools, toolByCallName } from "./tool-catalogue.ts";
import { CALL_NAME } from "./tool-call-names.ts";
import { MAX_TOOL_DESCRIPTION } from "./contract-docs.ts";

const LIBRARY: InstalledContract[] = standardLibrary().map((a) => ({ artifact: a.id, schema: JSON.parse(a.schemaJson) as Schema, source: () => a.source }));
const NONE = { tools: {}, sensitive: {} };

function find(catalogue: readonly AssistantTool[], name: string): AssistantTool {
  const tool = catalogue.find((t) => t.name === name);
  assert.ok(tool !== undefined, `${name} is in the catalogue`);
  return tool;
}

function compiled(markdown: string): InstalledContract {
  const result = compileContract(markdown);
  assert.ok(result.artifact !== undefined, JSON.stringify(result.diagnostics));
  return { artifact: result.artifact.id, schema: result.artifact.schema, source: () => markdown };
}

describe("the assistant's tool catalogue", () => {
  const catalogue = catalogueOf(LIBRARY, NONE);

  it("lists the exposed actions, then the queries, each by name; std.approvals is never a tool", () => {
    const kinds = catalogue.map((t) => t.kind);
    assert.equal(kinds.lastIndexOf("action") + 1, kinds.indexOf("query"), "actions first");
    const names = (kind: string) => catalogue.filter((t) => t.kind === kind).map((t) => t.name);
    assert.deepEqual(names("action"), [...names("action")].sort());
    assert.deepEqual(names("query"), [...names("query")].sort());
    assert.ok(!catalogue.some((t) => t.namespace === "std.approvals"));
    assert.ok(catalogue.some((t) => t.name === "std.invoices.Record"), "contracts beyond the node's own are tools too");
  });

  it("an action: its aggregate, an optional subject first, then its parameters with their types' defaults, as JSON Schema", () => {
    const create = find(catalogue, "std.tasks.Create");
    assert.equal(create.kind, "action");
    assert.equal(create.member, "Create");
    assert.equal(create.aggregate, "Task");
    assert.equal(create.callName, "std_tasks_Create");
    const params = create.parameters as { type: string; properties: Record<string, Record<string, unknown>>; required: string[]; additionalProperties: boolean };
    assert.equal(params.type, "object");
    assert.equal(params.additionalProperties, false);
    assert.deepEqual(Object.keys(params.properties), ["subject", "title", "notes", "has_due", "due_on", "due_at", "repeat", "interval", "repeat_rule", "priority", "tags", "links"]);
    assert.deepEqual(params.required, [], "every parameter of Create has a default");
    assert.equal(params.properties.subject?.maxLength, 128);
    assert.match(String(params.properties.subject?.description), /Leave it out to make a new Task record/);
    assert.deepEqual(params.properties.title, { type: "string", maxLength: 200, default: "" });
    assert.deepEqual(params.properties.repeat, { type: "string", enum: ["None", "Daily", "Weekly", "Monthly", "Yearly"], default: "None" });
    assert.deepEqual(params.properties.tags, { type: "array", items: { type: "string", maxLength: 40 }, maxItems: 20, default: [] });
    assert.equal(params.properties.due_on?.format, "date");
  });

  it("a query: its parameters, limit optional (20 by default, at most 100)", () => {
    const open = find(catalogue, "std.tasks.Open");
    assert.equal(open.kind, "query");
    assert.equal(open.aggregate, undefined);
    const params = open.parameters as { properties: Record<string, Record<string, unknown>>; required: string[] };
    assert.deepEqual(Object.keys(params.properties), ["after", "limit"]);
    assert.deepEqual(params.required, []);
    assert.deepEqual(params.properties.limit, { type: "integer", default: 20, minimum: 1, maximum: 100 });
    assert.match(open.description, /at most limit rows \(20 when left out, at most 100\)/);
    const count = find(catalogue, "std.tasks.DueCount");
    assert.deepEqual(Object.keys((count.parameters as { properties: object }).properties), ["before"], "no limit, nothing said of one");
    assert.doesNotMatch(count.description, /limit rows/);
  });

  it("descriptions come from the contract's Markdown: what names the tool, then what the contract is; at most 1,000 characters", () => {
    const add = find(catalogue, "std.memory.Add");
    assert.match(add.description, /^Add writes a note once: a subject that already has a note, kept or deleted, refuses it/);
    assert.match(add.description, /Leave subject out to make a new Note record \(the node makes its id\)/);
    assert.match(add.description, /\nstd\.memory — the person's memory notes: Installed by charter node in the personal tenant\./);
    for (const tool of catalogue) assert.ok(tool.description.length <= MAX_TOOL_DESCRIPTION, `${tool.name}: ${tool.description.length}`);
  });

  it("modes and sensitivity: off but std.memory.Add; std.identities' actions and SetSensitiveInstructions sensitive; the setting overrides", () => {
    assert.deepEqual(catalogue.filter((t) => t.mode !== "off").map((t) => t.name), ["std.memory.Add"]);
    assert.deepEqual(catalogue.filter((t) => t.sensitive).map((t) => t.name), [
      ...catalogue.filter((t) => t.namespace === "std.identities" && t.kind === "action").map((t) => t.name),
      "std.persona.SetSensitiveInstructions",
    ]);
    const set = catalogueOf(LIBRARY, { tools: { "std.tasks.Open": "read", "std.memory.Add": "off" }, sensitive: { "std.tasks.Create": true } });
    assert.equal(find(set, "std.tasks.Open").mode, "read");
    assert.equal(find(set, "std.memory.Add").mode, "off");
    assert.equal(find(set, "std.tasks.Create").sensitive, true);
  });

  it("offers the model only the tools not off, by call name", () => {
    const set = catalogueOf(LIBRARY, { tools: { "std.tasks.Open": "read", "std.tasks.Create": "ask" }, sensitive: {} });
    const offered = offeredTools(set);
    assert.deepEqual(offered.map((t) => t.name), ["std_memory_Add", "std_tasks_Create", "std_tasks_Open"]);
    const open = find(set, "std.tasks.Open");
    assert.deepEqual(offered[2], { name: open.callName, description: open.description, parameters: open.parameters });
    assert.equal(toolByCallName(set, "std_tasks_Open"), open);
    assert.equal(toolByCallName(set, "std.tasks.Open"), undefined);
  });

  it("call names are distinct and fit the providers' pattern", () => {
    assert.equal(new Set(catalogue.map((t) => t.callName)).size, catalogue.length);
    for (const tool of catalogue) assert.match(tool.callName, CALL_NAME);
  });

  it("one tool per name: the engine's action of a name is the first aggregate's; an action with its own subject parameter is left out", () => {
    const contract = compiled([
      "# acme.twice — two aggregates",
      "",
      "```charter",
      "namespace acme.twice",
      "version 1.0.0",
      "aggregate Alpha {",
      "  public n: Int",
      "  # Makes an Alpha.",
      "  action Create(n: Int) api authenticated {",
      "    authorize member",
      "    apply {",
      "      state.n = n",
      "    }",
      "  }",
      "  action Label(subject: Text(len=10)) api authenticated {",
      "    authorize member",
      "  }",
      "}",
      "aggregate Beta {",
      "  public m: Int",
      "  action Create(m: Int, k: Bool) api authenticated {",
      "    authorize member",
      "    apply {",
      "      state.m = m",
      "    }",
      "  }",
      "}",
      "```",
    ].join("\n"));
    const tools = catalogueOf([contract], NONE);
    assert.deepEqual(tools.map((t) => t.name), ["acme.twice.Create"]);
    assert.equal(tools[0]?.aggregate, "Alpha");
    assert.equal(tools[0]?.description.split("\n")[0], "Makes an Alpha. Leave subject out to make a new Alpha record (the node makes its id); give a record's id to act on that record.");
  });
});
