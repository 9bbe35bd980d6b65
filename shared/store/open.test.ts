/** Opening the store: its files' modes and the refusal of links (issue 16 #8). */
import assert from "node:assert/strict";
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openDatabase, UnsafeStoreFileError } from "./open.ts";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "charter-open-"));
  dirs.push(dir);
  return dir;
}

/** Runs `fn` under `umask` (the usual 022 makes SQLite's own files 0644). */
function withUmask<T>(umask: number, fn: () => T): T {
  const previous = process.umask(umask);
  try {
    return fn();
  } finally {
    process.umask(previous);
  }
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe("openDatabase", { skip: process.platform === "win32" ? "POSIX modes and O_NOFOLLOW" : false }, () => {
  it("issue 16 #8: creates the store and its -wal and -shm 0600 under a umask of 022", () => {
    const path = join(tempDir(), "charter.db");
    const db = withUmask(0o022, () => {
      const opened = openDatabase(path);
      opened.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
      return opened;
    });
    for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(mode(file), 0o600, file);
    db.close();
  });

  it("issue 16 #8: narrows an existing store that others can read to 0600 before writing to it", () => {
    const dir = tempDir();
    const path = join(dir, "charter.db");
    withUmask(0o022, () => openDatabase(path).close());
    chmodSync(path, 0o644);
    const db = openDatabase(path);
    db.exec("CREATE TABLE t (x)");
    for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(mode(file), 0o600, file);
    db.close();
  });

  it("issue 16 #8: refuses a store, -wal or -shm that is a symbolic link, and leaves its target untouched", () => {
    for (const linked of ["charter.db", "charter.db-wal", "charter.db-shm"]) {
      const dir = tempDir();
      const target = join(dir, "elsewhere");
      writeFileSync(target, "precious\n");
      chmodSync(target, 0o644);
      if (linked !== "charter.db") openDatabase(join(dir, "charter.db")).close();
      symlinkSync(target, join(dir, linked));
      assert.throws(() => openDatabase(join(dir, "charter.db")), (error: Error) => {
        assert.ok(error instanceof UnsafeStoreFileError);
        assert.match(error.message, new RegExp(`refusing to open ${join(dir, linked)}: it is a symbolic link`));
        return true;
      });
      assert.equal(readFileSync(target, "utf8"), "precious\n", linked);
      assert.equal(mode(target), 0o644, `${linked}: the target's mode is not changed`);
      assert.ok(lstatSync(join(dir, linked)).isSymbolicLink());
    }
  });

  it("refuses a dangling link, which SQLite would create its store through", () => {
    const dir = tempDir();
    symlinkSync(join(dir, "created-elsewhere"), join(dir, "charter.db"));
    assert.throws(() => openDatabase(join(dir, "charter.db")), UnsafeStoreFileError);
    assert.ok(!existsSync(join(dir, "created-elsewhere")));
  });

  it("opens a read-only connection without creating or changing anything", () => {
    const dir = tempDir();
    const path = join(dir, "charter.db");
    assert.throws(() => openDatabase(path, { readOnly: true }), (error: Error) => !(error instanceof UnsafeStoreFileError));
    assert.ok(!existsSync(path));
    withUmask(0o022, () => openDatabase(path).close());
    chmodSync(path, 0o640);
    openDatabase(path, { readOnly: true }).close();
    assert.equal(mode(path), 0o640);
  });
});
