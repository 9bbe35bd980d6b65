/**
 * The data directory never depends silently on the working directory: only `node`, `serve` and
 * `identity` create one. Every other command run where there is none says so in one line, exits
 * non-zero and creates nothing; on one that exists it still gets the data directory's checks.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { generateKeyPair } from "../shared/identity/index.ts";
import { cleanup } from "./helpers/charter-process.ts";
import { runCharter } from "./helpers/run-charter.ts";

const shipping = fileURLToPath(new URL("../contracts/examples/shipping.charter.md", import.meta.url));
const did = generateKeyPair().did;

const dirs: string[] = [];
after(() => dirs.forEach(cleanup));
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "charter-datadir-"));
  dirs.push(dir);
  return dir;
}

/** Every command that works on a data directory without creating one. */
const NEEDS_ONE: readonly (readonly string[])[] = [
  ["tenant", "list"],
  ["tenant", "show", "acme"],
  ["tenant", "create", "acme", "--owner", did],
  ["tenant", "member", "add", "acme", did],
  ["tenant", "owner", "remove", "acme", did],
  ["tenant", "delegate", "acme", did, "--scope", "shipping"],
  ["install", shipping, "--tenant", "acme"],
  ["contracts", "list"],
  ["contracts", "retire", "acme.shipping", "--tenant", "acme"],
  ["tui"],
];

describe("a command run where there is no data directory", () => {
  for (const args of NEEDS_ONE) {
    it(`charter ${args.join(" ")} says so and creates nothing`, async () => {
      const cwd = tempDir();
      const r = await runCharter(args, { cwd });
      assert.equal(r.stderr, `no Charter data directory at ${join(cwd, "data")} (use --data or CHARTER_DATA)\n`);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, "");
      assert.equal(existsSync(join(cwd, "data")), false);
    });
  }

  it("names the directory --data or CHARTER_DATA gives, resolved against the working directory", async () => {
    const cwd = tempDir();
    const byFlag = await runCharter(["tenant", "list", "--data", "elsewhere"], { cwd });
    assert.equal(byFlag.stderr, `no Charter data directory at ${join(cwd, "elsewhere")} (use --data or CHARTER_DATA)\n`);
    const byEnv = await runCharter(["contracts", "list"], { cwd, env: { CHARTER_DATA: "from-env" } });
    assert.equal(byEnv.stderr, `no Charter data directory at ${join(cwd, "from-env")} (use --data or CHARTER_DATA)\n`);
    assert.equal(existsSync(join(cwd, "elsewhere")) || existsSync(join(cwd, "from-env")), false);
  });

  it("charter identity creates it (mode 0700), and then the others work on it", async () => {
    const cwd = tempDir();
    const identity = await runCharter(["identity"], { cwd });
    assert.equal(identity.code, 0, identity.stderr);
    assert.match(identity.stdout, /^did:key:z6Mk\w+\n$/);
    assert.equal(statSync(join(cwd, "data")).mode & 0o777, 0o700);
    const list = await runCharter(["tenant", "list"], { cwd });
    assert.equal(list.code, 0, list.stderr);
  });
});

describe("a command run on an existing data directory", () => {
  it("still tightens one that others can read, with a warning", async () => {
    const data = join(tempDir(), "data");
    mkdirSync(data, { mode: 0o755 });
    const r = await runCharter(["tenant", "list", "--data", data]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: the data directory .* was accessible to other users \(mode 0755\); it is now 0700/);
    assert.equal(statSync(data).mode & 0o777, 0o700);
  });

  it("still refuses a symbolic link inside it, in one line", async () => {
    const root = tempDir();
    const data = join(root, "data");
    mkdirSync(data, { mode: 0o700 });
    writeFileSync(join(root, "elsewhere.db"), "");
    symlinkSync(join(root, "elsewhere.db"), join(data, "charter.db"));
    const r = await runCharter(["tenant", "list", "--data", data]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^charter tenant list: .*charter\.db is a symbolic link[^\n]*\n$/);
  });
});
