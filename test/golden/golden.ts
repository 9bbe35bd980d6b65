/**
 * @module The golden harness: runs every case of every kind and compares each output with its
 * file, or rewrites the files (`update`). Shared by `run.ts` (the `npm run golden` command) and
 * `golden.test.ts`.
 */
import { readdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import type { CaseKind } from "./case-kinds.ts";

/** One case's outcome. */
export interface CaseResult {
  readonly kind: string;
  readonly name: string;
  /** Output files that differ from (or are missing for) what the case produces now. */
  readonly mismatches: readonly { readonly file: string; readonly expected: string | null; readonly actual: string }[];
}

/** The case names of a kind: its input files minus the input suffix, helpers excluded, sorted. */
export function caseNames(kind: CaseKind): string[] {
  return readdirSync(kind.dir)
    .filter((f) => f.endsWith(kind.input) && !(kind.helpers ?? []).some((h) => f.endsWith(h)))
    .map((f) => f.slice(0, -kind.input.length))
    .sort();
}

/** Runs one case; with `update`, writes outputs that differ and reports nothing as mismatched. */
export function runCase(kind: CaseKind, name: string, update: boolean): CaseResult {
  const input = new URL(`${name}${kind.input}`, kind.dir);
  const outputs = kind.produce(input, readFileSync(input, "utf8"));
  const mismatches: CaseResult["mismatches"][number][] = [];
  for (const [suffix, actual] of Object.entries(outputs)) {
    const file = new URL(`${name}${suffix}`, kind.dir);
    const expected = existsSync(file) ? readFileSync(file, "utf8") : null;
    if (expected === actual) continue;
    if (update) writeFileSync(file, actual);
    else mismatches.push({ file: file.pathname, expected, actual });
  }
  return { kind: kind.name, name, mismatches };
}

/** Runs every case of every kind. */
export function runGolden(kinds: readonly CaseKind[], update: boolean): CaseResult[] {
  return kinds.flatMap((kind) => caseNames(kind).map((name) => runCase(kind, name, update)));
}
