import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadKeyFile, loadOrCreateNodeKey, NODE_KEY_FILE, saveKeyFile } from "./key-file.ts";
import { generateKeyPair, toPrivateJwk } from "./key-pair.ts";

const posix = process.platform !== "win32";

describe("key files", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "charter-key-file-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("saves a JWK with mode 0600 and loads the same key back", async () => {
    const path = join(dir, "a.jwk");
    const keyPair = generateKeyPair();
    assert.deepEqual(await saveKeyFile(path, keyPair), { ok: true, value: undefined });
    if (posix) assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(await readFile(path, "utf8")), toPrivateJwk(keyPair));
    const loaded = await loadKeyFile(path);
    assert.ok(loaded.ok);
    assert.equal(loaded.value.did, keyPair.did);
  });

  it("refuses to overwrite unless asked, and leaves no temporary files behind", async () => {
    const path = join(dir, "b.jwk");
    const first = generateKeyPair();
    await saveKeyFile(path, first);
    const again = await saveKeyFile(path, generateKeyPair());
    assert.equal(again.ok, false);
    if (!again.ok) assert.equal(again.error.code, "key_file_exists");
    const kept = await loadKeyFile(path);
    assert.ok(kept.ok);
    assert.equal(kept.value.did, first.did);
    const second = generateKeyPair();
    assert.ok((await saveKeyFile(path, second, { overwrite: true })).ok);
    const loaded = await loadKeyFile(path);
    assert.ok(loaded.ok);
    assert.equal(loaded.value.did, second.did);
    assert.deepEqual((await readdir(dir)).filter((name) => name.endsWith(".tmp")), []);
  });

  it("reports a missing file, a directory that does not exist, and unreadable content", async () => {
    const missing = await loadKeyFile(join(dir, "nope.jwk"));
    assert.equal(!missing.ok && missing.error.code, "key_file_missing");
    const unwritable = await saveKeyFile(join(dir, "no-such-dir", "x.jwk"), generateKeyPair());
    assert.equal(!unwritable.ok && unwritable.error.code, "key_file_unwritable");
    const garbage = join(dir, "garbage.jwk");
    await writeFile(garbage, "not json", { mode: 0o600 });
    const unreadable = await loadKeyFile(garbage);
    assert.equal(!unreadable.ok && unreadable.error.code, "key_file_unreadable");
    const publicOnly = join(dir, "public.jwk");
    await writeFile(publicOnly, JSON.stringify({ kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" }), { mode: 0o600 });
    const bad = await loadKeyFile(publicOnly);
    assert.equal(!bad.ok && bad.error.code, "bad_jwk");
  });

  it("refuses a key file that group or others can read", { skip: !posix }, async () => {
    const path = join(dir, "open.jwk");
    await saveKeyFile(path, generateKeyPair());
    for (const mode of [0o644, 0o640, 0o604, 0o620]) {
      await chmod(path, mode);
      const loaded = await loadKeyFile(path);
      assert.equal(loaded.ok, false, mode.toString(8));
      if (!loaded.ok) {
        assert.equal(loaded.error.code, "key_file_insecure");
        assert.match(loaded.error.message, /chmod 600/);
      }
    }
  });

  it("creates the node key once (DATA 0700, key 0600) and returns the same identity afterwards", async () => {
    const data = join(dir, "data", "nested");
    const first = await loadOrCreateNodeKey(data);
    assert.ok(first.ok);
    if (posix) {
      assert.equal((await stat(data)).mode & 0o777, 0o700);
      assert.equal((await stat(join(data, NODE_KEY_FILE))).mode & 0o777, 0o600);
    }
    const second = await loadOrCreateNodeKey(data);
    assert.ok(second.ok);
    assert.equal(second.value.did, first.value.did);
  });

  it("agrees on one node key when several callers race to create it", async () => {
    const data = join(dir, "race");
    const results = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateNodeKey(data)));
    const dids = new Set(results.map((r) => (r.ok ? r.value.did : r.error.code)));
    assert.equal(dids.size, 1);
    assert.match([...dids][0] as string, /^did:key:z6Mk/);
  });

  it("refuses an insecure node key instead of replacing it", { skip: !posix }, async () => {
    const data = join(dir, "insecure");
    const created = await loadOrCreateNodeKey(data);
    assert.ok(created.ok);
    await chmod(join(data, NODE_KEY_FILE), 0o644);
    const loaded = await loadOrCreateNodeKey(data);
    assert.equal(!loaded.ok && loaded.error.code, "key_file_insecure");
  });

  it("issue 16 #8: refuses a node key that is a symbolic link, even to a private key file", { skip: !posix }, async () => {
    const data = join(dir, "linked");
    await mkdir(data, { mode: 0o700 });
    const elsewhere = join(dir, "elsewhere.jwk");
    assert.ok((await saveKeyFile(elsewhere, generateKeyPair())).ok);
    await symlink(elsewhere, join(data, NODE_KEY_FILE));
    const loaded = await loadOrCreateNodeKey(data);
    assert.equal(!loaded.ok && loaded.error.code, "key_file_insecure");
    assert.match(!loaded.ok ? loaded.error.message : "", /symbolic link/);
  });
});
