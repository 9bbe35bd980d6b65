/**
 * @module Tests for the install's compile child when it cannot answer: at its deadline it is
 * stopped and the caller gets a timeout it can tell apart; when it crashes, the error names what
 * went wrong in one line, never the child's stack.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { CompileChildError, compileInChild } from "./compile-in-child.ts";

const shipping = readFileSync(new URL("./examples/shipping.charter.md", import.meta.url), "utf8");

describe("compileInChild when the child cannot answer", () => {
  it("stops a compile that runs past its deadline and says so", async () => {
    const error = await compileInChild(shipping, { timeoutMs: 1 }).then(() => assert.fail("compiled within 1 ms"), (e: unknown) => e);
    assert.ok(error instanceof CompileChildError);
    assert.equal(error.timedOut, true);
    assert.equal(error.message, "compiling took longer than 1 ms");
  });

  it("reports a compiler process that crashes by its error's line, not its stack", async () => {
    // The child inherits NODE_OPTIONS: a preload that does not exist makes it die before it reads anything.
    const preload = "/nonexistent/charter-preload.cjs";
    const saved = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = `--require=${preload}`;
    let error: unknown;
    try {
      error = await compileInChild(shipping).then(() => assert.fail("compiled"), (e: unknown) => e);
    } finally {
      if (saved === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved;
    }
    assert.ok(error instanceof CompileChildError);
    assert.equal(error.timedOut, false);
    assert.equal(error.message, `the compiler exited with code 1: Error: Cannot find module '${preload}'`);
  });

  it("still compiles after a child failed", async () => {
    const outcome = await compileInChild(shipping);
    assert.equal(outcome.ok, true);
  });
});
