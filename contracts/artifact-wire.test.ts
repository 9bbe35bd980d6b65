import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { locatedErrors } from "./artifact-wire.ts";
import { compileContract } from "./compile.ts";

test("the install's located errors carry the compiler's hint beside the message", () => {
  const source = readFileSync(new URL("../test/golden/diagnostics/validation-enum-vs-string.charter.md", import.meta.url), "utf8");
  const compiled = compileContract(source);
  assert.equal(compiled.artifact, undefined);
  const { errors, printed } = locatedErrors(source, compiled.diagnostics);
  assert.deepEqual(errors[0], {
    message: "validation error: invalid eq types",
    line: 21,
    column: 7,
    hint: 'cannot compare Enum(New, Requested, Shipped) == Text(len=3): state.status is an enum; write New, not "New"',
  });
  assert.equal(printed[0], `validation error: invalid eq types at line 21:7\n  ${errors[0]?.hint}`);
});
