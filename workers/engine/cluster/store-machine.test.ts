/**
 * The store as a replicated state machine, for tenant keys: voters applying the same `tenant-create`
 * and `tenant-key-rotate` entries hold the same key files (the key travels in the entry); a
 * snapshot carries current and retired keys, its current keys those its store image names (even
 * when made in the middle of a rotation), and installing one takes those names and no other.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { DatabaseSync } from "node:sqlite";
import { loadKeyFile, saveKeyFile } from "../../../shared/identity/key-file.ts";
import { generateKeyPair, type KeyPair, toPrivateJwk } from "../../../shared/identity/key-pair.ts";
import { migrate } from "../../../shared/store/migrations.ts";
import { openDatabase } from "../../../shared/store/open.ts";
import type { AdminRequests } from "../../../shared/protocol/admin.ts";
import { adminHandlers } from "../admin-ops.ts";
import type { CommandProcessor } from "../commands.ts";
import { nextKeyPath, retiredKeyPath, tenantKeyPath } from "../tenant-key-files.ts";
import { finishKeyRotations } from "../tenant-key-rotate.ts";
import { encodeEntry, type AdminOp } from "./entry.ts";
import { StoreMachine } from "./store-machine.ts";

const NOW = Date.parse("2026-11-21T10:00:00Z");
const owner = generateKeyPair().did;
const root = mkdtempSync(join(tmpdir(), "charter-store-machine-"));
after(() => rmSync(root, { recursive: true, force: true }));

interface Voter {
  readonly db: DatabaseSync;
  readonly keysDir: string;
  readonly machine: StoreMachine;
}

function voter(name: string): Voter {
  const dir = join(root, name);
  mkdirSync(join(dir, "keys"), { recursive: true, mode: 0o700 });
  const storePath = join(dir, "charter.db");
  const db = openDatabase(storePath);
  migrate(db);
  const keysDir = join(dir, "keys");
  const machine = new StoreMachine({
    db,
    storePath,
    keysDir,
    runDir: join(dir, "run"),
    // Only admin entries are applied here.
    commands: {} as CommandProcessor,
    admin: (clock, tenantKey) => adminHandlers({ db, keysDir, clock, tenantKey }),
    onReplaced: () => undefined,
  });
  return { db, keysDir, machine };
}

/** An admin entry as a proposer puts it in the log. */
function entry<K extends "tenant-create" | "tenant-key-rotate">(index: number, type: K, body: AdminRequests[K]["request"], key: KeyPair) {
  const admin: AdminOp = { type, body, tenantKey: toPrivateJwk(key) };
  return { type: "command" as const, index, term: 1, data: encodeEntry({ now: NOW + index, node: "did:key:z6MkLeader", admin }) };
}

/** Every file of the keys directory with its content. */
const keyFiles = (v: Voter) => readdirSync(v.keysDir).sort().map((name) => `${name}:${readFileSync(join(v.keysDir, name), "utf8")}`);
const didOf = (v: Voter, handle: string) => (v.db.prepare("SELECT did FROM tenants WHERE handle = ?").get(handle) as { did: string } | undefined)?.did;

async function keyDid(path: string): Promise<string> {
  const key = await loadKeyFile(path);
  assert.ok(key.ok, JSON.stringify(key));
  return key.value.did;
}

/** The key file names an image carries, and the image with its key files replaced by `keys`. */
function imageHead(image: Uint8Array): { keys: Record<string, unknown>; with: (keys: Record<string, unknown>) => Uint8Array } {
  const buffer = Buffer.from(image);
  const length = buffer.readUInt32BE(0);
  const head = JSON.parse(buffer.subarray(4, 4 + length).toString("utf8")) as { keys: Record<string, unknown> };
  return {
    keys: head.keys,
    with: (keys) => {
      const next = Buffer.from(JSON.stringify({ keys }));
      const size = Buffer.alloc(4);
      size.writeUInt32BE(next.length);
      return Buffer.concat([size, next, buffer.subarray(4 + length)]);
    },
  };
}

const created = generateKeyPair();
const rotated = generateKeyPair();

describe("tenant keys on replicated voters", () => {
  const a = voter("a");
  const b = voter("b");
  const c = voter("c");

  it("voters applying the same create and rotation hold the same key files and dids", async () => {
    for (const v of [a, b]) {
      await v.machine.apply(entry(1, "tenant-create", { handle: "acme", owners: [owner], by: null }, created));
      await v.machine.apply(entry(2, "tenant-key-rotate", { tenant: "acme", by: owner }, rotated));
      assert.equal(didOf(v, "acme"), rotated.did);
      assert.equal(await keyDid(tenantKeyPath(v.keysDir, "acme")), rotated.did);
      assert.equal(await keyDid(retiredKeyPath(v.keysDir, "acme", 1)), created.did);
    }
    assert.deepEqual(keyFiles(b), keyFiles(a));
    assert.deepEqual(keyFiles(a).map((f) => f.split(":")[0]), ["tenant-acme.jwk", "tenant-acme.retired-1.jwk"]);

    // Applied again (the voter stopped before recording it as applied): the same state.
    const before = keyFiles(a);
    await a.machine.apply(entry(2, "tenant-key-rotate", { tenant: "acme", by: owner }, rotated));
    assert.deepEqual(keyFiles(a), before);
    assert.equal((a.db.prepare("SELECT count(*) AS n FROM tenant_retired_dids").get() as { n: number }).n, 1);
  });

  it("a snapshot carries the current and retired keys; a voter behind installs it and holds the same", async () => {
    await c.machine.apply(entry(1, "tenant-create", { handle: "acme", owners: [owner], by: null }, created));
    const image = await a.machine.makeImage();
    assert.deepEqual(Object.keys(imageHead(image).keys).sort(), ["tenant-acme.jwk", "tenant-acme.retired-1.jwk"]);

    await c.machine.installImage(image, { lastIndex: 2, lastTerm: 1, data: "" });
    assert.equal(didOf(c, "acme"), rotated.did);
    assert.deepEqual(keyFiles(c), keyFiles(a), "the current key replaced, the retired one added");
    assert.equal(c.machine.appliedIndex(), 2);
  });

  it("an image made between a rotation's commit and its rename carries the key its store names, never a .next file", async () => {
    const third = generateKeyPair();
    // The rotation of entry 3 on voter a, stopped after its commit (steps 1–3 of tenant-key-rotate.ts).
    assert.ok((await saveKeyFile(nextKeyPath(a.keysDir, "acme"), third)).ok);
    const held = await loadKeyFile(tenantKeyPath(a.keysDir, "acme"));
    assert.ok(held.ok);
    assert.ok((await saveKeyFile(retiredKeyPath(a.keysDir, "acme", 2), held.value)).ok);
    a.db.prepare("INSERT INTO tenant_retired_dids (tenant, did, created_at, retired_at, retired_by) VALUES ('acme', ?, ?, ?, NULL)").run(rotated.did, NOW + 2, NOW + 3);
    a.db.prepare("UPDATE tenants SET did = ? WHERE handle = 'acme'").run(third.did);
    a.db.prepare("UPDATE replication SET applied_index = 3 WHERE id = 1").run();

    const { keys } = imageHead(await a.machine.makeImage());
    assert.deepEqual(Object.keys(keys).sort(), ["tenant-acme.jwk", "tenant-acme.retired-1.jwk", "tenant-acme.retired-2.jwk"]);
    assert.deepEqual(keys["tenant-acme.jwk"], toPrivateJwk(third), "the image's did is the .next key's");

    assert.deepEqual(await finishKeyRotations(a.db, a.keysDir), [{ tenant: "acme", did: third.did, outcome: "finished" }]);
  });

  it("installing refuses any other key file name (a .next key, the node's key, a path) and writes nothing", async () => {
    const good = await a.machine.makeImage();
    const head = imageHead(good);
    const jwk = toPrivateJwk(generateKeyPair());
    const before = keyFiles(c);
    for (const name of ["tenant-acme.next.jwk", "node-key.jwk", "../tenant-acme.jwk", "tenant-acme.retired-0.jwk", "tenant-Acme.jwk", "account-kek"]) {
      await assert.rejects(c.machine.installImage(head.with({ ...head.keys, [name]: jwk }), { lastIndex: 3, lastTerm: 1, data: "" }), /bad key file/, name);
      assert.deepEqual(keyFiles(c), before, name);
    }
    await assert.rejects(c.machine.installImage(head.with({ ...head.keys, "tenant-acme.retired-9.jwk": { kty: "OKP" } }), { lastIndex: 3, lastTerm: 1, data: "" }), /bad key file/);
    assert.deepEqual(keyFiles(c), before);
  });
});
