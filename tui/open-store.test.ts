/**
 * Issue 9: the console opens the store without changing the data directory — `immutable` when
 * the node is stopped cleanly, a private copy when a killed node left committed pages in the WAL,
 * a plain read-only connection that follows commits while the node runs.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { cleanup, tempDataDir } from "../test/helpers/charter-process.ts";
import { openStoreReader, type StoreReader } from "./open-store.ts";
import { migrate } from "../shared/store/migrations.ts";
import { openDatabase } from "../shared/store/open.ts";

/** Every file of `dir` with its SHA-256. */
function checksums(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, createHash("sha256").update(readFileSync(join(dir, f))).digest("hex")]));
}

function store(dir: string): DatabaseSync {
  const db = openDatabase(join(dir, "charter.db"));
  migrate(db);
  db.exec("INSERT INTO tenants (handle, did, created_at) VALUES ('acme', 'did:key:z6Mk', 1)");
  return db;
}

async function handles(reader: StoreReader): Promise<string[]> {
  const rows = (await reader.kysely?.selectFrom("tenants").select("handle").orderBy("handle").execute()) ?? [];
  return rows.map((r) => r.handle);
}

test("no store: absent, and nothing is created", () => {
  const dir = tempDataDir();
  const reader = openStoreReader(dir, false);
  assert.equal(reader.mode, "absent");
  assert.equal(reader.kysely, null);
  reader.close();
  assert.deepEqual(readdirSync(dir), []);
  cleanup(dir);
});

test("a cleanly stopped store is read immutable: no -wal or -shm appears, no byte changes", async () => {
  const dir = tempDataDir();
  store(dir).close();
  const before = checksums(dir);
  assert.deepEqual(Object.keys(before), ["charter.db"]);
  const reader = openStoreReader(dir, false);
  assert.equal(reader.mode, "immutable");
  assert.deepEqual(await handles(reader), ["acme"]);
  assert.deepEqual(checksums(dir), before, "while open");
  reader.close();
  assert.deepEqual(checksums(dir), before, "after closing");
  cleanup(dir);
});

test("a killed node's WAL is read from a private copy; the directory is unchanged", async () => {
  const dir = tempDataDir();
  store(dir).close();
  // A writer killed with its commit only in the WAL, as `kill -9` of the engine leaves it.
  const script = `const { DatabaseSync } = require("node:sqlite"); const db = new DatabaseSync(${JSON.stringify(join(dir, "charter.db"))}); db.exec("PRAGMA journal_mode = WAL; INSERT INTO tenants (handle, did, created_at) VALUES ('beta', 'did:key:z6Mk', 2)"); process.kill(process.pid, "SIGKILL");`;
  assert.throws(() => execFileSync(process.execPath, ["-e", script], { stdio: "ignore" }));
  const before = checksums(dir);
  assert.ok(before["charter.db-wal"] !== undefined, "the WAL is left behind");
  const reader = openStoreReader(dir, false);
  assert.equal(reader.mode, "snapshot");
  assert.deepEqual(await handles(reader), ["acme", "beta"], "the WAL's commit is seen");
  reader.close();
  assert.deepEqual(checksums(dir), before);
  cleanup(dir);
});

test("with the node running, a read-only connection follows commits through data_version", async () => {
  const dir = tempDataDir();
  const writer = store(dir);
  const reader = openStoreReader(dir, true);
  assert.equal(reader.mode, "live");
  const version = reader.dataVersion();
  writer.exec("INSERT INTO tenants (handle, did, created_at) VALUES ('gamma', 'did:key:z6Mk', 3)");
  assert.notEqual(reader.dataVersion(), version);
  assert.deepEqual(await handles(reader), ["acme", "gamma"]);
  await assert.rejects(reader.kysely!.deleteFrom("tenants").execute(), /readonly/, "the console cannot write");
  reader.close();
  writer.close();
  cleanup(dir);
});
