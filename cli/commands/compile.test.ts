/** `charter compile` and `charter check` as a user runs them: output, stderr and exit codes. */
import { strictEqual, match, ok } from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

const charter = fileURLToPath(new URL("../../bin/charter.js", import.meta.url));
const shipping = fileURLToPath(new URL("../../contracts/examples/shipping.charter.md", import.meta.url));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [charter, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "charter-cli-"));
const broken = join(dir, "broken.charter.md");
writeFileSync(broken, readFileSync(shipping, "utf8").replace("units > 0", 'units > "zero"'));

describe("charter compile", () => {
  it("prints the artifact id", async () => {
    const r = await run(["compile", shipping]);
    strictEqual(r.code, 0);
    match(r.stdout, /^art_[0-9a-f]{64}\n$/);
    strictEqual(r.stderr, "");
  });

  it("prints the WebAssembly text with --wat", async () => {
    const r = await run(["compile", shipping, "--wat"]);
    strictEqual(r.code, 0);
    match(r.stdout, /^\(module\n/);
    ok(r.stdout.includes('(export "Order.Ship"'));
  });

  it("prints diagnostics on stderr and exits 1", async () => {
    const r = await run(["compile", broken]);
    strictEqual(r.code, 1);
    strictEqual(r.stdout, "");
    match(r.stderr, /broken\.charter\.md: type error: .* at line 30:7\n/);
  });

  it("reports an unreadable file in one line", async () => {
    const r = await run(["compile", join(dir, "missing.charter.md")]);
    strictEqual(r.code, 1);
    match(r.stderr, /^charter: cannot read .*missing\.charter\.md: ENOENT\n$/);
  });

  it("has --help and rejects unknown options", async () => {
    const help = await run(["compile", "--help"]);
    strictEqual(help.code, 0);
    match(help.stdout, /Usage: charter compile FILE \[--wat\]/);
    strictEqual((await run(["compile", shipping, "--fast"])).code, 2);
  });
});

describe("charter check", () => {
  it("is silent and exits 0 for a clean contract", async () => {
    const r = await run(["check", shipping]);
    strictEqual([r.code, r.stdout, r.stderr].join("|"), "0||");
  });

  it("prints diagnostics and exits 1", async () => {
    const r = await run(["check", broken]);
    strictEqual(r.code, 1);
    match(r.stdout, /type error: .* at line 30:7\n$/);
  });
});
