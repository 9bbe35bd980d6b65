import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";

const charter = new URL("../../bin/charter.js", import.meta.url).pathname;

async function run(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [charter, ...args], { env: { ...process.env, CHARTER_DATA: undefined, ...env }, cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("charter identity", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "charter-identity-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("creates DATA and the node key, then prints the same did:key every time", async () => {
    const data = join(dir, "data");
    const first = await run(["identity", "--data", data]);
    assert.equal(first.code, 0);
    assert.match(first.stdout, /^did:key:z6Mk\w+\n$/);
    if (process.platform !== "win32") assert.equal((await stat(join(data, "node-key.jwk"))).mode & 0o777, 0o600);
    assert.equal((await run(["identity", "--data", data])).stdout, first.stdout);
  });

  it("uses $CHARTER_DATA, else ./data", async () => {
    const fromEnv = await run(["identity"], { CHARTER_DATA: join(dir, "env") });
    assert.equal(fromEnv.code, 0);
    assert.equal((await run(["identity", "--data", join(dir, "env")])).stdout, fromEnv.stdout);
    const cwd = join(dir, "cwd");
    await mkdir(cwd);
    const fromCwd = await run(["identity"], {}, cwd);
    assert.equal(fromCwd.code, 0);
    assert.equal((await run(["identity", "--data", join(cwd, "data")])).stdout, fromCwd.stdout);
  });

  it("refuses a node key that group or others can read", { skip: process.platform === "win32" }, async () => {
    const data = join(dir, "open");
    await run(["identity", "--data", data]);
    await chmod(join(data, "node-key.jwk"), 0o644);
    const { code, stderr } = await run(["identity", "--data", data]);
    assert.equal(code, 1);
    assert.match(stderr, /^charter identity: .*accessible to group or others.*chmod 600[^\n]*\n$/);
  });

  it("fails with one line when DATA is not a directory", async () => {
    const file = join(dir, "plain-file");
    await writeFile(file, "");
    const { code, stderr } = await run(["identity", "--data", file]);
    assert.equal(code, 1);
    assert.match(stderr, /^charter identity: [^\n]+\n$/);
  });

  it("explains itself with --help and rejects unknown options", async () => {
    const help = await run(["identity", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: charter identity \[--data DIR\]/);
    const bad = await run(["identity", "--bogus"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^charter identity: [^\n]+\n$/);
  });
});
