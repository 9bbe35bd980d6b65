/**
 * @module Guards the committed generated parser: it must be exactly what `npm run grammar` makes
 * from `charter.peggy` now, so nobody edits the grammar and forgets to regenerate.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";
import { generateFromDisk, parserPath } from "./generate.ts";

it("parser.js is up to date with charter.peggy (run `npm run grammar`)", () => {
  assert.ok(readFileSync(parserPath, "utf8") === generateFromDisk(), "contracts/grammar/parser.js is stale: run `npm run grammar` and commit it");
});
