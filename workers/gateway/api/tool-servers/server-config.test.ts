import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkNewServer, checkServerChange, DEFAULT_CEILING, type ServerConfig } from "./server-config.ts";

const pointers = (r: ReturnType<typeof checkNewServer>) => (r.ok ? [] : r.errors.map((e) => e.pointer));

describe("a tool server's configuration", () => {
  it("a catalogue entry runs its recipe with the person's args; its id and name default to the entry's", () => {
    const r = checkNewServer({ catalogue: "filesystem", args: ["/home/ada/notes"] });
    assert.ok(r.ok);
    assert.deepEqual(r.value.config, { id: "filesystem", name: "Files", catalogue: "filesystem", transport: "stdio", command: ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/ada/notes"], url: null, ceiling: DEFAULT_CEILING });
    assert.deepEqual(pointers(checkNewServer({ catalogue: "filesystem" })), ["#/args"], "its required args");
    assert.deepEqual(pointers(checkNewServer({ catalogue: "memory", args: ["x"] })), ["#/args"], "args it does not take");
    assert.deepEqual(pointers(checkNewServer({ catalogue: "memory", command: ["sh"] })), ["#/command"], "never another command");
    const remote = checkNewServer({ catalogue: "github" });
    assert.ok(remote.ok);
    assert.equal(remote.value.config.transport, "http");
  });

  it("a custom server is an argv array or an http(s) URL, never a shell line; its env is names to strings", () => {
    const r = checkNewServer({ catalogue: "custom", command: ["/usr/bin/node", "server.js"], env: { TOKEN: "s3cret" }, ceiling: 5 });
    assert.ok(r.ok);
    assert.deepEqual([r.value.config.id, r.value.config.ceiling, r.value.env], ["node", 5, { TOKEN: "s3cret" }]);
    assert.deepEqual(pointers(checkNewServer({ catalogue: "custom", command: "node server.js" })), ["#/command"]);
    assert.deepEqual(pointers(checkNewServer({ catalogue: "custom", command: [] })), ["#/command"]);
    assert.deepEqual(pointers(checkNewServer({ catalogue: "custom", command: ["node", "a\0b"] })), ["#/command/1"]);
    assert.deepEqual(pointers(checkNewServer({ catalogue: "custom" })), ["#/command"]);
    assert.deepEqual(pointers(checkNewServer({ catalogue: "custom", url: "https://user:pw@example.com/mcp" })), ["#/url"]);
    assert.deepEqual(pointers(checkNewServer({ catalogue: "custom", url: "https://example.com/mcp", env: { A: "b" } })), ["#/env"]);
    assert.deepEqual(pointers(checkNewServer({ catalogue: "custom", command: ["x"], env: { "1X": "y", OK: 3 } })), ["#/env/1X", "#/env/OK"]);
    assert.deepEqual(pointers(checkNewServer({ catalogue: "custom", command: ["x"], id: "Not An Id", name: "", ceiling: 1.5 })), ["#/ceiling", "#/id", "#/name"]);
    const web = checkNewServer({ catalogue: "custom", url: "https://mcp.example.com/v1" });
    assert.ok(web.ok);
    assert.equal(web.value.config.id, "mcp-example");
  });

  it("a change says whether what the server runs changed (that needs a step-up)", () => {
    const config: ServerConfig = { id: "notes", name: "Notes", catalogue: "custom", transport: "stdio", command: ["node", "a.js"], url: null, ceiling: 10 };
    const renamed = checkServerChange(config, { name: "My notes", ceiling: 20 });
    assert.ok(renamed.ok);
    assert.deepEqual([renamed.config.name, renamed.config.ceiling, renamed.runs], ["My notes", 20, false]);
    const rerun = checkServerChange(config, { command: ["node", "b.js"] });
    assert.ok(rerun.ok && rerun.runs);
    const same = checkServerChange(config, { command: ["node", "a.js"] });
    assert.ok(same.ok && !same.runs);
    const env = checkServerChange(config, { env: {} });
    assert.ok(env.ok && env.runs);
    const wrong = checkServerChange(config, { url: "https://example.com", ceiling: 0 });
    assert.deepEqual(wrong.ok ? [] : wrong.errors.map((e) => e.pointer), ["#/ceiling", "#/url"]);
  });
});
