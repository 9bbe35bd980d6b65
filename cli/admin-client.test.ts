import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { generateKeyPair } from "../shared/identity/index.ts";
import { runAdmin } from "./admin-client.ts";

test("offline, a voter's data directory refuses changes (they must go through the log) but answers reads", async () => {
  const dir = mkdtempSync(join(tmpdir(), "charter-admin-voter-"));
  try {
    const owner = generateKeyPair().did;
    const plain = await runAdmin(dir, "tenant-create", { handle: "acme", owners: [owner], by: null });
    assert.equal(plain.ok, true, "an ordinary data directory is changed offline");
    writeFileSync(join(dir, "raft.db"), "");
    const refused = await runAdmin(dir, "tenant-create", { handle: "globex", owners: [owner], by: null });
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.error.code, "voter_offline");
    const list = await runAdmin(dir, "tenant-list", {});
    assert.deepEqual(list.ok && list.value.map((t) => t.handle), ["acme"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("told not to create it, a missing data directory is the answer no_data_dir, and it stays missing", async () => {
  const root = mkdtempSync(join(tmpdir(), "charter-admin-missing-"));
  try {
    const dir = join(root, "data");
    const result = await runAdmin(dir, "tenant-list", {}, { create: false });
    assert.deepEqual(result, { ok: false, error: { code: "no_data_dir", message: `no Charter data directory at ${dir} (use --data or CHARTER_DATA)` } });
    assert.equal(existsSync(dir), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
