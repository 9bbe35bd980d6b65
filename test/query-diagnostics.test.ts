/**
 * Issue 5, acceptance: a query naming an unknown field, a parameter of the wrong type, or a
 * `search` over an undeclared index is a compile-time diagnostic, never a runtime error.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";
import { compileContract } from "../contracts/compile.ts";
import { formatDiagnostic } from "../contracts/diagnostics.ts";

const base = readFileSync(new URL("./fixtures/stages.charter.md", import.meta.url), "utf8");

function errors(query: string): string[] {
  const source = base.replace("query Hidden() returns List<Node> pipe\n  Node\n", `${query}\n`);
  const compiled = compileContract(source);
  assert.equal(compiled.artifact, undefined, "must not compile");
  return compiled.diagnostics.map((d) => formatDiagnostic(source, d));
}

it("an unknown field", () => {
  const [e] = errors("query Q() returns List<Item> pipe\n  Item\n  | where colour == \"red\"");
  assert.match(e ?? "", /^query error: .*colour.* at line \d+:\d+$/);
});

it("a parameter of the wrong type", () => {
  const [e] = errors("query Q(n: Text(len=5)) returns List<Item> pipe\n  Item\n  | take $n");
  assert.match(e ?? "", /^(query|type) error: .*take.* at line \d+:\d+$/);
  const [f] = errors("query Q(v: Vector(dim=4), k: Int) returns List<Item> pipe\n  Item\n  | nearest embedding to $v take $k");
  assert.match(f ?? "", /^(query|type) error: .*nearest.* at line \d+:\d+$/);
});

it("a search over an undeclared index", () => {
  const [e] = errors("query Q(t: Text(len=5)) returns List<Item> pipe\n  Item\n  | search $t in kind");
  assert.match(e ?? "", /^query error: .*kind.* at line \d+:\d+$/);
});

it("a private field", () => {
  const [e] = errors("query Q() returns List<Item> pipe\n  Item\n  | where secret == \"x\"");
  assert.match(e ?? "", /secret/);
});
