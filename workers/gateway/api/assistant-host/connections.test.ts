import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, test } from "node:test";
import { AnthropicDouble } from "../../../../test/helpers/model-doubles/anthropic-double.ts";
import { OpenAiDouble } from "../../../../test/helpers/model-doubles/openai-double.ts";
import { loadOrCreateKek } from "../identity/kek.ts";
import { connectionInputErrors, isConnectionId, isLocalHost, MAX_BASE_URL } from "./connection-rules.ts";
import { Connections, providerOf } from "./connections.ts";
import { autonomySettings, modelSettings, routeFor, vendorCallSettings } from "./model-route.ts";
import { NodeSettings } from "./node-settings.ts";

const KEY = "sk-unit-3b9c6f0e8d1a47c2-secret";

function fixture(dir = mkdtempSync(join(tmpdir(), "charter-connections-"))) {
  const db = new DatabaseSync(join(dir, "accounts.db"));
  let clock = 1_000;
  const kek = () => loadOrCreateKek(join(dir, "keys", "account-kek"));
  const connections = new Connections({ db, kek, now: () => clock++ });
  const settings = new NodeSettings(db, () => clock);
  return { dir, db, kek, connections, settings };
}

describe("model connections", () => {
  const dirs: string[] = [];
  const made = () => {
    const f = fixture();
    dirs.push(f.dir);
    return f;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("a key is kept only sealed: neither the table's bytes nor the database file hold it; secret() opens it", () => {
    const { dir, db, connections } = made();
    const shown = connections.setKey("anthropic", { provider: "anthropic", key: KEY });
    assert.deepEqual(shown, { id: "anthropic", provider: "anthropic", baseUrl: null, hasKey: true, memory: false, createdAt: shown.createdAt, updatedAt: shown.updatedAt });
    assert.ok(!JSON.stringify(connections.list()).includes(KEY.slice(0, 8)), "a listing holds no part of the key");
    assert.deepEqual(connections.secret("anthropic"), { id: "anthropic", provider: "anthropic", baseUrl: null, key: KEY, memory: false });
    const rows = db.prepare("SELECT * FROM node_connections").all();
    const bytes = Buffer.concat(rows.flatMap((row) => Object.values(row).map((v) => (v instanceof Uint8Array ? Buffer.from(v) : Buffer.from(String(v))))));
    assert.ok(!bytes.includes(KEY), "not in any column");
    db.close();
    for (const file of readdirSync(dir).filter((f) => f.startsWith("accounts.db"))) assert.ok(!readFileSync(join(dir, file)).includes(KEY), `not in ${file}`);
  });

  test("the sealed key is bound to its connection: moved to another id, pointed at another endpoint or under another KEK, it does not open", () => {
    const { db, connections } = made();
    connections.setKey("hosted", { provider: "openai", key: KEY, baseUrl: "https://api.example.com/v1" });
    db.prepare("UPDATE node_connections SET id = 'moved' WHERE id = 'hosted'").run();
    assert.throws(() => connections.secret("moved"), /cannot be opened/);
    db.prepare("UPDATE node_connections SET id = 'hosted' WHERE id = 'moved'").run();
    assert.equal(connections.secret("hosted")?.key, KEY, "back in its own row it opens again");
    db.prepare("UPDATE node_connections SET base_url = 'https://evil.example.com/v1'").run();
    assert.throws(() => connections.secret("hosted"), /cannot be opened/);
    const other = new Connections({ db, kek: () => Buffer.alloc(32, 7), now: () => 0 });
    db.prepare("UPDATE node_connections SET base_url = 'https://api.example.com/v1'").run();
    assert.throws(() => other.secret("hosted"), /cannot be opened/);
  });

  test("ids, providers, URLs and keys are checked; what is said never quotes the key", () => {
    for (const id of ["a", "openai.main-2_b", "x".repeat(64)]) assert.ok(isConnectionId(id), id);
    for (const id of ["", "x".repeat(65), "a/b", "with space", "é", "a\n", 7]) assert.ok(!isConnectionId(id), String(id));
    const { connections } = made();
    assert.throws(() => connections.setKey("a/b", { provider: "openai", key: KEY }), RangeError);

    const fields = (input: object) => connectionInputErrors(input).map((e) => e.field);
    assert.deepEqual(fields({ provider: "openai", key: KEY }), []);
    assert.deepEqual(fields({ provider: "gemini", key: KEY }), ["provider"]);
    assert.deepEqual(fields({ provider: "openai", key: 42, baseUrl: 1, memory: "yes" }), ["baseUrl", "memory", "key"]);
    for (const baseUrl of ["ftp://host/v1", "not a url", "/v1", "http://user:pw@host/v1", "https://host/v1?x=1", "https://host/v1#f", `https://host/${"a".repeat(MAX_BASE_URL)}`]) {
      assert.deepEqual(fields({ provider: "openai", key: KEY, baseUrl }), ["baseUrl"], baseUrl);
    }
    for (const key of [`${KEY} `, `${KEY}\n`, "x".repeat(4097), "ключ"]) {
      const errors = connectionInputErrors({ provider: "openai", key });
      assert.deepEqual(errors.map((e) => e.field), ["key"]);
      assert.ok(!errors[0]!.detail.includes(KEY) && !errors[0]!.detail.includes("ключ"), "the key is not repeated");
    }
  });

  test("a key may be empty only for an OpenAI-compatible endpoint on loopback or a private address", () => {
    const empty = (provider: string, baseUrl?: string | null) => connectionInputErrors({ provider, key: "", baseUrl }).map((e) => e.field);
    for (const url of ["http://localhost:11434/v1", "http://127.0.0.1:8080/v1", "http://[::1]:11434/v1", "http://192.168.1.20:11434/v1", "http://10.0.0.5/v1", "http://172.20.1.1/v1", "http://100.101.102.103:11434/v1", "http://gpu.local:11434/v1", "http://[fd12::1]/v1", "http://[::ffff:127.0.0.1]/v1", "http://LOCALHOST.:11434/v1"]) {
      assert.deepEqual(empty("openai", url), [], url);
    }
    for (const url of ["https://api.openai.com/v1", "http://8.8.8.8/v1", "http://172.32.0.1/v1", "http://[2001:db8::1]/v1", "http://localhost.example.com/v1", null, undefined]) {
      assert.deepEqual(empty("openai", url), ["key"], String(url));
    }
    assert.deepEqual(empty("anthropic", "http://localhost:8080"), ["key"], "Anthropic always needs a key");
    assert.ok(isLocalHost("[::1]") && !isLocalHost("example.com"));
    const { connections } = made();
    const local = connections.setKey("ollama", { provider: "openai", key: "", baseUrl: "http://localhost:11434/v1" });
    assert.equal(local.hasKey, false);
    assert.equal(connections.secret("ollama")?.key, "");
  });

  test("setKey replaces a connection but keeps when it was made and whether it sees memory; at most 50; setMemory and deleteKey", () => {
    const { connections } = made();
    const first = connections.setKey("c", { provider: "openai", key: KEY, memory: true });
    const second = connections.setKey("c", { provider: "anthropic", key: `${KEY}-2` });
    assert.equal(second.createdAt, first.createdAt);
    assert.ok(second.updatedAt > first.updatedAt);
    assert.equal(second.memory, true, "memory stays as it was");
    assert.equal(connections.secret("c")?.key, `${KEY}-2`);
    assert.equal(connections.setMemory("c", false)?.memory, false);
    assert.equal(connections.setMemory("none", true), null);
    for (let i = 1; i < 50; i++) connections.setKey(`c${String(i).padStart(2, "0")}`, { provider: "openai", key: KEY });
    assert.equal(connections.list().length, 50);
    assert.deepEqual(connections.list().map((c) => c.id).slice(0, 3), ["c", "c01", "c02"], "by id");
    assert.throws(() => connections.setKey("one-more", { provider: "openai", key: KEY }), /at most 50/);
    connections.setKey("c01", { provider: "openai", key: `${KEY}-3` });
    assert.equal(connections.deleteKey("c01"), true);
    assert.equal(connections.deleteKey("c01"), false);
    assert.equal(connections.get("c01"), null);
    assert.equal(connections.secret("c01"), null);
  });

  test("routeFor: the kind's model (else the conversation's), then the kind's fallbacks; gone connections and repeats skipped", () => {
    const { connections, settings } = made();
    assert.deepEqual(routeFor("conversation", settings, connections), [], "nothing configured");
    connections.setKey("a", { provider: "openai", key: "", baseUrl: "http://localhost:11434/v1" });
    connections.setKey("b", { provider: "anthropic", key: KEY });
    settings.put("models", { conversation: { connection: "a", model: "m1" }, planning: { connection: "b", model: "m2" } });
    settings.put("routing", {
      conversation: [{ connection: "b", model: "m3" }, { connection: "gone", model: "m4" }, { connection: "a", model: "m1" }],
      summaries: [{ connection: "b", model: "m5" }],
    });
    const steps = (kind: "conversation" | "summaries" | "planning") => routeFor(kind, settings, connections).map((s) => `${s.connection.id}/${s.model}`);
    assert.deepEqual(steps("conversation"), ["a/m1", "b/m3"]);
    assert.deepEqual(steps("summaries"), ["a/m1", "b/m5"]);
    assert.deepEqual(steps("planning"), ["b/m2"]);
    assert.equal(routeFor("planning", settings, connections)[0]?.connection.key, KEY, "each step's connection is opened");
    connections.deleteKey("a");
    assert.deepEqual(steps("conversation"), ["b/m3"]);
    assert.deepEqual(steps("summaries"), ["b/m5"]);
    connections.deleteKey("b");
    assert.deepEqual(steps("conversation"), []);
  });

  test("settings read back with their defaults; a stored value that does not fit falls back rather than fails", () => {
    const { settings } = made();
    assert.deepEqual(vendorCallSettings(settings, "openai"), { maxTokens: 4096, temperature: null, responseTimeoutSeconds: 300, idleTimeoutSeconds: 120, retries: 3 });
    assert.deepEqual(autonomySettings(settings), { enabled: false, intervalMinutes: 60, turnTokenBudget: 20_000 });
    settings.put("anthropicRouting", { maxTokens: 1024, temperature: 1.5, retries: "many" });
    assert.deepEqual(vendorCallSettings(settings, "anthropic"), { maxTokens: 1024, temperature: null, responseTimeoutSeconds: 300, idleTimeoutSeconds: 120, retries: 3 });
    settings.put("autonomy", { enabled: true, intervalMinutes: 1 });
    assert.deepEqual(autonomySettings(settings), { enabled: true, intervalMinutes: 60, turnTokenBudget: 20_000 });
    settings.put("models", { conversation: { connection: "a" }, summaries: { connection: "a", model: "m" }, planning: "x" });
    assert.deepEqual(modelSettings(settings), { summaries: { connection: "a", model: "m" } });
    settings.put("models", [1, 2]);
    assert.deepEqual(modelSettings(settings), {});
  });
});

describe("providerOf: a connection becomes its provider", () => {
  let openai: OpenAiDouble;
  let anthropic: AnthropicDouble;
  const f = fixture();
  before(async () => {
    openai = await OpenAiDouble.start({ models: ["llama3.2", "qwen3"] });
    anthropic = await AnthropicDouble.start({ apiKey: KEY, models: ["claude-double"] });
  });
  after(async () => {
    await openai.close();
    await anthropic.close();
    rmSync(f.dir, { recursive: true, force: true });
  });

  test("an OpenAI-compatible endpoint without a key, and Anthropic with one, list their models", async () => {
    f.connections.setKey("ollama", { provider: "openai", key: "", baseUrl: openai.baseURL });
    f.connections.setKey("claude", { provider: "anthropic", key: KEY, baseUrl: anthropic.baseURL });
    const signal = new AbortController().signal;
    assert.deepEqual(await providerOf(f.connections.secret("ollama")!).listModels(signal), ["llama3.2", "qwen3"]);
    assert.equal(openai.requests.at(-1)?.headers.authorization, undefined, "no key, no Authorization header");
    assert.deepEqual(await providerOf(f.connections.secret("claude")!, { responseTimeoutMs: 5_000, idleTimeoutMs: 5_000 }).listModels(signal), ["claude-double"]);
    const sent = anthropic.requests.at(-1)?.headers;
    assert.ok(sent?.["x-api-key"] === KEY || sent?.authorization === `Bearer ${KEY}`, "the key is sent");
  });
});
