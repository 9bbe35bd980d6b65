import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
