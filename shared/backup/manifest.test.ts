import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { BackupError, FORMAT, readManifest, safeRelative, verifyFiles } from "./manifest.ts";

const dir = mkdtempSync(join(tmpdir(), "charter-manifest-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const good = {
  format: FORMAT,
  createdAt: "2026-01-01T00:00:00.000Z",
  charterVersion: "0.1.0",
  schemaVersion: 6,
  historySeq: 3,
  databases: [{ path: "charter.db", schemaVersion: 6 }],
  files: [{ path: "charter.db", size: 5, sha256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", mode: 0o600 }],
  skipped: [],
  verified: { integrity: ["charter.db"], digests: 1, replayed: { subjects: 0, entries: 0 } },
};

function withManifest(value: unknown): () => unknown {
  return () => {
    writeFileSync(join(dir, "backup.json"), typeof value === "string" ? value : JSON.stringify(value));
    return readManifest(dir);
  };
}

test("paths inside a backup are relative, without . or .. parts", () => {
  for (const p of ["charter.db", "keys/tenant-acme.jwk", "blobs/ab/abcdef"]) assert.ok(safeRelative(p), p);
  for (const p of ["", "/etc/passwd", "../x", "keys/../../x", "keys//x", "./charter.db", "keys/", "a\\b", "a\0b"]) assert.ok(!safeRelative(p), JSON.stringify(p));
});

test("a manifest of the wrong shape is refused, naming the field", () => {
  assert.equal((withManifest(good)() as { historySeq: number }).historySeq, 3);
  const cases: [unknown, RegExp][] = [
    ["not json", /is not JSON/],
    [[], /not an object/],
    [{ ...good, format: "other" }, /format is not charter-backup\/1/],
    [{ ...good, historySeq: -1 }, /historySeq is not a whole number/],
    [{ ...good, files: "x" }, /files is not a list/],
    [{ ...good, files: [{ ...good.files[0], path: "../../etc/passwd" }] }, /files\[0\]\.path is not a path inside the backup/],
    [{ ...good, files: [good.files[0], good.files[0]] }, /is listed twice/],
    [{ ...good, files: [{ ...good.files[0], sha256: "abc" }] }, /files\[0\]\.sha256 is not a SHA-256/],
    [{ ...good, files: [{ ...good.files[0], mode: 0o4755 }] }, /files\[0\]\.mode is not a permission mode/],
    [{ ...good, databases: [{ path: "other.db", schemaVersion: 1 }] }, /databases\[0\] is not one of the files/],
  ];
  for (const [value, message] of cases) assert.throws(withManifest(value), (e: unknown) => e instanceof BackupError && message.test(e.message));
  rmSync(join(dir, "backup.json"));
  assert.throws(() => readManifest(dir), /is not a Charter backup: no readable backup\.json \(ENOENT\)/);
});

test("a file missing, of another size or another digest fails the check", async () => {
  const manifest = withManifest(good)() as Parameters<typeof verifyFiles>[1];
  await assert.rejects(verifyFiles(dir, manifest), /charter\.db is missing from the backup/);
  writeFileSync(join(dir, "charter.db"), "hello");
  assert.equal(await verifyFiles(dir, manifest), 1);
  writeFileSync(join(dir, "charter.db"), "hellO");
  await assert.rejects(verifyFiles(dir, manifest), /does not match its SHA-256 in the manifest/);
  writeFileSync(join(dir, "charter.db"), "hello!");
  await assert.rejects(verifyFiles(dir, manifest), /has 6 bytes, the manifest says 5/);
});
