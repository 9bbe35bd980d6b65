import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Receipt } from "../../shared/identity/index.ts";
import { createLogger, type LogRecord } from "../../shared/log.ts";
import { logRefusals, slowBatchMs, SLOW_BATCH_MS } from "./write-path-log.ts";

function receipt(action: string, reason: string | null): Receipt {
  const refused = reason !== null;
  return {
    tenant: "acme",
    namespace: "acme.tally",
    action,
    outcome: refused ? "refused" : "accepted",
    reason: refused ? { code: reason, condition: null, line: null, message: "" } : null,
    args: { secret: "never logged" },
  } as unknown as Receipt;
}

describe("the write path's log", () => {
  it("logs a commit's refusals one line per action and reason, with how many, and nothing of the accepted or the arguments", () => {
    const lines: LogRecord[] = [];
    logRefusals(
      createLogger("engine", (r) => lines.push(r)),
      [receipt("Add", "condition_failed"), receipt("Add", null), receipt("Add", "condition_failed"), receipt("Add", "unauthorized"), receipt("Reset", "condition_failed")],
    );
    assert.deepEqual(
      lines.map(({ t: _t, ...rest }) => rest),
      [
        { level: "info", component: "engine", msg: "refused", tenant: "acme", namespace: "acme.tally", action: "Add", reason: "condition_failed", count: 2 },
        { level: "info", component: "engine", msg: "refused", tenant: "acme", namespace: "acme.tally", action: "Add", reason: "unauthorized", count: 1 },
        { level: "info", component: "engine", msg: "refused", tenant: "acme", namespace: "acme.tally", action: "Reset", reason: "condition_failed", count: 1 },
      ],
    );
  });

  it("writes nothing for a commit with no refusal", () => {
    const lines: LogRecord[] = [];
    logRefusals(createLogger("engine", (r) => lines.push(r)), [receipt("Add", null)]);
    assert.deepEqual(lines, []);
  });

  it("takes the slow-batch threshold from CHARTER_SLOW_BATCH_MS, else 250 ms", () => {
    assert.equal(slowBatchMs({}), SLOW_BATCH_MS);
    assert.equal(slowBatchMs({ CHARTER_SLOW_BATCH_MS: "0" }), 0);
    assert.equal(slowBatchMs({ CHARTER_SLOW_BATCH_MS: "soon" }), SLOW_BATCH_MS);
  });
});
