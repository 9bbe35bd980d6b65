import assert from "node:assert/strict";
import { test } from "node:test";
import { readFrames } from "../../../../test/helpers/ws-frame-reader.ts";
import { frameJson, wireFrames } from "./frames.ts";

test("a frame's JSON has id and kind first, then the kind's fields", () => {
  assert.equal(frameJson("commit", "7", { tenant: "acme", seq: 7 }).toString(), '{"id":"7","kind":"commit","tenant":"acme","seq":7}');
});

test("frames of every length class go back to back, each a whole unmasked text message with the shortest length form", () => {
  const payloads = [0, 1, 125, 126, 65_535, 65_536, 70_000].map((n) => Buffer.from("é".repeat(Math.floor(n / 2)) + "x".repeat(n % 2)));
  const wire = wireFrames(payloads);
  const { frames, rest } = readFrames(wire);
  assert.equal(rest.length, 0);
  assert.deepEqual(
    frames.map((f) => f.op),
    payloads.map(() => 0x81),
  );
  assert.deepEqual(
    frames.map((f) => f.payload.toString()),
    payloads.map((p) => p.toString()),
  );
  // Header sizes: 2 bytes below 126, 4 below 65,536, 10 above; no mask bit.
  assert.equal(wire.length, payloads.reduce((sum, p) => sum + p.length + (p.length < 126 ? 2 : p.length < 65_536 ? 4 : 10), 0));
  assert.equal((wire[1] as number) & 0x80, 0);
  assert.equal(wireFrames([]).length, 0);
});

test("the reader keeps an incomplete frame for the next chunk", () => {
  const wire = wireFrames([Buffer.from("a".repeat(300)), Buffer.from("b")]);
  for (let cut = 0; cut <= wire.length; cut++) {
    const first = readFrames(wire.subarray(0, cut));
    const second = readFrames(Buffer.concat([first.rest, wire.subarray(cut)]));
    assert.deepEqual([...first.frames, ...second.frames].map((f) => f.payload.toString()), ["a".repeat(300), "b"]);
  }
});
