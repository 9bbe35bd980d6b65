/**
 * @module Benchmark: compiling a generated contract of 50 aggregates and 500 actions, warm (in
 * this process, binaryen already loaded) against the front end alone, and cold (a fresh process
 * that imports binaryen) against a fresh process that does nothing. Prints figures, asserts
 * nothing. Run alone with `node bench/compile.ts`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileContract } from "../contracts/compile.ts";
import { analyze } from "../contracts/front.ts";

/** A contract with `aggregates` aggregates of 10 actions each, using every action-usable type. */
export function generatedContract(aggregates = 50): string {
  const lines = ["# Generated", "", "```charter", "namespace bench.generated", "version 1.0.0", ""];
  for (let a = 0; a < aggregates; a++) {
    lines.push(
      `aggregate Thing${a} {`,
      "  public status: Enum(Draft, Open, Closed) = Draft",
      "  public title: Text(len=80)",
      "  public count: Int = 0",
      "  public limit: Int = 100",
      "  public owner: Identity",
      "  public due: Date",
      "  public tags: List<Text(len=16)>(cap=8)",
      "  private flagged: Bool = false",
      "",
    );
    for (let k = 0; k < 10; k++) {
      lines.push(
        `  action Act${k}(title: Text(len=40), amount: Int, tag: Text(len=16)) api authenticated {`,
        k % 2 === 0 ? "    authorize member" : "    authorize state.owner",
        "    validate {",
        `      state.status != Closed or amount > ${a * 10 + k}`,
        "      state.count + amount <= state.limit * 2",
        `      len(state.title + title) <= 120 and not (tag in state.tags)`,
        "    }",
        "    apply {",
        `      state.count = state.count + amount * ${k + 1}`,
        `      state.title = title + "#${a}.${k}"`,
        "      state.tags = append(state.tags, tag)",
        "      state.status = Open",
        "    }",
        "  }",
        "",
      );
    }
    lines.push("}", "");
  }
  lines.push("```", "");
  return lines.join("\n");
}

function ms(f: () => void): number {
  const start = performance.now();
  f();
  return performance.now() - start;
}

function best(runs: number, f: () => void): number {
  return Math.min(...Array.from({ length: runs }, () => ms(f)));
}

export async function benchCompile(): Promise<string[]> {
  const source = generatedContract();
  const first = compileContract(source);
  if (first.artifact === undefined) throw new Error(`generated contract does not compile: ${JSON.stringify(first.diagnostics.slice(0, 3))}`);
  const actions = Object.keys(first.artifact.schema.actions).length;
  const warm = best(3, () => compileContract(source));
  const front = best(3, () => analyze(source));

  const dir = mkdtempSync(join(tmpdir(), "charter-bench-"));
  try {
    const file = join(dir, "generated.charter.md");
    writeFileSync(file, source);
    const charter = fileURLToPath(new URL("../bin/charter.js", import.meta.url));
    const cold = best(2, () => execFileSync(process.execPath, [charter, "compile", file]));
    const idle = best(2, () => execFileSync(process.execPath, ["-e", ""]));
    return [
      `compile.warm_ms ${warm.toFixed(0)} (${actions} actions; front end alone ${front.toFixed(0)} ms, ratio ${(warm / front).toFixed(1)}x)`,
      `compile.cold_ms ${cold.toFixed(0)} (fresh charter process importing binaryen; empty node process ${idle.toFixed(0)} ms, ratio ${(cold / idle).toFixed(1)}x)`,
      `compile.wasm_bytes ${first.artifact.wasm.length} (schema ${first.artifact.schemaBytes.length} bytes, ratio ${(first.artifact.wasm.length / first.artifact.schemaBytes.length).toFixed(2)}x)`,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await benchCompile()) process.stdout.write(`${line}\n`);
}
