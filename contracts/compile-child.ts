/**
 * @module A short-lived compiler process: reads `{source, previous?}` (JSON) on stdin — the
 * contract's Markdown and, for an upgrade, the replaced version's aggregates — writes one
 * CompileOutcome as JSON on stdout, exits. The gateway runs it for `POST /v1/{tenant}/_install` so
 * that binaryen (~0.5 s, ~110 MB) is loaded here and never in a long-lived worker.
 */
import { text } from "node:stream/consumers";
import { artifactWire, locatedErrors, type CompileOutcome } from "./artifact-wire.ts";
import type { CheckOptions } from "./check/check-contract.ts";
import { compileContract } from "./compile.ts";

const { source, previous } = JSON.parse(await text(process.stdin)) as { source: string; previous?: CheckOptions["previous"] };
const result = compileContract(source, previous === undefined ? {} : { previous });
const outcome: CompileOutcome = result.artifact === undefined ? locatedErrors(source, result.diagnostics) : { ok: true, artifact: artifactWire(result.artifact, source) };
process.stdout.write(JSON.stringify(outcome));
