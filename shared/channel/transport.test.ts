import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { WireMessage } from "./messages.ts";
import { socketTransport } from "./transport.ts";

const dir = mkdtempSync(join(tmpdir(), "charter-transport-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A connected pair of Unix sockets: [server side, client side]. */
async function socketPair(name: string): Promise<[Socket, Socket]> {
  const path = join(dir, `${name}.sock`);
  const accepted = new Promise<Socket>((resolve) => {
    const server = createServer((s) => {
      server.close();
      resolve(s);
    });
    server.listen(path);
  });
  const client = createConnection(path);
  await new Promise((r) => client.once("connect", r));
  return [await accepted, client];
}

function collect(socket: Socket, count: number): Promise<(readonly WireMessage[])[]> {
  const got: (readonly WireMessage[])[] = [];
  return new Promise((resolve) =>
    socketTransport(socket).onBatch((batch) => {
      got.push(batch);
      if (got.length === count) resolve(got);
    }),
  );
}

describe("socket transport", () => {
  it("delivers batches whole and in order, multi-byte UTF-8 and large ones included", async () => {
    const [a, b] = await socketPair("order");
    const batches: WireMessage[][] = [
      [{ k: "n", type: "hello", body: { text: "ørsted — 日本 ✓ 🚚" } }],
      Array.from({ length: 500 }, (_, i) => ({ k: "q", id: i + 1, type: "command", body: { jws: "x".repeat(900), n: i, note: "é".repeat(i % 7) } }) as WireMessage),
      [{ k: "r", id: 1, ok: true, value: null }],
    ];
    const received = collect(b, batches.length);
    const sender = socketTransport(a);
    for (const batch of batches) sender.send(batch);
    assert.deepEqual(await received, batches);
    a.destroy();
    b.destroy();
  });

  it("reassembles a frame that arrives a byte at a time", async () => {
    const [a, b] = await socketPair("bytes");
    const batch: WireMessage[] = [{ k: "n", type: "note", body: { text: "naïve — ✓" } }];
    const json = Buffer.from(JSON.stringify(batch), "utf8");
    const frame = Buffer.alloc(4 + json.length);
    frame.writeUInt32BE(json.length, 0);
    json.copy(frame, 4);
    const received = collect(b, 2);
    for (const byte of frame) {
      a.write(Buffer.from([byte]));
      await new Promise((r) => setImmediate(r));
    }
    socketTransport(a).send(batch);
    assert.deepEqual(await received, [batch, batch], "a hand-made frame and one the transport made read the same");
    a.destroy();
    b.destroy();
  });
});
