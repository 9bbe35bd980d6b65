/**
 * @module Tests for finding the `charter` block: fence kinds, info strings, nesting, unclosed
 * fences and the none / more-than-one errors.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findCharterBlock } from "./markdown.ts";

function body(markdown: string): string | null {
  const { block } = findCharterBlock(markdown);
  return block === null ? null : markdown.slice(block.body[0], block.body[1]);
}

describe("findCharterBlock", () => {
  it("returns the body of a backtick block as offsets into the file", () => {
    assert.equal(body("# T\n\n```charter\nnamespace a\n```\nafter\n"), "namespace a\n");
  });

  it("accepts tildes, longer fences, indentation up to 3 spaces and more info words", () => {
    assert.equal(body("~~~~ charter extra words\nx\n~~~\n~~~~\n"), "x\n~~~\n");
    assert.equal(body("   ```charter\nx\n   ```\n"), "x\n");
  });

  it("ignores other languages, indented code and fences inside other blocks", () => {
    assert.equal(body("```js\n```charter\n```\n\n    ```charter\n\n```charter\ny\n```\n"), "y\n");
  });

  it("needs the closing fence to use the same character", () => {
    assert.equal(body("```charter\nx\n~~~\n```\n"), "x\n~~~\n");
  });

  it("runs an unclosed block to the end of the file", () => {
    assert.equal(body("```charter\nx\ny"), "x\ny");
  });

  it("does not treat a backtick info string containing a backtick as a fence", () => {
    assert.equal(body("``` charter`\n```charter\nz\n```\n"), "z\n");
  });

  it("reports none, and every block after the first", () => {
    assert.deepEqual(findCharterBlock("no code").diagnostics.map((d) => d.code), ["C0102"]);
    const two = findCharterBlock("```charter\n```\n```charter\n```\n```charter\n```\n");
    assert.equal(two.block, null);
    assert.deepEqual(two.diagnostics.map((d) => [d.code, d.span[0]]), [["C0103", 15], ["C0103", 30]]);
  });

  it("handles CRLF line ends", () => {
    assert.equal(body("```charter\r\nx\r\n```\r\n"), "x\r\n");
  });
});
