/**
 * @module A short-lived compiler process: reads `{source, previous?, collections?}` (JSON) on stdin —
 * the contract's Markdown, for an upgrade the replaced version's aggregates, and the collections
 * the tenant's queries may read — writes one
 * CompileOutcome as JSON on stdout, exits. The gateway runs it for `POST /v1/{tenant}/_install` so
 * that binaryen (~0.5 s, ~110 MB) is loaded here and never in a long-lived worker.
 *
 * Whatever the source, the answer is an outcome: the compiler turns a back-end failure into a
 * diagnostic, and anything else thrown here becomes one too (C0601, a bug), so the install
 * answers 422 with a message instead of 500.
 */
import { text } from "node:stream/consumers";
import { artifactWire, locatedErrors, type CompileOutcome } from "./artifact-wire.ts";
import type { CheckOptions, CollectionInfo } from "./check/check-contract.ts";
import { compileContract, compilerFailure } from "./compile.ts";

const input = await text(process.stdin);
let source = "";
let outcome: CompileOutcome;
try {
  const request = JSON.parse(input) as { source: string; previous?: CheckOptions["previous"]; collections?: Record<string, CollectionInfo> };
  if (typeof request.source !== "string") throw new Error("the compile request has no source text");
  const { previous, collections } = request;
  source = request.source;
  const result = compileContract(source, {
    ...(previous === undefined ? {} : { previous }),
    resolveCollection: (name) => (collections !== undefined && Object.hasOwn(collections, name) ? (collections[name] ?? null) : null),
  });
  outcome = result.artifact === undefined ? locatedErrors(source, result.diagnostics) : { ok: true, artifact: artifactWire(result.artifact, source) };
} catch (error) {
  outcome = locatedErrors(source, [compilerFailure(error)]);
}
process.stdout.write(JSON.stringify(outcome));
