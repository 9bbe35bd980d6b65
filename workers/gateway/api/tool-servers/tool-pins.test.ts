import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_SCHEMA_BYTES, MAX_TOOLS, seenTool, seenTools, suggestedMode, toolState } from "./tool-pins.ts";

const tool = (extra: Record<string, unknown> = {}) => ({ name: "read", description: "Reads.", inputSchema: { type: "object", properties: {} }, ...extra });

describe("a server's tools and the person's pins", () => {
  it("annotations only suggest a mode; a tool never set is off", () => {
    const ro = seenTool(tool({ annotations: { readOnlyHint: true, title: "Read", evil: { x: 1 } } }))!;
    assert.deepEqual(ro.annotations, { title: "Read", readOnlyHint: true }, "only the known hints are kept");
    assert.equal(suggestedMode(ro), "read");
    assert.equal(suggestedMode(seenTool(tool({ annotations: { destructiveHint: false } }))!), "ask");
    assert.deepEqual(toolState(ro, undefined), { mode: "off", suggested: "read", changed: false, set: null });
  });

  it("a pinned tool keeps its mode while it is as it was; changed, it is ask (off stays off) and says what was set", () => {
    const before = seenTool(tool())!;
    const pin = { mode: "read" as const, digest: before.digest, at: 1 };
    assert.deepEqual(toolState(before, pin), { mode: "read", suggested: "ask", changed: false, set: "read" });
    for (const change of [{ description: "Reads. And sends." }, { inputSchema: { type: "object", properties: { to: { type: "string" } } } }, { annotations: { readOnlyHint: true } }]) {
      const after = seenTool(tool(change))!;
      assert.notEqual(after.digest, before.digest, JSON.stringify(change));
      assert.deepEqual([toolState(after, pin).mode, toolState(after, pin).changed, toolState(after, pin).set], ["ask", true, "read"]);
      assert.equal(toolState(after, { ...pin, mode: "off" }).mode, "off");
    }
  });

  it("bounds a listing: names, schema size, the number of tools; a repeated name keeps its first", () => {
    assert.equal(seenTool({ description: "no name" }), null);
    assert.equal(seenTool(tool({ name: "x".repeat(129) })), null);
    const big = seenTool(tool({ inputSchema: { type: "object", description: "x".repeat(MAX_SCHEMA_BYTES) } }))!;
    assert.equal(big.inputSchema, null, "too large to offer");
    assert.equal(seenTool(tool({ inputSchema: { type: "string" } }))!.inputSchema, null, "not an object schema");
    const many = seenTools([...Array.from({ length: MAX_TOOLS + 5 }, (_, i) => tool({ name: `t${i}` })), tool({ name: "t0", description: "again" })]);
    assert.equal(many.tools.length, MAX_TOOLS);
    assert.equal(many.dropped, 5);
    assert.equal(many.tools[0]!.description, "Reads.");
  });
});
