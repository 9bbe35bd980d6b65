/**
 * The assistant's tools and their modes on a real `charter node`: `GET /api/settings/tools` lists
 * the personal tenant's contracts' actions and queries with their JSON Schema parameters and modes
 * (off by default, `std.memory.Add` ask); `PUT` merges a change into the `tools` setting in
 * `accounts.db`; an action is never `read`, a name not in the catalogue is `400`, and the routes
 * need a session.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { ApiClient, createAccount, printedSetupCode } from "./helpers/api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";

interface Item {
  name: string;
  callName: string;
  kind: "action" | "query";
  mode: string;
  sensitive: boolean;
  description: string;
  parameters: { type: string; properties: Record<string, Record<string, unknown>>; required: string[]; additionalProperties: boolean };
}

describe("/api/settings/tools", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";

  const item = (body: { items: Item[] }, name: string): Item => {
    const found = body.items.find((i) => i.name === name);
    assert.ok(found !== undefined, `${name} among ${body.items.map((i) => i.name).join(", ")}`);
    return found;
  };
  const stored = (): unknown => {
    const db = new DatabaseSync(join(node.dataDir, "accounts.db"), { readOnly: true });
    try {
      const row = db.prepare("SELECT value FROM node_settings WHERE name = 'tools'").get() as { value: string } | undefined;
      return row === undefined ? undefined : JSON.parse(row.value);
    } finally {
      db.close();
    }
  };

  before(async () => {
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
    cookie = (await createAccount(api, printedSetupCode(node))).cookie;
    // The node's own contracts are installed in the personal tenant just after set-up.
    await waitFor("std.tasks and std.memory as tools", async () => {
      const answer = await api.call("GET", "/api/settings/tools", { cookie });
      const names = new Set(answer.status === 200 ? (answer.body.items as Item[]).map((i) => i.name) : []);
      return names.has("std.tasks.Create") && names.has("std.memory.Add") ? true : undefined;
    });
  });
  after(async () => {
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("lists the tools: std.tasks.Create off with title a bounded string, std.memory.Add ask, no std.approvals", async () => {
    const answer = await api.call("GET", "/api/settings/tools", { cookie });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const create = item(answer.body, "std.tasks.Create");
    assert.equal(create.kind, "action");
    assert.equal(create.mode, "off");
    assert.equal(create.sensitive, false);
    assert.equal(create.callName, "std_tasks_Create");
    assert.deepEqual(create.parameters.properties.title, { type: "string", maxLength: 200, default: "" });
    assert.equal(create.parameters.properties.subject?.type, "string");
    assert.ok(!create.parameters.required.includes("subject"));
    assert.ok(!create.parameters.required.includes("title"), "left out, a parameter takes its type's default (the contract refuses an empty title itself)");
    assert.match(create.description, /^Create enters a task once/);
    const add = item(answer.body, "std.memory.Add");
    assert.equal(add.mode, "ask");
    assert.equal(item(answer.body, "std.identities.Register").sensitive, true);
    assert.equal(answer.body.tools["std.tasks.Create"], "off");
    assert.equal(answer.body.tools["std.memory.Add"], "ask");
    assert.deepEqual(Object.keys(answer.body.tools), (answer.body.items as Item[]).map((i) => i.name), "one mode per tool");
    assert.ok(!(answer.body.items as Item[]).some((i) => i.name.startsWith("std.approvals.")), "deciding approvals is never a tool");
    assert.equal(stored(), undefined, "nothing is stored until the person changes something");
  });

  it("PUT std.tasks.Open read: stored, answered and kept by the next GET", async () => {
    const put = await api.call("PUT", "/api/settings/tools", { cookie, body: { tools: { "std.tasks.Open": "read" } } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.tools["std.tasks.Open"], "read");
    assert.equal(item(put.body, "std.tasks.Open").mode, "read");
    assert.deepEqual(stored(), { tools: { "std.tasks.Open": "read" }, sensitive: {} });
    const got = await api.call("GET", "/api/settings/tools", { cookie });
    assert.equal(got.body.tools["std.tasks.Open"], "read");
  });

  it("a partial PUT merges: a name not sent keeps its mode; marking a tool sensitive is kept too", async () => {
    const put = await api.call("PUT", "/api/settings/tools", { cookie, body: { tools: { "std.tasks.Create": "ask" }, sensitive: { "std.tasks.Create": true } } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.tools["std.tasks.Open"], "read", "kept");
    assert.equal(put.body.tools["std.tasks.Create"], "ask");
    assert.equal(item(put.body, "std.tasks.Create").sensitive, true);
    assert.deepEqual(stored(), { tools: { "std.tasks.Create": "ask", "std.tasks.Open": "read" }, sensitive: { "std.tasks.Create": true } });
  });

  it("an action set to read is 400 naming it, and nothing changes", async () => {
    const before = stored();
    const put = await api.call("PUT", "/api/settings/tools", { cookie, body: { tools: { "std.tasks.Complete": "read", "std.tasks.Done": "read" } } });
    assert.equal(put.status, 400, JSON.stringify(put.body));
    assert.equal(put.body.code, "bad-settings");
    assert.deepEqual(put.body.errors, [{ pointer: "#/tools/std.tasks.Complete", detail: "std.tasks.Complete is an action: off or ask (a change always waits for the person)" }]);
    assert.deepEqual(stored(), before, "not even the valid entry of the refused change");
  });

  it("a name not in the catalogue is 400 naming it; so are a mode that is none and a body of the wrong shape", async () => {
    const unknown = await api.call("PUT", "/api/settings/tools", { cookie, body: { tools: { "std.tasks.Fly": "ask" } } });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body.errors.map((e: { pointer: string }) => e.pointer), ["#/tools/std.tasks.Fly"]);
    const approvals = await api.call("PUT", "/api/settings/tools", { cookie, body: { tools: { "std.approvals.Approve": "ask" } } });
    assert.equal(approvals.status, 400, "std.approvals is not a tool to turn on");
    const mode = await api.call("PUT", "/api/settings/tools", { cookie, body: { tools: { "std.tasks.Open": "always" }, sensitive: { "std.tasks.Open": "yes" } } });
    assert.equal(mode.status, 400);
    assert.deepEqual(mode.body.errors.map((e: { pointer: string }) => e.pointer), ["#/tools/std.tasks.Open", "#/sensitive/std.tasks.Open"]);
    const shape = await api.call("PUT", "/api/settings/tools", { cookie, body: { tools: ["std.tasks.Open"] } });
    assert.equal(shape.status, 400);
    assert.deepEqual(shape.body.errors, [{ pointer: "#/tools", detail: "tools is an object of tool names" }]);
    const field = await api.call("PUT", "/api/settings/tools", { cookie, body: { modes: {} } });
    assert.equal(field.status, 400);
    assert.deepEqual(field.body.errors, [{ pointer: "#/modes", detail: "unknown field" }]);
    const many = Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`x.y.T${i}`, "off"]));
    const tooMany = await api.call("PUT", "/api/settings/tools", { cookie, body: { tools: many } });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.detail, /at most 2000 entries/);
    assert.equal((await api.call("GET", "/api/settings/tools", { cookie })).body.tools["std.tasks.Open"], "read", "still as it was");
  });

  it("needs a session: 401 without one, and the node's Origin to change anything", async () => {
    const get = await api.call("GET", "/api/settings/tools");
    assert.equal(get.status, 401);
    assert.equal(get.body.code, "unauthenticated");
    const put = await api.call("PUT", "/api/settings/tools", { body: { tools: { "std.tasks.Open": "off" } } });
    assert.equal(put.status, 401);
    const foreign = await api.call("PUT", "/api/settings/tools", { cookie, origin: "http://evil.example", body: { tools: { "std.tasks.Open": "off" } } });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.code, "bad-origin");
    assert.equal((await api.call("GET", "/api/settings/tools", { cookie })).body.tools["std.tasks.Open"], "read");
  });
});
