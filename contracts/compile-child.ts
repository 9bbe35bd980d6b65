/**
 * @module A short-lived compiler process: reads `{source, previous?, collections?}` (JSON) on stdin —
 * the contract's Markdown, for an upgrade the replaced version's aggregates, and the collections
 * the tenant's queries may read — writes one
 * CompileOutcome as JSON on stdout, exits. The gateway runs it for `POST /v1/{tenant}/_install` so
 * that binaryen (~0.5 s, ~110 MB) is loaded here and never in a long-lived worker.
 */
import { text } from "node:stream/consumers";
import { artifactWire, locatedErrors, type CompileOutcome } from "./artifact-wire.ts";
import type { CheckOptions, CollectionInfo } from "./check/check-contract.ts";
import { compileContract } from "./compile.ts";

const { source, previous, collections } = JSON.parse(await text(process.stdin)) as {
  source: string;
  previous?: CheckOptions["previous"];
  collections?: Record<string, CollectionInfo>;
};
const result = compileContract(source, {
  ...(previous === undefined ? {} : { previous }),
  resolveCollection: (name) => (collections !== undefined && Object.hasOwn(collections, name) ? (collections[name] ?? null) : null),
});
const outcome: CompileOutcome = result.artifact === undefined ? locatedErrors(source, result.diagnostics) : { ok: true, artifact: artifactWire(result.artifact, source) };
process.stdout.write(JSON.stringify(outcome));
