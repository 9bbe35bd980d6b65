/**
 * @module Golden cases for the back end: `compile/<name>.charter.md` → `<name>.schema.json` (the
 * canonical schema, indented for review), `<name>.wat` (the optimised program as text) and
 * `<name>.id.txt` (the artifact id). A change to code generation, layout or schema shows up as a
 * reviewable diff here. Upgrades read `<name>.previous.charter.md` as the diagnostics cases do.
 */
import { compileContract } from "../../contracts/compile.ts";
import { formatDiagnostic } from "../../contracts/diagnostics.ts";
import type { CaseKind } from "./case-kinds.ts";
import { caseOptions } from "./diagnostics-kind.ts";

/** `compile/<name>.charter.md` → schema JSON, WAT and artifact id. */
export const compileKind: CaseKind = {
  name: "compile",
  dir: new URL("./compile/", import.meta.url),
  input: ".charter.md",
  helpers: [".previous.charter.md"],
  produce(path, text) {
    const result = compileContract(text, { ...caseOptions(path), wat: true });
    if (result.artifact === undefined || result.wat === undefined) {
      throw new Error(`${path.pathname} does not compile:\n${result.diagnostics.map((d) => formatDiagnostic(text, d)).join("\n")}`);
    }
    const schema = JSON.parse(new TextDecoder().decode(result.artifact.schemaBytes)) as unknown;
    return {
      ".schema.json": `${JSON.stringify(schema, null, 2)}\n`,
      ".wat": result.wat,
      ".id.txt": `${result.artifact.id}\n`,
    };
  },
};
