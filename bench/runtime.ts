/**
 * @module Benchmark: evaluations of the shipping contract's `Ship` per second through the
 * WebAssembly runtime, against the reference interpreter measured in the same run. Prints figures,
 * asserts nothing. Run alone with `node bench/runtime.ts`.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compileContract } from "../contracts/compile.ts";
import { analyze } from "../contracts/front.ts";
import { createInterpreter } from "../contracts/interpreter/interpreter.ts";
import { loadArtifact } from "../contracts/runtime/index.ts";
import type { EncodedInput, ExecuteInput, Outcome, State } from "../contracts/runtime/index.ts";

const SIGNER = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const DESTINATIONS = ["Oslo", "Embargoed", "Reykjavík", "København", "Lisboa", "東京"];

/** 1024 different Order states in Requested or Confirmed, some shippable, some not. */
function inputs(): ExecuteInput[] {
  return Array.from({ length: 1024 }, (_, i) => ({
    state: {
      status: i % 3 === 0 ? "Confirmed" : "Requested",
      customer: `Customer ${i}`,
      destination: DESTINATIONS[i % DESTINATIONS.length] as string,
      units: 1 + ((i * 37) % 150),
      crates: 1 + (i % 4),
      crates_checked: 1 + (i % 4) - (i % 11 === 0 ? 1 : 0),
      paid: i % 5 !== 0,
      credit_terms: i % 7 === 0,
      requested_by: SIGNER,
      confirmed_by: i % 3 === 0 ? SIGNER : null,
    },
    args: {},
    context: { signer: SIGNER, time: 1_700_000_000_000 + i },
  }));
}

/** Calls per second of `execute` over the inputs for about `ms` milliseconds. */
function rate(execute: (action: string, input: ExecuteInput) => Outcome, all: ExecuteInput[], ms: number): number {
  let calls = 0;
  let accepted = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (const input of all) if (execute("Ship", input).outcome === "accepted") accepted++;
    calls += all.length;
    now = performance.now();
  }
  if (accepted === 0) throw new Error("no Ship was accepted: the benchmark's states are wrong");
  return calls / ((now - start) / 1000);
}

export async function benchRuntime(): Promise<string[]> {
  const source = readFileSync(new URL("../contracts/examples/shipping.charter.md", import.meta.url), "utf8");
  const { artifact } = compileContract(source);
  const contract = analyze(source).contract;
  if (artifact === undefined || contract === null) throw new Error("the shipping example does not compile");
  const runtime = loadArtifact(artifact);
  const interpreter = createInterpreter(contract, source);
  const all = inputs();
  rate(runtime.execute, all, 300);
  rate(interpreter.execute, all, 300);
  const encoded = all.map((input) => ({ ...input, state: runtime.encodeState("Order", input.state as State) }));
  const executeEncoded = (action: string, input: ExecuteInput): Outcome => {
    const out = runtime.executeEncoded(action, input as unknown as EncodedInput);
    return out.outcome === "accepted" ? { outcome: "accepted", state: {} } : out;
  };
  const wasm = rate(runtime.execute, all, 1500);
  const reference = rate(interpreter.execute, all, 1500);
  const bytes = rate(executeEncoded, encoded as unknown as ExecuteInput[], 1500);
  return [
    `runtime.ship_evals_per_s ${Math.round(wasm)} (interpreter ${Math.round(reference)}, ratio ${(wasm / reference).toFixed(1)}x)`,
    `runtime.ship_encoded_evals_per_s ${Math.round(bytes)} (JSON-style state ${Math.round(wasm)}, ratio ${(bytes / wasm).toFixed(2)}x)`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await benchRuntime()) process.stdout.write(`${line}\n`);
}
