/**
 * @module Fuzzes the front end (issue 3): random text, random bytes and mutations of valid
 * contracts must always give a tree or diagnostics — never an exception, never a hang.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { it } from "node:test";
import fc from "fast-check";
import { analyze } from "./front.ts";

const dir = new URL("./examples/", import.meta.url);
const examples = readdirSync(dir)
  .filter((f) => f.endsWith(".charter.md"))
  .map((f) => readFileSync(new URL(f, dir), "utf8"));

/** Analysis must end normally with a tree or at least one diagnostic, each well formed. */
function holds(markdown: string): void {
  const { contract, diagnostics } = analyze(markdown);
  assert.ok(contract !== null || diagnostics.length > 0);
  for (const d of diagnostics) {
    assert.ok(d.span[0] >= 0 && d.span[0] <= d.span[1] && d.span[1] <= markdown.length, `bad span ${d.span} for ${d.code}`);
    assert.ok(d.message.length > 0);
  }
}

const mutation = fc.record({
  example: fc.nat({ max: examples.length - 1 }),
  at: fc.nat(),
  cut: fc.nat({ max: 40 }),
  insert: fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom("(", ")", "{", "}", "\n", "|", "==", "state.", "$x", '"', "#", "not ", "List<", "- ", "```", "\n\n", "Enum(", "0"),
  ),
});

it("never throws on random strings inside a charter block", { timeout: 20_000 }, () => {
  fc.assert(fc.property(fc.string({ maxLength: 300, unit: "binary" }), (s) => holds(`\`\`\`charter\n${s}\n\`\`\``)), { numRuns: 400 });
});

it("never throws on random bytes as a whole file", { timeout: 20_000 }, () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => holds(new TextDecoder().decode(bytes))), { numRuns: 300 });
});

it("never throws on mutated valid contracts", { timeout: 30_000 }, () => {
  fc.assert(
    fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (edits) => {
      let text = examples[edits[0]?.example ?? 0] ?? "";
      for (const e of edits) {
        const at = e.at % (text.length + 1);
        text = text.slice(0, at) + e.insert + text.slice(at + e.cut);
      }
      holds(text);
    }),
    { numRuns: 400 },
  );
});
