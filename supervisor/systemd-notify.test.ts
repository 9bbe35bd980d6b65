import assert from "node:assert/strict";
import { test } from "node:test";
import { silentLogger } from "../shared/log.ts";
import { ReadyNotice } from "./systemd-notify.ts";

test("READY goes once, after the tree and the webhook listener are both up, in either order", () => {
  for (const order of [["tree", "hooks"], ["hooks", "tree"]]) {
    let sent = 0;
    const notice = new ReadyNotice({ hooks: true, log: silentLogger, send: () => sent++ });
    for (const step of order) {
      assert.equal(sent, 0);
      if (step === "tree") notice.treeReady();
      else notice.hooksBound();
    }
    assert.equal(sent, 1);
    notice.treeReady();
    notice.hooksBound();
    assert.equal(sent, 1);
  }
});

test("without a webhook listener READY goes with the tree; a cancelled notice sends nothing", () => {
  let sent = 0;
  new ReadyNotice({ hooks: false, log: silentLogger, send: () => sent++ }).treeReady();
  assert.equal(sent, 1);
  const cancelled = new ReadyNotice({ hooks: false, log: silentLogger, send: () => sent++ });
  cancelled.cancel();
  cancelled.treeReady();
  assert.equal(sent, 1);
});

test("a webhook listener that does not come up delays READY by the wait, not for ever", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  let sent = 0;
  const notice = new ReadyNotice({ hooks: true, log: silentLogger, send: () => sent++ });
  notice.treeReady();
  t.mock.timers.tick(9_999);
  assert.equal(sent, 0);
  t.mock.timers.tick(1);
  assert.equal(sent, 1);
});
