import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { loadOrCreateKek, readKek } from "./kek.ts";
import { openPersonKey, personIdentityMaker } from "./person-key.ts";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "charter-person-key-"));
}

test("set-up's identity: a did:key whose private key is kept only sealed, and opens again with the same key", async () => {
  const dir = tempDir();
  try {
    const db = new DatabaseSync(":memory:");
    const kekPath = join(dir, "keys", "account-kek");
    const kek = () => loadOrCreateKek(kekPath);
    assert.equal(openPersonKey({ db, kek }), null, "nothing before set-up");
    const made = await personIdentityMaker({ db, kek, now: () => 1 })({ firstName: "Ada" });
    assert.ok(made.ok);
    const did = made.value.did;
    assert.match(did, /^did:key:z6Mk/);
    assert.equal(statSync(kekPath).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, "keys")).mode & 0o777, 0o700);
    assert.equal(readFileSync(kekPath).length, 32);
    const pair = openPersonKey({ db, kek });
    assert.equal(pair?.did, did);
    const row = db.prepare("SELECT sealed_key FROM account_identity").get() as { sealed_key: Uint8Array };
    assert.ok(!Buffer.from(row.sealed_key).toString("latin1").includes('"kty"'), "sealed, not plain JSON");
    assert.throws(() => openPersonKey({ db, kek: () => Buffer.alloc(32, 7) }), /cannot be opened/);
    db.prepare("UPDATE account_identity SET did = 'did:key:z6MkOther'").run();
    assert.throws(() => openPersonKey({ db, kek }), /cannot be opened/, "the sealed key is bound to its did");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the key-encryption key is made once and refused when it cannot be trusted", () => {
  const dir = tempDir();
  try {
    const path = join(dir, "account-kek");
    assert.equal(readKek(path), null);
    const made = loadOrCreateKek(path);
    assert.deepEqual(loadOrCreateKek(path), made, "kept, not made again");
    chmodSync(path, 0o644);
    assert.throws(() => readKek(path), /group or others/);
    chmodSync(path, 0o600);
    writeFileSync(join(dir, "short"), Buffer.alloc(16), { mode: 0o600 });
    assert.throws(() => readKek(join(dir, "short")), /32-byte key/);
    symlinkSync(path, join(dir, "link"));
    assert.throws(() => readKek(join(dir, "link")), /symbolic link/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
