import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { silentLogger } from "../../../../shared/log.ts";
import { NodeSettings } from "../assistant-host/node-settings.ts";
import type { ServerConfig } from "./server-config.ts";
import { ServerStore } from "./server-store.ts";
import { ToolServers } from "./tool-servers.ts";

const HELPER = fileURLToPath(new URL("../../../../test/helpers/mcp-server.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "charter-tool-servers-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function setUp(now = { ms: Date.UTC(2026, 10, 25, 22, 30) }) {
  const db = new DatabaseSync(":memory:");
  const settings = new NodeSettings(db);
  const kek = randomBytes(32);
  const store = new ServerStore({ settings, kek: () => kek, now: () => now.ms });
  const frames: string[] = [];
  const servers = new ToolServers({ store, egress: null, log: silentLogger, now: () => now.ms, timeZone: () => "Europe/Paris", dir, origin: "http://localhost:1", version: "0", broadcast: (b) => frames.push(String(b)), timeouts: { startMs: 5000, listMs: 5000, callMs: 400 } });
  const state = join(dir, `state-${randomBytes(4).toString("hex")}.json`);
  writeFileSync(state, "{}");
  const add = (config: Partial<ServerConfig> & { command: string[] }, env: Record<string, string> = { NOTES_STATE: state }) =>
    store.add({ id: "notes", name: "Notes", catalogue: "custom", transport: "stdio", url: null, ceiling: 3, ...config }, env);
  return { db, settings, store, servers, frames, state, add, now };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

describe("tool servers at run time", () => {
  // The call would take ten minutes: only its time limit (400 ms) ends it within the test's timeout.
  it("a call past its time is an error result, and the server goes on answering", { timeout: 60_000 }, async () => {
    const t = setUp();
    t.add({ command: [process.execPath, HELPER] });
    const slow = await t.servers.call("notes", "read_note", { name: "a", waitMs: 600_000 });
    assert.equal(slow.isError, true);
    assert.match(slow.content, /timed out/i);
    assert.equal((await t.servers.call("notes", "read_note", { name: "a" })).content, "there is no note a");
    t.servers.close();
  });

  it("the ceiling is per local day of the person: a new day counts again", async () => {
    const t = setUp();
    t.add({ command: [process.execPath, HELPER], ceiling: 1 });
    try {
      assert.equal((await t.servers.call("notes", "read_note", { name: "a" })).isError, false);
      const refused = await t.servers.call("notes", "read_note", { name: "a" });
      assert.equal(refused.refused, "ceiling");
      assert.match(refused.content, /midnight \(Europe\/Paris\)/);
      assert.match(t.frames.at(-1) ?? "", /"event":"ceiling"/);
      // 22:30 UTC was 23:30 in Paris; an hour later it is the next day there (still the same day in UTC).
      t.now.ms += 60 * 60_000;
      assert.equal((await t.servers.call("notes", "read_note", { name: "a" })).isError, false);
    } finally {
      t.servers.close();
    }
  });

  it("stopping kills the server's whole process group, what it started too", async () => {
    const t = setUp();
    const pidFile = join(dir, "grandchild.pid");
    t.add({ command: ["sh", "-c", `sleep 300 & echo $! > ${pidFile}; exec "${process.execPath}" "${HELPER}"`] });
    await t.servers.list("notes");
    const server = t.servers.status("notes").pid as number;
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    assert.ok(alive(server) && alive(grandchild));
    t.servers.close();
    assert.ok(await until(() => !alive(server) && !alive(grandchild)), "both gone");
  });

  it("a server that cannot start, or speaks no JSON-RPC, is an error result; it is tried again only after a back-off", async () => {
    const t = setUp();
    t.add({ command: [join(dir, "no-such-program")] });
    const missing = await t.servers.call("notes", "read_note", {});
    assert.equal(missing.isError, true);
    assert.match(missing.content, /ENOENT|not found|spawn/i);
    const status = t.servers.status("notes");
    assert.equal(status.running, false);
    assert.ok(status.retryAt !== null && status.lastError !== null);
    assert.match((await t.servers.call("notes", "read_note", {})).content, /started again in \d+ s/);

    const u = setUp();
    u.add({ command: ["sh", "-c", "echo 'this is not json'; sleep 30"] });
    const garbage = await u.servers.call("notes", "read_note", {});
    assert.equal(garbage.isError, true);
    u.servers.close();
  });

  it("a server's environment is kept sealed; the settings hold only its names", () => {
    const t = setUp();
    t.add({ command: ["x"] }, { API_TOKEN: "tok-very-secret" });
    const all = (t.db.prepare("SELECT group_concat(value, ' ') AS v FROM node_settings").get() as { v: string }).v;
    assert.ok(!all.includes("tok-very-secret"));
    assert.deepEqual(t.store.get("notes")?.envNames, ["API_TOKEN"]);
    assert.deepEqual(t.store.env("notes"), { API_TOKEN: "tok-very-secret" });
    t.store.remove("notes");
    assert.equal(t.store.get("notes"), null);
    assert.deepEqual(t.store.env("notes"), {});
  });
});
