/**
 * @module `node contracts/std/build.ts`: compiles the standard library's contracts and writes
 * `contracts/std/artifacts.json` (library.ts). `--check` only says whether the file is current.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { compileContract } from "../compile.ts";
import { ARTIFACTS_URL, artifactsJson } from "./library.ts";

/** The file's content compiled from the sources now: this folder's contracts, then `node/`'s (personal). */
export function buildStandardLibrary(): string {
  const sources = (dir: URL, personal: boolean) =>
    (existsSync(dir) ? readdirSync(dir) : [])
      .filter((f) => f.endsWith(".charter.md"))
      .sort()
      .map((file) => ({ file: new URL(file, dir), personal }));
  const files = [...sources(new URL("./", import.meta.url), false), ...sources(new URL("./node/", import.meta.url), true)];
  return artifactsJson(
    files.map(({ file, personal }) => {
      const source = readFileSync(file, "utf8");
      const compiled = compileContract(source);
      if (compiled.artifact === undefined) throw new Error(`${file.pathname} does not compile: ${compiled.diagnostics.map((d) => d.message).join("; ")}`);
      const a = compiled.artifact;
      return { namespace: a.schema.namespace, id: a.id, schemaBytes: a.schemaBytes, wasm: a.wasm, source, personal };
    }),
  );
}

if (import.meta.main) {
  const built = buildStandardLibrary();
  if (process.argv.includes("--check")) {
    const current = readFileSync(ARTIFACTS_URL, "utf8");
    console.log(current === built ? "contracts/std/artifacts.json is current" : "contracts/std/artifacts.json is stale: run node contracts/std/build.ts");
    process.exitCode = current === built ? 0 : 1;
  } else {
    writeFileSync(ARTIFACTS_URL, built);
    console.log("wrote contracts/std/artifacts.json");
  }
}
