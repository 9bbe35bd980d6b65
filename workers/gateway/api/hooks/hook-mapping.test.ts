/** Webhook mappings: checked whole when set, every problem named; the first match acts. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ActionLookup, checkMappings, DEFAULT_MAPPINGS, type HookMapping, matchMapping } from "./hook-mapping.ts";

const TASK_PARAMS = ["title", "notes", "has_due", "due_on", "due_at", "repeat", "interval", "repeat_rule", "priority", "tags", "links"];
const lookup = (namespace: string, action: string): ActionLookup =>
  namespace === "std.tasks" && action === "Create" ? { ok: true, params: TASK_PARAMS } : { ok: false, detail: `${namespace} has no action ${action}` };

const task = (args: Record<string, unknown> = { title: { path: "/issue/title" } }) => ({ namespace: "std.tasks", action: "Create", args });

describe("checkMappings", () => {
  it("takes the defaults back as they are", () => {
    const checked = checkMappings(JSON.parse(JSON.stringify(DEFAULT_MAPPINGS)), lookup);
    assert.ok(checked.ok);
    assert.deepEqual(checked.value, DEFAULT_MAPPINGS);
  });

  it("takes GitHub events and actions GitHub has, and Mastodon events without an action", () => {
    const checked = checkMappings(
      [
        { source: "github", event: "issues", action: null, command: task() },
        { source: "github", event: "pull_request", action: "closed", command: task({ title: { value: "PR closed" } }) },
        { source: "mastodon", event: "status.created", command: { ...task({ title: { path: "/object/content", maxLength: 200, default: "(no text)" } }), subject: { path: "/object/id", prefix: "toot-" } } },
      ],
      lookup,
    );
    assert.ok(checked.ok, JSON.stringify(checked));
    assert.equal(checked.value[0]?.action, null);
    assert.deepEqual(checked.value[2]?.command.subject, { path: "/object/id", prefix: "toot-" });
  });

  it("names every problem by its pointer", () => {
    const checked = checkMappings(
      [
        { source: "gitlab", event: "push", command: task() },
        { source: "github", event: "issuez", command: task() },
        { source: "github", event: "issues", action: "exploded", command: task() },
        { source: "mastodon", event: "status.created", action: "x", command: task() },
        { source: "github", event: "issues", command: { namespace: "std.tasks", action: "Explode", args: {} } },
        { source: "github", event: "issues", command: task({ titel: { path: "/issue/title" }, notes: { path: "issue/body" }, priority: { value: 1, extra: 2 }, tags: { path: "/x", maxLength: 0 } }) },
        { source: "github", event: "issues", command: task(), colour: "red" },
        { source: "github", event: "issues", command: { ...task(), subject: { path: "/issue/id", prefix: "bad prefix" } } },
      ],
      lookup,
    );
    assert.equal(checked.ok, false);
    const pointers = checked.ok ? [] : checked.errors.map((e) => e.pointer);
    assert.deepEqual(pointers, [
      "#/mappings/0/source",
      "#/mappings/1/event",
      "#/mappings/2/action",
      "#/mappings/3/action",
      "#/mappings/4/command/action",
      "#/mappings/5/command/args/titel",
      "#/mappings/5/command/args/notes/path",
      "#/mappings/5/command/args/priority/extra",
      "#/mappings/5/command/args/tags/maxLength",
      "#/mappings/6/colour",
      "#/mappings/7/command/subject/prefix",
    ]);
  });

  it("bounds what it keeps: the count, the literals", () => {
    assert.equal(checkMappings(Array.from({ length: 51 }, () => DEFAULT_MAPPINGS[0]), lookup).ok, false);
    assert.equal(checkMappings([{ source: "github", event: "issues", command: task({ notes: { value: "x".repeat(5000) } }) }], lookup).ok, false);
    assert.equal(checkMappings({ not: "a list" }, lookup).ok, false);
  });
});

describe("matchMapping", () => {
  const mappings: HookMapping[] = [
    { source: "github", event: "issues", action: "opened", command: { namespace: "std.tasks", action: "Create", args: {} } },
    { source: "github", event: "issues", action: null, command: { namespace: "std.tasks", action: "Update", args: {} } },
  ];

  it("picks the first mapping of the delivery's source, event and action (null: any action)", () => {
    assert.equal(matchMapping(mappings, "github", "issues", "opened")?.command.action, "Create");
    assert.equal(matchMapping(mappings, "github", "issues", "closed")?.command.action, "Update");
    assert.equal(matchMapping(mappings, "github", "push", ""), null);
    assert.equal(matchMapping(mappings, "mastodon", "issues", "opened"), null);
  });
});
