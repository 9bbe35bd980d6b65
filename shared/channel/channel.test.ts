import assert from "node:assert/strict";
import { test } from "node:test";
import { Channel } from "./channel.ts";
import { ChannelError, type WireMessage } from "./messages.ts";
import type { Transport } from "./transport.ts";

/** Two transports joined in memory; each batch is encoded as JSON on the way, as a socket would. */
function pair(): [Transport, Transport] {
  const ends = [0, 1].map(() => ({ deliver: (_b: readonly WireMessage[]) => {}, closers: [] as (() => void)[] }));
  const make = (self: number): Transport => ({
    send(batch) {
      const text = JSON.stringify(batch);
      setImmediate(() => ends[1 - self]?.deliver(JSON.parse(text) as WireMessage[]));
    },
    onBatch(listener) {
      (ends[self] as { deliver: (b: readonly WireMessage[]) => void }).deliver = listener;
    },
    onClose(listener) {
      ends[self]?.closers.push(listener);
    },
    close() {},
  });
  return [make(0), make(1)];
}

function deep(depth: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

type Api = { echo: { request: unknown; response: unknown } };

test("issue 16 #1: a message that cannot be encoded fails alone; the batch it was in and the channel go on", async () => {
  const [a, b] = pair();
  const client = new Channel<Api, Record<string, never>>(a);
  const server = new Channel<Record<string, never>, Api>(b);
  server.handle("echo", (body) => body);
  // A request too deep to encode, sent in the same turn as good ones.
  const bad = client.request("echo", deep(100_000));
  const good = client.request("echo", { n: 1 });
  await assert.rejects(bad, (e: unknown) => e instanceof ChannelError && e.code === "unencodable");
  assert.deepEqual(await good, { n: 1 });

  // A reply too deep to encode: the caller gets an error answer, not silence and not a dead worker.
  server.handle("echo", (body) => ((body as { deep?: boolean }).deep ? deep(100_000) : body));
  const [badReply, goodReply] = await Promise.allSettled([client.request("echo", { deep: true }), client.request("echo", { n: 2 })]);
  assert.equal(badReply.status, "rejected");
  assert.equal(badReply.status === "rejected" && (badReply.reason as ChannelError).code, "unencodable");
  assert.deepEqual(goodReply.status === "fulfilled" && goodReply.value, { n: 2 });
});

test("a notice handler that throws is reported, and the channel goes on", async () => {
  const [a, b] = pair();
  const sender = new Channel<Record<string, never>, Record<string, never>, { ping: number }>(a);
  const receiver = new Channel<Record<string, never>, Record<string, never>, Record<string, never>, { ping: number }>(b);
  const errors: unknown[] = [];
  const seen: number[] = [];
  receiver.onError((e) => errors.push(e)).onNotice("ping", (n) => {
    if (n === 1) throw new Error("handler bug");
    seen.push(n);
  });
  sender.notify("ping", 1);
  sender.notify("ping", 2);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(seen, [2]);
  assert.equal(errors.length, 1);
});
