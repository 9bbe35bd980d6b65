/**
 * @module Tests for the compiler driver's promise (issue 16 #12): whatever the source, compiling
 * answers with an artifact or diagnostics — in process and through the compile child that
 * `POST /v1/{tenant}/_install` uses — and every shipped contract still compiles.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { compileContract, compilerFailure } from "./compile.ts";
import { compileInChild } from "./compile-in-child.ts";
import { formatDiagnostics } from "./diagnostics.ts";

const huge = "# Huge\n\n```charter\nnamespace acme.huge\nversion 1.0.0\naggregate A {\n  public t: Text(len=2147483647)\n}\n```\n";

describe("compileContract", () => {
  it("issue 16 #12: answers a huge Text with a diagnostic instead of throwing", () => {
    const r = compileContract(huge);
    assert.equal(r.artifact, undefined);
    assert.deepEqual(formatDiagnostics(huge, r.diagnostics), ["type error: Text length 2147483647 is over the limit of 65536 at line 7:13"]);
  });

  it("turns a failure of the compiler itself into a located compile error", () => {
    const d = compilerFailure(new Error("generated WebAssembly does not validate\ndetails"), 3);
    assert.equal(d.code, "C0601");
    assert.equal(d.phase, "compile");
    assert.deepEqual(d.span, [3, 3]);
    assert.equal(formatDiagnostics("abcdef", [d])[0], "compile error: the compiler failed on this contract (generated WebAssembly does not validate); this is a bug in Charter, not in the contract: please report it at line 1:4");
  });

  for (const dir of ["./examples/", "./std/"]) {
    const base = new URL(dir, import.meta.url);
    for (const file of readdirSync(base).filter((f) => f.endsWith(".charter.md"))) {
      it(`still compiles ${dir.slice(2)}${file} within the limits`, () => {
        const markdown = readFileSync(new URL(file, base), "utf8");
        const r = compileContract(markdown);
        assert.deepEqual(formatDiagnostics(markdown, r.diagnostics), []);
        assert.ok(r.artifact !== undefined);
      });
    }
  }
});

describe("compileInChild (the install's compiler)", () => {
  it("issue 16 #12: answers Text(len=2147483647) with a located error (a 422), not a crash (a 500)", async () => {
    const outcome = await compileInChild(huge);
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok);
    assert.deepEqual(outcome.errors, [{ message: "type error: Text length 2147483647 is over the limit of 65536", line: 7, column: 13 }]);
  });

  it("answers a request it cannot read with a compile error rather than exiting", async () => {
    const outcome = await compileInChild(42 as unknown as string);
    assert.ok(!outcome.ok);
    assert.match(outcome.errors[0]?.message ?? "", /^compile error: the compiler failed on this contract \(the compile request has no source text\)/);
  });
});
