/**
 * @module Runs the golden cases (issue 3): every case's outputs equal its files, every catalogue
 * code is produced by at least one diagnostics case, and every example contract checks cleanly.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { catalog } from "../../contracts/diagnostic-catalog.ts";
import { formatDiagnostics } from "../../contracts/diagnostics.ts";
import { analyze } from "../../contracts/front.ts";
import { caseKinds } from "./case-kinds.ts";
import { caseOptions, diagnosticsKind } from "./diagnostics-kind.ts";
import { caseNames, runCase } from "./golden.ts";

for (const kind of caseKinds) {
  describe(`golden ${kind.name}`, () => {
    for (const name of caseNames(kind)) {
      it(name, () => {
        const result = runCase(kind, name, false);
        for (const m of result.mismatches) assert.equal(m.actual, m.expected, `${m.file} differs (npm run golden -- --update, then review the diff)`);
      });
    }
  });
}

describe("diagnostic catalogue coverage", () => {
  const produced = new Set<string>();
  let bad = 0;
  for (const name of caseNames(diagnosticsKind)) {
    const path = new URL(`${name}.charter.md`, diagnosticsKind.dir);
    const { diagnostics } = analyze(readFileSync(path, "utf8"), caseOptions(path));
    if (diagnostics.length > 0) bad++;
    for (const d of diagnostics) produced.add(d.code);
  }

  it("has at least 45 cases with diagnostics", () => {
    assert.ok(bad >= 45, `only ${bad} bad-input cases`);
  });

  it("reaches every front-end code of the catalogue", () => {
    // The compile phase's codes are the back end's, produced only by a compiler bug:
    // contracts/compile.test.ts covers them.
    const missing = Object.entries(catalog)
      .filter(([code, entry]) => entry.phase !== "compile" && !produced.has(code))
      .map(([code]) => code);
    assert.deepEqual(missing, [], "catalogue codes without a golden case");
  });
});

describe("example contracts", () => {
  const dir = new URL("../../contracts/examples/", import.meta.url);
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".charter.md"))) {
    it(`${file} checks without diagnostics`, () => {
      const text = readFileSync(new URL(file, dir), "utf8");
      const { contract, diagnostics } = analyze(text);
      assert.deepEqual(formatDiagnostics(text, diagnostics), []);
      assert.ok(contract !== null);
    });
  }
});
