import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { effectPayload } from "../../shared/protocol/outbox.ts";
import { backoffMs } from "./effect-runner.ts";

describe("the effect runner's pure parts", () => {
  it("backs off exponentially, capped, with jitter between half and all of the delay", () => {
    const retry = { attempts: 8, baseMs: 1000, maxMs: 10_000 };
    assert.equal(backoffMs(retry, 1, () => 0), 500);
    assert.equal(backoffMs(retry, 1, () => 1), 1000);
    assert.equal(backoffMs(retry, 3, () => 1), 4000);
    assert.equal(backoffMs(retry, 10, () => 1), 10_000);
    for (let i = 0; i < 100; i++) {
      const ms = backoffMs(retry, 2);
      assert.ok(ms >= 1000 && ms <= 2000);
    }
  });

  it("says why an entry is not an effect rather than throwing", () => {
    assert.equal(typeof effectPayload(null), "string");
    assert.equal(typeof effectPayload({ connector: "email" }), "string");
    assert.equal(typeof effectPayload({ connector: "email", effect: "send", args: [] }), "string");
    assert.equal(typeof effectPayload({ connector: "email", effect: "send", account: 5 }), "string");
    assert.deepEqual(effectPayload({ connector: "noop", effect: "nothing" }), { connector: "noop", effect: "nothing", account: null, args: {} });
  });
});
