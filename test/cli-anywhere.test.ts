/**
 * The ways the README gives to run `charter` from any directory work as written, offline: a global
 * install of the clone (`npm install -g`, here into a temporary prefix), and the launcher run by
 * path with whichever `node` is first on PATH (it finds the clone's own Node 24 when that one is
 * older). Run from a directory outside the clone, the data directory is that directory's `./data`.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { charterBin, cleanup } from "./helpers/charter-process.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const version = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { version: string }).version;

const root = mkdtempSync(join(tmpdir(), "charter-anywhere-"));
after(() => cleanup(root));

/** The environment of a user's shell: none of the npm_* variables an npm script would add. */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !/^npm_/i.test(name) && name !== "CHARTER_DATA" && name !== "CHARTER_REEXEC") env[name] = value;
  return env;
}

function run(file: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: userEnv() }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

describe("charter from any directory", () => {
  const elsewhere = mkdtempSync(join(root, "cwd-"));

  it("npm install -g --prefix DIR . in the clone (offline) puts a working `charter` in DIR/bin", async () => {
    const prefix = join(root, "prefix");
    // As the README has it, run in the clone; offline, with a cache of its own: it only links the clone.
    const installed = await run("npm", ["install", "-g", "--prefix", prefix, ".", "--offline", "--no-audit", "--no-fund", "--cache", join(root, "npm-cache")], repo);
    assert.equal(installed.code, 0, installed.stderr);
    const charter = join(prefix, "bin", "charter");
    const v = await run(charter, ["--version"], elsewhere);
    assert.equal(v.code, 0, v.stderr);
    assert.equal(v.stdout, `charter ${version}\n`);
    const list = await run(charter, ["tenant", "list"], elsewhere);
    assert.equal(list.code, 1);
    assert.equal(list.stderr, `no Charter data directory at ${join(elsewhere, "data")} (use --data or CHARTER_DATA)\n`);
    assert.equal(existsSync(join(elsewhere, "data")), false);
  });

  it("node /path/to/clone/bin/charter.js runs with the `node` on PATH, whatever its version", async () => {
    const v = await run("node", [charterBin, "--version"], elsewhere);
    assert.equal(v.code, 0, v.stderr);
    assert.equal(v.stdout, `charter ${version}\n`);
  });
});
