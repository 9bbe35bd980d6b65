/**
 * @module Golden cases for `charter describe` (issue 6): `describe/<name>.charter.md` →
 * `<name>.openapi.json`, `<name>.schema.graphql` and `<name>.api.proto`, generated from the
 * compiled schema. A change to any generator, or to the schema they read, shows up here as a diff.
 */
import { compileContract } from "../../contracts/compile.ts";
import { describeSchema } from "../../contracts/describe/index.ts";
import { formatDiagnostic } from "../../contracts/diagnostics.ts";
import type { Schema } from "../../contracts/schema.ts";
import type { CaseKind } from "./case-kinds.ts";

/** `describe/<name>.charter.md` → the three API descriptions. */
export const describeKind: CaseKind = {
  name: "describe",
  dir: new URL("./describe/", import.meta.url),
  input: ".charter.md",
  produce(path, text) {
    const result = compileContract(text);
    if (result.artifact === undefined) {
      throw new Error(`${path.pathname} does not compile:\n${result.diagnostics.map((d) => formatDiagnostic(text, d)).join("\n")}`);
    }
    const files = describeSchema(JSON.parse(new TextDecoder().decode(result.artifact.schemaBytes)) as Schema);
    return { ".openapi.json": files["openapi.json"], ".schema.graphql": files["schema.graphql"], ".api.proto": files["api.proto"] };
  },
};
