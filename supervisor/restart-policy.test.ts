import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultRestartPolicy as policy, emptyHistory, onExit, type RestartHistory } from "./restart-policy.ts";

test("back-off doubles on quick consecutive failures and is capped", () => {
  let h: RestartHistory = emptyHistory;
  const delays: number[] = [];
  let now = 0;
  for (let i = 0; i < 5; i++) {
    const d = onExit(h, now, now + 10, { ...policy, maxRestarts: 100 });
    assert.equal(d.action, "restart");
    if (d.action === "restart") delays.push(d.delayMs);
    h = d.history;
    now += 20_000; // outside nothing: each run lasted 10 ms, so the streak grows
  }
  assert.deepEqual(delays, [100, 200, 400, 800, 1600]);
  const capped = onExit({ restarts: [], streak: 20 }, 0, 1, policy);
  assert.equal(capped.action === "restart" && capped.delayMs, policy.backoffMaxMs);
});

test("a worker that ran long enough starts over at the base back-off", () => {
  const d = onExit({ restarts: [], streak: 4 }, 0, policy.stableAfterMs, policy);
  assert.equal(d.action === "restart" && d.delayMs, policy.backoffBaseMs);
});

test("more than the intensity limit within the window gives up; older restarts are forgotten", () => {
  let h: RestartHistory = emptyHistory;
  for (let i = 0; i < policy.maxRestarts; i++) {
    const d = onExit(h, i * 1000, i * 1000 + 5, policy);
    assert.equal(d.action, "restart");
    h = d.history;
  }
  const last = onExit(h, 9_000, 9_005, policy);
  assert.equal(last.action, "give-up");
  assert.match(last.action === "give-up" ? last.reason : "", /restarted 5 times within 60 s/);
  const later = onExit(h, 200_000, 200_005, policy);
  assert.equal(later.action, "restart", "restarts older than the window no longer count");
});
