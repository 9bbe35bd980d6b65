import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Schema } from "../../../../contracts/schema.ts";
import { standardLibrary } from "../../../../contracts/std/library.ts";
import { MAX_ARGUMENTS_BYTES, parseToolArguments } from "./tool-arguments.ts";
import { type AssistantTool, catalogueOf } from "./tool-catalogue.ts";

const CATALOGUE = catalogueOf(
  standardLibrary().map((a) => ({ artifact: a.id, schema: JSON.parse(a.schemaJson) as Schema, source: () => a.source })),
  { tools: {}, sensitive: {} },
);
const tool = (name: string): AssistantTool => {
  const found = CATALOGUE.find((t) => t.name === name);
  assert.ok(found !== undefined, name);
  return found;
};
const ADD = tool("std.memory.Add");
const OPEN = tool("std.tasks.Open");
const REOPEN = tool("std.tasks.Reopen");

function error(result: ReturnType<typeof parseToolArguments>): string {
  assert.ok(!result.ok, "refused");
  assert.doesNotMatch(result.error, /\n/, "one line");
  return result.error;
}

describe("reading a model's tool arguments", () => {
  it("takes an action's subject apart from its arguments", () => {
    assert.deepEqual(parseToolArguments(ADD, JSON.stringify({ subject: "note-1", text: "milk", tags: ["shop"] })), { ok: true, subject: "note-1", args: { text: "milk", tags: ["shop"] } });
  });

  it("a subject left out (or null) is a new record: the node makes its id", () => {
    assert.deepEqual(parseToolArguments(ADD, '{"text": "milk", "tags": []}'), { ok: true, subject: null, args: { text: "milk", tags: [] } });
    assert.deepEqual(parseToolArguments(ADD, '{"text": "milk", "tags": [], "subject": null}'), { ok: true, subject: null, args: { text: "milk", tags: [] } });
  });

  it("a subject that is not a record id is refused, saying what one is", () => {
    assert.match(error(parseToolArguments(ADD, '{"subject": "no spaces", "text": "x", "tags": []}')), /^subject must be a record's id: 1–128 characters/);
    assert.match(error(parseToolArguments(ADD, `{"subject": "${"x".repeat(129)}", "text": "x", "tags": []}`)), /^subject must be/);
    assert.match(error(parseToolArguments(ADD, '{"subject": 12, "text": "x", "tags": []}')), /^subject must be/);
  });

  it("an action without parameters takes {} or nothing at all", () => {
    assert.deepEqual(parseToolArguments(REOPEN, '{"subject": "task-1"}'), { ok: true, subject: "task-1", args: {} });
    assert.deepEqual(parseToolArguments(REOPEN, ""), { ok: true, subject: null, args: {} });
  });

  it("not JSON", () => {
    assert.match(error(parseToolArguments(ADD, '{"text": "milk",')), /^the arguments are not JSON \(.+\): send one JSON object of std_memory_Add's parameters$/);
  });

  it("not an object", () => {
    assert.match(error(parseToolArguments(ADD, '["milk"]')), /must be a JSON object of std_memory_Add's parameters, not an array$/);
    assert.match(error(parseToolArguments(ADD, "null")), /not null$/);
    assert.match(error(parseToolArguments(ADD, '"milk"')), /not a string$/);
  });

  it("an unknown key is named, with the parameters there are", () => {
    assert.equal(error(parseToolArguments(ADD, '{"text": "milk", "tags": [], "colour": "red"}')), 'std_memory_Add has no parameter "colour"; its parameters are subject, text, tags');
    assert.match(error(parseToolArguments(OPEN, '{"after": "", "subject": "x"}')), /has no parameter "subject"/, "a query has no subject");
    assert.match(error(parseToolArguments(ADD, '{"__proto__": 1, "text": "milk", "tags": []}')), /has no parameter "__proto__"/);
  });

  it("a parameter left out takes its type's default; a missing required one is named", () => {
    assert.deepEqual(parseToolArguments(ADD, '{"text": "milk"}'), { ok: true, subject: null, args: { text: "milk", tags: [] } });
    assert.deepEqual(parseToolArguments(ADD, "{}"), { ok: true, subject: null, args: { text: "", tags: [] } });
    const required: AssistantTool = { ...ADD, parameters: { type: "object", properties: { owner: { type: "string" }, text: { type: "string", default: "" } }, required: ["owner"], additionalProperties: false } };
    assert.equal(error(parseToolArguments(required, '{"text": "x"}')), "missing required parameter owner of std_memory_Add");
  });

  it("a query's limit is 20 when left out, and a whole number from 1 to 100 when given", () => {
    assert.deepEqual(parseToolArguments(OPEN, '{"after": ""}'), { ok: true, subject: null, args: { after: "", limit: 20 } });
    assert.deepEqual(parseToolArguments(OPEN, '{"after": "task-1", "limit": 100}'), { ok: true, subject: null, args: { after: "task-1", limit: 100 } });
    assert.match(error(parseToolArguments(OPEN, '{"after": "", "limit": 101}')), /^limit must be a whole number from 1 to 100 \(20 when left out\)$/);
    assert.match(error(parseToolArguments(OPEN, '{"after": "", "limit": "5"}')), /^limit must be/);
  });

  it("the values are the engine's to check: a wrong type passes through unchanged", () => {
    assert.deepEqual(parseToolArguments(ADD, '{"text": 42, "tags": {"deep": [[[1]]]}}'), { ok: true, subject: null, args: { text: 42, tags: { deep: [[[1]]] } } });
  });

  it("arguments beyond the JSON limits of everything that enters are refused: too deep, too many values", () => {
    const deep = `{"text": "x", "tags": ${"[".repeat(40)}${"]".repeat(40)}}`;
    assert.match(error(parseToolArguments(ADD, deep)), /^the arguments are nested more than 32 levels deep: send flatter values$/);
    const many = JSON.stringify({ text: "x", tags: Array.from({ length: 10_001 }, () => 0) });
    assert.match(error(parseToolArguments(ADD, many)), /^the arguments hold more than 10000 values \(at #\/tags\): send less$/);
  });

  it("arguments over 64 KiB are refused before they are parsed", () => {
    const big = JSON.stringify({ text: "x".repeat(MAX_ARGUMENTS_BYTES), tags: [] });
    assert.equal(error(parseToolArguments(ADD, big)), "the arguments are over 64 KiB: send shorter values");
    const multibyte = JSON.stringify({ text: "é".repeat(MAX_ARGUMENTS_BYTES / 2), tags: [] });
    assert.ok(multibyte.length < MAX_ARGUMENTS_BYTES, "fewer characters than the limit, more bytes");
    assert.match(error(parseToolArguments(ADD, multibyte)), /over 64 KiB/);
    const fits = JSON.stringify({ text: "x".repeat(60_000), tags: [] });
    assert.ok(parseToolArguments(ADD, fits).ok);
  });
});
