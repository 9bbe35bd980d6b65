import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EventType } from "@ag-ui/core";
import { EventStream } from "./event-stream.ts";

const text = (delta: string) => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta });

describe("an AG-UI run's answer body", () => {
  it("is the encoder's server-sent events, ended when the run closes it", async () => {
    const out = new EventStream();
    out.emit({ type: EventType.RUN_STARTED, threadId: "t", runId: "r" } as never);
    out.close();
    out.emit(text("after the end"));
    assert.equal(out.contentType, "text/event-stream");
    const body = await new Response(out.readable).text();
    assert.equal(body, 'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n');
  });

  it("a client that goes away is heard once, and nothing more is sent", async () => {
    const out = new EventStream();
    let gone = 0;
    let ended = 0;
    out.onGone(() => gone++);
    out.onEnd(() => ended++);
    await out.readable.cancel();
    assert.equal(gone, 1);
    assert.ok(out.closed);
    out.emit(text("nobody reads this"));
    let late = 0;
    out.onGone(() => late++);
    assert.equal(late, 1, "a listener added once it is over hears it at once");
    assert.equal(ended, 1);
  });

  it("its end is heard once when the run closes it, and the client going away is not", () => {
    const out = new EventStream();
    let gone = 0;
    let ended = 0;
    out.onGone(() => gone++);
    out.onEnd(() => ended++);
    out.close();
    out.close();
    assert.deepEqual([gone, ended], [0, 1]);
  });

  it("a client that falls too far behind is cut off, so what waits for it stays bounded", async () => {
    const out = new EventStream(1000);
    let gone = 0;
    out.onGone(() => gone++);
    for (let i = 0; i < 100; i++) out.emit(text("x".repeat(100)));
    assert.equal(gone, 1);
    assert.ok(out.closed);
    await assert.rejects(new Response(out.readable).text(), /too far behind/);
  });
});
