import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RESULT_CHARS, resultText } from "./tool-result.ts";

describe("a tool server's result as the model is given it", () => {
  it("joins text, names what it does not give, and falls back to structured content", () => {
    const text = resultText({
      content: [
        { type: "text", text: "one" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
        { type: "resource_link", uri: "file:///b", name: "b" },
        { type: "video" },
      ],
    });
    assert.equal(text, "one\n[image image/png, 3 bytes, not shown]\ninside\n[link: b file:///b]\n[a part of type video, not shown]");
    assert.equal(resultText({ content: [], structuredContent: { n: 1 } }), '{"n":1}');
    assert.equal(resultText(null), "");
  });

  it("clips a long result and says so", () => {
    const text = resultText({ content: [{ type: "text", text: "y".repeat(100_000) }] });
    assert.ok(text.length <= RESULT_CHARS);
    assert.match(text, /\[clipped: the result had 100000 characters/);
    const parts = resultText({ content: Array.from({ length: 500 }, () => ({ type: "text", text: "z" })) });
    assert.match(parts, /400 more parts left out/);
  });
});
