import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, it } from "node:test";
import { HttpProblem } from "../../../../shared/problem.ts";
import { DEFAULT_WORKBENCH_LIMITS, WorkbenchRunner } from "./workbench-runner.ts";

const SHIPPING = readFileSync(new URL("../../../../contracts/examples/shipping.charter.md", import.meta.url), "utf8");
const leftovers = () => readdirSync(tmpdir()).filter((n) => n.startsWith("charter-workbench-")).sort();

async function problemOf(promise: Promise<unknown>): Promise<{ code: string; detail: string; retryAfter?: number }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpProblem) return error.problem;
    throw error;
  }
  assert.fail("expected a problem");
}

describe("WorkbenchRunner (a check in a child process)", () => {
  it("answers a source that does not compile with its located errors", async () => {
    const runner = new WorkbenchRunner();
    const result = await runner.check(SHIPPING.replace("units > 0", "units > true"), []);
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.errors.length > 0 && result.errors.every((e) => e.line > 0 && e.column > 0));
  });

  it("bounds the child's output: more is a 503 workbench-failed, not a gateway holding it", async () => {
    const runner = new WorkbenchRunner({ ...DEFAULT_WORKBENCH_LIMITS, maxOutputChars: 20 });
    const p = await problemOf(runner.check(SHIPPING.replace("units > 0", "units > true"), []));
    assert.equal(p.code, "workbench-failed");
    assert.match(p.detail, /more output than it may/);
  });

  it("stops a check at its deadline, removing the throwaway node's directory; the next one may run", async () => {
    const was = leftovers();
    const runner = new WorkbenchRunner({ ...DEFAULT_WORKBENCH_LIMITS, timeoutMs: 3_000 });
    const steps = Array.from({ length: 50 }, (_, i) => ({ action: "Pay", subject: `o-${i}`, args: {} }));
    const running = runner.check(SHIPPING, steps);
    const busy = await problemOf(runner.check(SHIPPING, []));
    assert.deepEqual([busy.code, busy.retryAfter], ["workbench-busy", DEFAULT_WORKBENCH_LIMITS.retryAfterSeconds]);
    const p = await problemOf(running);
    assert.equal(p.code, "workbench-failed");
    assert.match(p.detail, /did not finish within 3000 ms/);
    assert.deepEqual(leftovers(), was, "the throwaway directory is gone");
    // The runner is free again: the next check runs (on a loaded machine it may itself reach the
    // short deadline, but it is never refused as busy).
    const next = await runner.check(SHIPPING.replace("units > 0", "units > true"), []).catch((error: unknown) => {
      if (error instanceof HttpProblem && error.problem.code === "workbench-failed") return { ok: false as const, errors: [] };
      throw error;
    });
    assert.equal(next.ok, false, "the runner is free again");
  });
});
