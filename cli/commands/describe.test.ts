/** Issue 6: `charter describe FILE --out DIR` as a user runs it: the three files, stable output, errors. */
import { deepEqual, match, strictEqual } from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

const charter = fileURLToPath(new URL("../../bin/charter.js", import.meta.url));
const shipping = fileURLToPath(new URL("../../contracts/examples/shipping.charter.md", import.meta.url));
const golden = new URL("../../test/golden/describe/", import.meta.url);

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [charter, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "charter-describe-"));

describe("charter describe", () => {
  it("writes openapi.json, schema.graphql and api.proto, equal to the golden files", async () => {
    const out = join(dir, "shipping");
    const r = await run(["describe", shipping, "--out", out]);
    strictEqual(r.code, 0, r.stderr);
    strictEqual(r.stdout, ["openapi.json", "schema.graphql", "api.proto"].map((f) => `${join(out, f)}\n`).join(""));
    deepEqual(readdirSync(out).sort(), ["api.proto", "openapi.json", "schema.graphql"]);
    strictEqual(readFileSync(join(out, "openapi.json"), "utf8"), readFileSync(new URL("shipping.openapi.json", golden), "utf8"));
    strictEqual(readFileSync(join(out, "schema.graphql"), "utf8"), readFileSync(new URL("shipping.schema.graphql", golden), "utf8"));
    strictEqual(readFileSync(join(out, "api.proto"), "utf8"), readFileSync(new URL("shipping.api.proto", golden), "utf8"));
  });

  it("prints diagnostics and writes nothing for a contract that does not compile", async () => {
    const broken = join(dir, "broken.charter.md");
    writeFileSync(broken, readFileSync(shipping, "utf8").replace("units > 0", 'units > "zero"'));
    const out = join(dir, "broken");
    const r = await run(["describe", broken, `--out=${out}`]);
    strictEqual(r.code, 1);
    match(r.stderr, /broken\.charter\.md: type error: /);
    strictEqual(readdirSync(dir).includes("broken"), false);
  });

  it("requires --out and exactly one file, and has --help", async () => {
    const missing = await run(["describe", shipping]);
    strictEqual(missing.code, 2);
    match(missing.stderr, /--out DIR is required/);
    strictEqual((await run(["describe", "--out", dir])).code, 2);
    strictEqual((await run(["describe", shipping, "--out", dir, "--fast"])).code, 2);
    const help = await run(["describe", "--help"]);
    strictEqual(help.code, 0);
    match(help.stdout, /Usage: charter describe FILE --out DIR/);
  });
});
