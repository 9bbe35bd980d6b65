/**
 * @module Tests for the size limits (issue 16 #12): each `len`, `cap` and `dim` within its limit,
 * each state and argument list within 1 MiB, and every program the checker accepts within the
 * 8 MiB of memory it promises — checked against the memory the compiled program really reserves.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileContract } from "../compile.ts";
import { formatDiagnostics } from "../diagnostics.ts";
import { analyze } from "../front.ts";
import { MAX_MEMORY_BYTES, MAX_TEXT_LEN } from "../limits.ts";
import { PAGE_SIZE } from "../layout.ts";

const block = (body: string) => `\`\`\`charter\nnamespace a.b\nversion 1.0.0\n${body}\n\`\`\`\n`;
const errors = (markdown: string): string[] => formatDiagnostics(markdown, analyze(markdown).diagnostics);
const fields = (n: number, type: string) => Array.from({ length: n }, (_, i) => `  public f${i}: ${type}`).join("\n");
const action = (params: string, line: string) => `  action Go(${params}) {\n    authorize anyone\n    apply {\n      ${line}\n    }\n  }`;

/** Pages the compiled program reserves; fails the test on any diagnostic. */
function pages(markdown: string): number {
  const r = compileContract(markdown);
  assert.deepEqual(formatDiagnostics(markdown, r.diagnostics), []);
  assert.ok(r.artifact !== undefined);
  return (JSON.parse(new TextDecoder().decode(r.artifact.schemaBytes)) as { layout: { pages: number } }).layout.pages;
}

describe("size limits", () => {
  it("issue 16 #12: Text(len=2147483647) is a diagnostic naming the limit, through check and compile", () => {
    const md = block(`aggregate A {\n  public t: Text(len=2147483647)\n${action("x: Text(len=10)", "state.t = x")}\n}`);
    const expected = ["type error: Text length 2147483647 is over the limit of 65536 at line 5:13"];
    assert.deepEqual(errors(md), expected);
    const r = compileContract(md);
    assert.equal(r.artifact, undefined);
    assert.deepEqual(formatDiagnostics(md, r.diagnostics), expected);
  });

  it("issue 16 #12: len=100000000 no longer reserves 800 MB", () => {
    const md = block(`aggregate A {\n  public t: Text(len=100000000)\n}`);
    assert.deepEqual(errors(md), ["type error: Text length 100000000 is over the limit of 65536 at line 5:13"]);
  });

  it("bounds list capacities and vector dimensions, parameters and record fields too", () => {
    const md = block(`record R {\n  v: Vector(dim=4097)\n}\naggregate A {\n  public l: List<Int>(cap=65537)\n${action("x: List<Text(len=70000)>(cap=2)", "state.l = state.l")}\n}`);
    assert.deepEqual(errors(md), [
      "type error: Vector dimension 4097 is over the limit of 4096 at line 5:6",
      "type error: List capacity 65537 is over the limit of 65536 at line 8:13",
      "type error: Text length 70000 is over the limit of 65536 at line 9:21",
    ]);
  });

  it("accepts every size at its limit", () => {
    const md = block(`aggregate A {\n  public t: Text(len=${MAX_TEXT_LEN})\n  public l: List<Int>(cap=65536)\n  public v: Vector(dim=4096)\n}`);
    assert.deepEqual(errors(md), []);
  });

  it("says what the limit is when a size is missing", () => {
    assert.deepEqual(errors(block("aggregate A {\n  public t: Text\n}")), ["type error: Text needs a length between 1 and 65536, e.g. Text(len=200) at line 5:13"]);
  });
});

describe("memory limits", () => {
  it("issue 16 #12: many max-size fields are refused as one state over 1 MiB", () => {
    assert.deepEqual(errors(block(`aggregate A {\n${fields(40, "Text(len=65536)")}\n}`)), [
      "type error: the state of aggregate A takes 10486080 bytes, over the limit of 1 MiB (1048576 bytes): use shorter texts or smaller lists at line 4:11",
    ]);
    assert.match(errors(block("aggregate A {\n  public l: List<Text(len=65536)>(cap=65536)\n}")).join(""), /state of aggregate A takes 17180393480 bytes/);
  });

  it("issue 16 #12: refuses arguments over 1 MiB", () => {
    const md = block(`aggregate A {\n  public n: Int\n${action(Array.from({ length: 5 }, (_, i) => `p${i}: Text(len=65536)`).join(", "), "state.n = 1")}\n}`);
    assert.match(errors(md).join(""), /the arguments of action A\.Go take 1310760 bytes, over the limit of 1 MiB/);
  });

  it("issue 16 #12: refuses an action whose joined texts would need more than 8 MiB", () => {
    const joins = Array.from({ length: 40 }, () => "x").join(" + ");
    const md = block(`aggregate A {\n  public t: Text(len=65536)\n${action("x: Text(len=65536)", `state.t = ${joins}`)}\n}`);
    assert.match(errors(md).join(""), /action A\.Go needs up to \d+ bytes of program memory .* over the limit of 8 MiB \(8388608 bytes\) at line 6:10/);
  });

  it("a joined text is never longer than the Text limit", () => {
    const md = block(`aggregate A {\n  public t: Text(len=65536)\n${action("x: Text(len=65536)", "state.t = x + x")}\n}`);
    const r = analyze(md);
    const apply = r.contract?.decls[0]?.kind === "AggregateDecl" ? r.contract.decls[0].actions[0]?.apply[0] : undefined;
    assert.deepEqual(apply?.value.type, { kind: "Text", len: MAX_TEXT_LEN });
  });

  it("keeps every accepted program within 8 MiB of memory, near the limits too", () => {
    const state = `${fields(3, "Text(len=65536)")}\n  public l: List<Text(len=100)>(cap=200)`;
    const joins = Array.from({ length: 16 }, () => "f0").join(" + ");
    const big = block(`aggregate A {\n${state}\n${action("x: Text(len=65536), y: Text(len=65536), z: Text(len=65536)", `state.f0 = ${joins.replaceAll("f0", "x")}`)}\n}`);
    const used = pages(big);
    assert.ok(used * PAGE_SIZE <= MAX_MEMORY_BYTES, `${used} pages`);
    assert.ok(used > 64, `${used} pages: the case should come close to the limit`);
    const lists = block(`aggregate A {\n  public l: List<Text(len=1000)>(cap=200)\n${action("x: Text(len=1000)", "state.l = append(remove(append(state.l, x), x), x)")}\n}`);
    assert.ok(pages(lists) * PAGE_SIZE <= MAX_MEMORY_BYTES);
  });
});
