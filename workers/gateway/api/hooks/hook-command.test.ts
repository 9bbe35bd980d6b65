/** A delivery made into its command: the same delivery always the same command; what is missing, a reason. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EmitterWebhookEvent } from "@octokit/webhooks";
import type { Type } from "../../../../contracts/ast.ts";
import type { HookDelivery } from "../../../../shared/protocol/outbox.ts";
import { type ActionShape, hookCommand, hookIdempotencyKey } from "./hook-command.ts";
import { DEFAULT_MAPPINGS, type HookMapping } from "./hook-mapping.ts";

const text = (len: number): Type => ({ kind: "Text", len }) as unknown as Type;
const int: Type = { kind: "Int" } as unknown as Type;
const list: Type = { kind: "List" } as unknown as Type;
const shape: ActionShape = { aggregate: "Task", params: [{ name: "title", type: text(200) }, { name: "notes", type: text(4000) }, { name: "priority", type: int }, { name: "tags", type: list }] };

/** What GitHub sends for an opened issue, as much of it as the mapping reads. */
const opened = {
  action: "opened",
  issue: { number: 7, title: "Crash on start", html_url: "https://github.com/acme/app/issues/7", labels: [{ name: "bug" }] },
} as unknown as EmitterWebhookEvent<"issues.opened">["payload"];

const delivery = (body: object, id = "72d3162e-cc78-11e3-81ab-4c9367dc0958"): HookDelivery => ({
  source: "github",
  delivery: id,
  event: "issues",
  action: "opened",
  receivedAt: Date.UTC(2026, 10, 20, 9, 0, 0),
  body: JSON.stringify(body),
});

describe("hookCommand", () => {
  it("makes the default mapping's task: the payload's values, literals, and defaults for the rest", () => {
    const c = hookCommand(DEFAULT_MAPPINGS[0] as HookMapping, shape, delivery(opened), opened as unknown as Record<string, unknown>);
    assert.ok(c.ok);
    assert.deepEqual(c.args, { title: "Crash on start", notes: "https://github.com/acme/app/issues/7", priority: 0, tags: ["github"] });
    assert.equal(c.idempotencyKey, "hook:github:72d3162e-cc78-11e3-81ab-4c9367dc0958");
    assert.match(c.subject, /^task-[0-9a-z]{9}-[0-9a-f]{12}$/);
    assert.equal(c.subject.slice(5, 14), Date.UTC(2026, 10, 20, 9, 0, 0).toString(36).padStart(9, "0"), "time-ordered by admission");
  });

  it("makes the same command for the same delivery, another for another", () => {
    const body = opened as unknown as Record<string, unknown>;
    const mapping = DEFAULT_MAPPINGS[0] as HookMapping;
    const a = hookCommand(mapping, shape, delivery(opened), body);
    const b = hookCommand(mapping, shape, delivery(opened), body);
    const other = hookCommand(mapping, shape, delivery(opened, "another-delivery"), body);
    assert.ok(a.ok && b.ok && other.ok);
    assert.deepEqual(a, b);
    assert.notEqual(a.subject, other.subject);
    assert.equal(hookIdempotencyKey({ source: "mastodon", delivery: "ab" }), "hook:mastodon:ab");
  });

  it("cuts text to maxLength in whole characters, and takes a subject from the payload", () => {
    const mapping: HookMapping = {
      source: "github",
      event: "issues",
      action: null,
      command: { namespace: "std.tasks", action: "Create", subject: { path: "/issue/number", prefix: "gh-" }, args: { title: { path: "/issue/title", maxLength: 3 } } },
    };
    const body = { issue: { number: 7, title: "😀😀😀😀" } };
    const c = hookCommand(mapping, shape, delivery(body), body);
    assert.ok(c.ok);
    assert.equal(c.args.title, "😀😀😀");
    assert.equal(c.subject, "gh-7");
  });

  it("fails with a reason for a missing value (unless the mapping gives a default), an object, or a subject that is not an id", () => {
    const mapping = (args: HookMapping["command"]["args"], subject?: { path: string; prefix: string }): HookMapping => ({
      source: "github",
      event: "issues",
      action: null,
      command: { namespace: "std.tasks", action: "Create", ...(subject === undefined ? {} : { subject }), args },
    });
    const body = { issue: { title: "x", user: { login: "ada" }, labels: [{ name: "bug" }], id: "not an id!" } };
    const missing = hookCommand(mapping({ title: { path: "/issue/body" } }), shape, delivery(body), body);
    assert.deepEqual(missing, { ok: false, reason: "the payload has nothing at /issue/body (title is taken from /issue/body)" });
    const defaulted = hookCommand(mapping({ title: { path: "/issue/body", default: "(none)" } }), shape, delivery(body), body);
    assert.ok(defaulted.ok && defaulted.args.title === "(none)");
    const object = hookCommand(mapping({ title: { path: "/issue/user" } }), shape, delivery(body), body);
    assert.ok(!object.ok && /an object/.test(object.reason));
    const objects = hookCommand(mapping({ tags: { path: "/issue/labels" } }), shape, delivery(body), body);
    assert.ok(!objects.ok && /list of objects/.test(objects.reason));
    const subject = hookCommand(mapping({}, { path: "/issue/id", prefix: "" }), shape, delivery(body), body);
    assert.ok(!subject.ok && /not a record id/.test(subject.reason));
  });
});
