/**
 * @module `npm run golden` compares every golden case with its expected files and exits non-zero on
 * a difference; `npm run golden -- --update` rewrites the expected files (review them in the diff).
 */
import { caseKinds } from "./case-kinds.ts";
import { runGolden } from "./golden.ts";

const update = process.argv.includes("--update");
const results = runGolden(caseKinds, update);
let failed = 0;
for (const r of results) {
  for (const m of r.mismatches) {
    failed++;
    console.log(`✗ ${r.kind}/${r.name}: ${m.file}`);
    console.log(`  expected:\n${indent(m.expected ?? "(missing)")}  actual:\n${indent(m.actual)}`);
  }
}
console.log(`${results.length} golden cases, ${update ? "expected files updated" : `${failed} mismatched`}`);
process.exitCode = failed === 0 ? 0 : 1;

function indent(text: string): string {
  return text.split("\n").map((l) => `    ${l}`).join("\n") + "\n";
}
