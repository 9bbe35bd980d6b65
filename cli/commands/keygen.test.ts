import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { fromPrivateJwk } from "../../shared/identity/key-pair.ts";

const charter = new URL("../../bin/charter.js", import.meta.url).pathname;

/** Run `charter …` for real; resolves with the exit code and both streams. */
async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [charter, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("charter keygen", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "charter-keygen-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes a 0600 JWK and prints the did:key it holds", async () => {
    const out = join(dir, "ada.jwk");
    const { code, stdout } = await run("keygen", "--out", out);
    assert.equal(code, 0);
    assert.match(stdout, /^did:key:z6Mk\w+\n$/);
    if (process.platform !== "win32") assert.equal((await stat(out)).mode & 0o777, 0o600);
    const keyPair = fromPrivateJwk(JSON.parse(await readFile(out, "utf8")));
    assert.ok(keyPair.ok);
    assert.equal(keyPair.value.did, stdout.trim());
  });

  it("refuses to overwrite an existing file unless --force", async () => {
    const out = join(dir, "twice.jwk");
    const first = await run("keygen", "--out", out);
    const again = await run("keygen", "--out", out);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^charter keygen: .*already exists.*--force.*\n$/);
    const kept = fromPrivateJwk(JSON.parse(await readFile(out, "utf8")));
    assert.equal(kept.ok && kept.value.did, first.stdout.trim());
    const forced = await run("keygen", "--out", out, "--force");
    assert.equal(forced.code, 0);
    assert.notEqual(forced.stdout, first.stdout);
  });

  it("explains itself with --help", async () => {
    const { code, stdout } = await run("keygen", "--help");
    assert.equal(code, 0);
    assert.match(stdout, /Usage: charter keygen --out FILE/);
  });

  it("fails with one line and exit 2 on a usage mistake", async () => {
    for (const args of [[], ["--out"], ["--bogus"], ["extra"]]) {
      const { code, stderr } = await run("keygen", ...args);
      assert.equal(code, 2, args.join(" "));
      assert.match(stderr, /^charter keygen: [^\n]+\n$/);
    }
  });

  it("fails with one line and exit 1 when the file cannot be written", async () => {
    const { code, stderr } = await run("keygen", "--out", join(dir, "missing-dir", "k.jwk"));
    assert.equal(code, 1);
    assert.match(stderr, /^charter keygen: cannot write key file [^\n]+\n$/);
  });
});
