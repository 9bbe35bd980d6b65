/** The data directory's permissions (issue 16 #8): created 0700, tightened with a warning, or refused. */
import assert from "node:assert/strict";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { DataDirError, prepareDataDir } from "./data-dir.ts";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "charter-data-dir-"));
  dirs.push(dir);
  return dir;
}

const mode = (path: string) => statSync(path).mode & 0o7777;
const root = process.getuid?.() === 0;
/** Throws unless `fn` throws a DataDirError of `code` whose message matches `pattern`. */
function refused(fn: () => unknown, code: DataDirError["code"], pattern: RegExp): void {
  assert.throws(fn, (error: Error) => {
    assert.ok(error instanceof DataDirError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  });
}

describe("prepareDataDir", { skip: process.platform === "win32" ? "POSIX modes" : false }, () => {
  it("creates a missing data directory, and its missing parents, 0700 whatever the umask", () => {
    const dir = join(tempDir(), "a", "data");
    const previous = process.umask(0);
    try {
      assert.deepEqual(prepareDataDir(dir), []);
    } finally {
      process.umask(previous);
    }
    assert.equal(mode(dir), 0o700);
  });

  it("issue 16 #8: tightens an existing data directory others can read to 0700, and says so", () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const warnings = prepareDataDir(dir);
    assert.equal(mode(dir), 0o700);
    assert.deepEqual(warnings, [`the data directory ${dir} was accessible to other users (mode 0755); it is now 0700`]);
    assert.deepEqual(prepareDataDir(dir), [], "nothing to say the second time");
  });

  it("issue 16 #8: tightens its own subdirectories too (logs, run, keys)", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "logs"), { mode: 0o755 });
    chmodSync(join(dir, "logs"), 0o755);
    const warnings = prepareDataDir(dir);
    assert.equal(mode(join(dir, "logs")), 0o700);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] as string, /logs was accessible to other users \(mode 0755\)/);
  });

  it("issue 16 #8: tightens a directory of its own that others can write", () => {
    const dir = tempDir();
    chmodSync(dir, 0o777);
    assert.equal(prepareDataDir(dir).length, 1);
    assert.equal(mode(dir), 0o700);
  });

  it(
    "issue 16 #8: refuses a directory others can write that belongs to another user, and changes nothing",
    { skip: root ? false : "making a directory owned by another user needs root" },
    () => {
      const dir = tempDir();
      chownSync(dir, 65534, 65534);
      chmodSync(dir, 0o1777);
      refused(() => prepareDataDir(dir), "data_dir_insecure", new RegExp(`refusing the data directory ${dir}: other users can write in it \\(mode 1777\\) and it belongs to uid 65534`));
      assert.equal(mode(dir), 0o1777);
    },
  );

  it("issue 16 #8: refuses a directory others can access when it cannot be made private", () => {
    const dir = tempDir();
    chmodSync(dir, 0o750);
    const eperm = () => {
      throw Object.assign(new Error("EPERM: operation not permitted"), { code: "EPERM" });
    };
    refused(() => prepareDataDir(dir, { chmod: eperm }), "data_dir_insecure", new RegExp(`refusing the data directory ${dir}: other users can access it \\(mode 0750\\) and it cannot be made private \\(EPERM\\)`));
  });

  it("issue 16 #8: refuses a subdirectory that is a symbolic link", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "elsewhere"));
    symlinkSync(join(dir, "elsewhere"), join(dir, "logs"));
    refused(() => prepareDataDir(dir), "data_dir_insecure", /logs is a symbolic link; refusing to follow links inside the data directory/);
  });

  it("issue 16 #8: refuses a store, lock, key or log file that is a symbolic link", () => {
    for (const name of ["charter.db", "charter.db-wal", "raft.db", "charter.lock", "node-key.jwk", join("logs", "charter.log")]) {
      const dir = tempDir();
      mkdirSync(join(dir, "logs"), { mode: 0o700 });
      symlinkSync(join(dir, "victim"), join(dir, name));
      refused(() => prepareDataDir(dir), "data_dir_insecure", new RegExp(`${join(dir, name)} is a symbolic link; refusing to follow links inside the data directory`));
    }
  });

  it("accepts a data directory that is itself a symbolic link to a private directory", () => {
    const real = tempDir();
    const link = join(tempDir(), "data");
    symlinkSync(real, link);
    assert.deepEqual(prepareDataDir(link), []);
  });

  it("refuses a file, or a path under one, as unwritable", () => {
    const file = join(tempDir(), "file");
    writeFileSync(file, "");
    refused(() => prepareDataDir(file), "data_dir_unwritable", /is not writable \(ENOTDIR: it is not a directory\)/);
    refused(() => prepareDataDir(join(file, "data")), "data_dir_unwritable", /is not writable \(ENOTDIR\)/);
  });
});
