/**
 * @module The kinds of golden case the harness knows. A kind reads every `*<input>` file of its
 * folder (except `*.<sidecar>` helper files) and produces named outputs, each compared with (or,
 * with `--update`, written to) `<name><suffix>` next to the input. Another kind — compile cases
 * producing schema JSON and WAT — is added by appending to `caseKinds`, nothing else changes.
 */
import { compileKind } from "./compile-kind.ts";
import { describeKind } from "./describe-kind.ts";
import { diagnosticsKind } from "./diagnostics-kind.ts";

/** One kind of golden case. */
export interface CaseKind {
  /** Shown in test names and reports. */
  readonly name: string;
  /** The folder holding the inputs and their expected outputs. */
  readonly dir: URL;
  /** How an input file's name ends, e.g. `.charter.md`. */
  readonly input: string;
  /** Inputs ending with one of these are helpers read by `produce`, not cases. */
  readonly helpers?: readonly string[];
  /** The outputs for one input: output suffix (e.g. `.expected.txt`) → exact file content. */
  produce(path: URL, text: string): Record<string, string>;
}

/** Every kind the harness runs, in order. */
export const caseKinds: CaseKind[] = [diagnosticsKind, compileKind, describeKind];
