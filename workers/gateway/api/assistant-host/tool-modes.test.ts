import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";
import { NodeSettings } from "./node-settings.ts";
import { changeToolSettings, defaultMode, defaultSensitive, MAX_TOOL_ENTRIES, modeOf, readToolSettings, sensitiveOf, type ToolKey, TOOLS_SETTING, type ToolSettings } from "./tool-modes.ts";

const tool = (name: string, kind: ToolKey["kind"]): ToolKey => {
  const dot = name.lastIndexOf(".");
  return { name, kind, namespace: name.slice(0, dot), member: name.slice(dot + 1) };
};
const CREATE = tool("std.tasks.Create", "action");
const OPEN = tool("std.tasks.Open", "query");
const ADD = tool("std.memory.Add", "action");
const REGISTER = tool("std.identities.Register", "action");
const REGISTERED = tool("std.identities.Registered", "query");
const SENSITIVE = tool("std.persona.SetSensitiveInstructions", "action");
const CONSTITUTION = tool("std.persona.SetConstitution", "action");
const CATALOGUE = [CREATE, OPEN, ADD, REGISTER, REGISTERED, SENSITIVE, CONSTITUTION];
const NONE: ToolSettings = { tools: {}, sensitive: {} };

describe("the tools setting", () => {
  it("denies by default: every tool off but std.memory.Add, which asks", () => {
    assert.equal(defaultMode(CREATE), "off");
    assert.equal(defaultMode(OPEN), "off");
    assert.equal(defaultMode(ADD), "ask");
    assert.deepEqual(CATALOGUE.map((t) => modeOf(t, NONE)), ["off", "off", "ask", "off", "off", "off", "off"]);
  });

  it("marks sensitive by default every action of std.identities and std.persona.SetSensitiveInstructions, nothing else", () => {
    assert.deepEqual(
      CATALOGUE.filter((t) => defaultSensitive(t)).map((t) => t.name),
      ["std.identities.Register", "std.persona.SetSensitiveInstructions"],
    );
  });

  it("a change merges: a name not sent keeps its mode; only what differs from the defaults is kept", () => {
    const first = changeToolSettings(CATALOGUE, NONE, { tools: { "std.tasks.Open": "read", "std.tasks.Create": "ask" } });
    assert.ok(first.ok);
    assert.deepEqual(first.value, { tools: { "std.tasks.Create": "ask", "std.tasks.Open": "read" }, sensitive: {} });
    const second = changeToolSettings(CATALOGUE, first.value, { tools: { "std.tasks.Create": "off", "std.memory.Add": "off" }, sensitive: { "std.tasks.Create": true, "std.identities.Register": false } });
    assert.ok(second.ok);
    assert.deepEqual(second.value, { tools: { "std.tasks.Open": "read", "std.memory.Add": "off" }, sensitive: { "std.tasks.Create": true, "std.identities.Register": false } });
    assert.equal(modeOf(OPEN, second.value), "read");
    assert.equal(modeOf(CREATE, second.value), "off");
    assert.equal(sensitiveOf(CREATE, second.value), true);
    assert.equal(sensitiveOf(REGISTER, second.value), false);
    assert.equal(sensitiveOf(SENSITIVE, second.value), true, "a default not changed");
  });

  it("an action is never read; a query may be; every wrong entry is named and nothing changes", () => {
    const refused = changeToolSettings(CATALOGUE, NONE, { tools: { "std.tasks.Create": "read", "std.nothing.Here": "ask", "std.tasks.Open": "always" }, sensitive: { "std.tasks.Open": "yes" } });
    assert.ok(!refused.ok);
    assert.deepEqual(refused.errors.map((e) => e.pointer), ["#/tools/std.tasks.Create", "#/tools/std.nothing.Here", "#/tools/std.tasks.Open", "#/sensitive/std.tasks.Open"]);
    assert.match(refused.errors[0]?.detail ?? "", /action: off or ask/);
    assert.match(refused.errors[1]?.detail ?? "", /not a tool/);
  });

  it("tools and sensitive must be objects, and one change holds at most 2,000 entries", () => {
    const wrong = changeToolSettings(CATALOGUE, NONE, { tools: ["std.tasks.Open"], sensitive: "all" });
    assert.ok(!wrong.ok);
    assert.deepEqual(wrong.errors.map((e) => e.pointer), ["#/tools", "#/sensitive"]);
    const many = Object.fromEntries(Array.from({ length: MAX_TOOL_ENTRIES + 1 }, (_, i) => [`x.y.T${i}`, "off"]));
    const tooMany = changeToolSettings(CATALOGUE, NONE, { tools: many });
    assert.ok(!tooMany.ok);
    assert.match(tooMany.errors[0]?.detail ?? "", /at most 2000 entries/);
    assert.equal(tooMany.errors.length, 1);
  });

  it("a name with / or ~ is pointed at as JSON Pointer escapes it", () => {
    const refused = changeToolSettings(CATALOGUE, NONE, { tools: { "a/b~c": "off" } });
    assert.ok(!refused.ok);
    assert.equal(refused.errors[0]?.pointer, "#/tools/a~1b~0c");
  });

  it("a stored setting is read defensively: entries that are not modes or booleans are as if absent; an action stored as read is off", () => {
    const settings = new NodeSettings(new DatabaseSync(":memory:"));
    assert.deepEqual(readToolSettings(settings), NONE);
    settings.put(TOOLS_SETTING, { tools: { "std.tasks.Open": "read", "std.tasks.Create": "read", bad: 3 }, sensitive: { "std.tasks.Open": true, bad: "no" } });
    const stored = readToolSettings(settings);
    assert.deepEqual(stored, { tools: { "std.tasks.Open": "read", "std.tasks.Create": "read" }, sensitive: { "std.tasks.Open": true } });
    assert.equal(modeOf(OPEN, stored), "read");
    assert.equal(modeOf(CREATE, stored), "off");
    settings.put(TOOLS_SETTING, ["not", "an", "object"]);
    assert.deepEqual(readToolSettings(settings), NONE);
  });
});
