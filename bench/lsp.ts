/**
 * @module Benchmark of `charter lsp`: how long after a change to a generated 2,000-line contract its
 * diagnostics arrive (p50 and max over 40 changes, through the real server over stdio), against the
 * raw `analyze` of the same contract in this process. The target is 300 ms. Prints, never asserts.
 */
import { analyze } from "../contracts/front.ts";
import { largeContract } from "../contracts/language-service/testing/large-contract.ts";
import { startLsp } from "../test/helpers/lsp-client.ts";
import { report } from "./lib.ts";

const CHANGES = 40;
const text = largeContract(2000);

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

const raw: number[] = [];
for (let i = 0; i < CHANGES; i++) {
  const started = performance.now();
  analyze(text);
  raw.push(performance.now() - started);
}
raw.sort((a, b) => a - b);

const lsp = await startLsp();
const uri = "file:///bench/large.charter.md";
lsp.open(uri, text);
await lsp.diagnostics(uri, 1);
const lines = text.split("\n");
const line = lines.findIndex((l) => l.trim() === "amount > 0", 1000);
const character = (lines[line] ?? "").indexOf("0");
const latency: number[] = [];
for (let version = 2; version < CHANGES + 2; version++) {
  const started = performance.now();
  // Alternate between a type error and valid code, so both paths are measured.
  lsp.change(uri, version, [{ range: { start: { line, character }, end: { line, character: character + 1 } }, text: version % 2 === 0 ? "x" : "0" }]);
  await lsp.diagnostics(uri, version);
  latency.push(performance.now() - started);
}
await lsp.stop();
latency.sort((a, b) => a - b);

const rawP50 = percentile(raw, 0.5);
report(`lsp diagnostics p50 (${lines.length} lines)`, percentile(latency, 0.5), "ms", { label: "raw analyze p50", value: rawP50, higherIsBetter: false, target: "300 ms" });
report(`lsp diagnostics max (${lines.length} lines)`, latency.at(-1) ?? 0, "ms", { label: "raw analyze max", value: raw.at(-1) ?? 0, higherIsBetter: false, target: "300 ms" });
