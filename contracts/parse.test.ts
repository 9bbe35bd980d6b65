/**
 * @module Tests for the parser: the tree it builds (spans into the Markdown file, condition text,
 * every stage), line rules, and that hostile inputs end in a diagnostic, never an exception.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { AggregateDecl, Contract, QueryDecl } from "./ast.ts";
import { formatDiagnostics } from "./diagnostics.ts";
import { parseContract } from "./parse.ts";

const shipping = readFileSync(new URL("./examples/shipping.charter.md", import.meta.url), "utf8");
const library = readFileSync(new URL("./examples/library.charter.md", import.meta.url), "utf8");

function parsed(markdown: string): Contract {
  const r = parseContract(markdown);
  assert.deepEqual(formatDiagnostics(markdown, r.diagnostics), []);
  assert.ok(r.contract !== null);
  return r.contract;
}

function errors(markdown: string): string[] {
  return formatDiagnostics(markdown, parseContract(markdown).diagnostics);
}

const block = (body: string) => `# T\n\n\`\`\`charter\nnamespace a.b\nversion 1.0.0\n${body}\n\`\`\`\n`;
const at = (md: string, span: readonly [number, number]) => md.slice(span[0], span[1]);

describe("parseContract on the shipping example", () => {
  const c = parsed(shipping);
  const order = c.decls[0] as AggregateDecl;

  it("reads the header and the declarations", () => {
    assert.equal(c.namespace.name, "acme.shipping");
    assert.equal(c.version.name, "1.0.0");
    assert.equal(c.upgrades, null);
    assert.deepEqual(c.decls.map((d) => d.kind), ["AggregateDecl", "QueryDecl", "QueryDecl"]);
    assert.equal(order.fields.length, 10);
    assert.deepEqual(order.actions.map((a) => a.name.name), ["Request", "CheckCrate", "Confirm", "Pay", "Ship"]);
  });

  it("points spans into the whole Markdown file", () => {
    assert.equal(at(shipping, c.namespace.span), "acme.shipping");
    assert.equal(at(shipping, order.fields[0]?.span ?? [0, 0]), "public status: Enum(New, Requested, Confirmed, Shipped) = New");
    assert.equal(at(shipping, c.span), shipping.slice(shipping.indexOf("namespace"), shipping.lastIndexOf("```")));
  });

  it("keeps each condition's and assignment's text as written", () => {
    const ship = order.actions[4];
    assert.equal(ship?.validate[4]?.text, 'state.status == Confirmed or state.destination != "Embargoed"');
    assert.equal(at(shipping, ship?.validate[4]?.span ?? [0, 0]), ship?.validate[4]?.text);
    assert.equal(order.actions[1]?.apply[0]?.text, "state.crates_checked = state.crates_checked + 1");
    assert.equal(order.actions[1]?.merge?.mode, "commute");
    assert.equal(order.actions[4]?.durability?.mode, "quorum");
    assert.equal(order.actions[0]?.exposure, "authenticated");
  });

  it("parses operator precedence: or, and, comparison", () => {
    const e = order.actions[4]?.validate[2]?.expr;
    assert.equal(e?.kind === "Binary" && e.op, "or");
    assert.equal(e?.kind === "Binary" && e.left.kind === "Binary" && e.left.op, "==");
  });

  it("reads queries with their stages", () => {
    const find = c.decls[2] as QueryDecl;
    assert.equal(find.returns.name, "Order");
    assert.deepEqual(find.stages.map((s) => s.kind), ["Search", "Take"]);
  });
});

describe("parseContract line rules", () => {
  it("lets a stage wrap onto following lines, and comments sit anywhere", () => {
    const c = parsed(library);
    const byShelf = c.decls.find((d) => d.kind === "QueryDecl" && d.name.name === "ByShelf") as QueryDecl;
    const summarize = byShelf.stages[1];
    assert.equal(summarize?.kind === "Summarize" && summarize.aggregations.length, 5);
  });

  it("lets a condition continue inside parentheses", () => {
    const c = parsed(block("aggregate A {\n  public n: Int\n  action Go() {\n    authorize anyone\n    validate {\n      (state.n > 1 or\n        state.n < -1)\n    }\n  }\n}"));
    assert.equal((c.decls[0] as AggregateDecl).actions[0]?.validate.length, 1);
  });

  it("refuses two apply lines on one line", () => {
    const md = block("aggregate A {\n  public n: Int\n  action Go() {\n    authorize anyone\n    apply {\n      state.n = 1 state.n = 2\n    }\n  }\n}");
    assert.deepEqual(errors(md), ["syntax error: expected an operator or end of line, found `state` at line 11:19"]);
  });

  it("parses negative literals and normalises leading zeros", () => {
    const c = parsed(block("aggregate A {\n  public n: Int = -007\n}"));
    const d = (c.decls[0] as AggregateDecl).fields[0]?.default;
    assert.deepEqual(d?.kind === "IntLit" && d.value, "-7");
  });

  it("reports a clause written twice as a validation error", () => {
    const md = block("aggregate A {\n  action Go() {\n    authorize anyone\n    authorize owner\n  }\n}");
    assert.deepEqual(errors(md), ["validation error: action Go has more than one `authorize` at line 9:5"]);
  });
});

describe("parseContract on brackets left open", () => {
  it("points at a parameter list's `(` that is never closed", () => {
    const md = block("aggregate A {\n  public c: Text(len=9)\n  action Request(customer: Text(len=9) api authenticated {\n    authorize member\n  }\n}");
    assert.deepEqual(errors(md), ["syntax error: the parameter list of action Request is not closed: add `)` to match this `(` at line 8:17"]);
  });

  it("points at the `{` of a block the file ends inside", () => {
    const md = block("aggregate A {\n  action Go() {\n    authorize member\n  }");
    assert.deepEqual(errors(md), ["syntax error: aggregate A is not closed: add `}` to match this `{` at line 6:13"]);
  });

  it("keeps the parser's message for an error before or away from the open bracket", () => {
    const before = block("aggregate A {\n  action Go() {\n    authorize membr\n  }");
    assert.deepEqual(errors(before), ['syntax error: expected "anyone", "member", "owner", "delegate SCOPE" or "state.FIELD", found `membr` at line 8:15']);
    const extra = block("aggregate A {\n  public n: Int\n  action Go() {\n    authorize member\n    validate {\n      len(state.n)) > 0\n    }\n  }\n}");
    assert.deepEqual(errors(extra), ["syntax error: expected an operator or end of line, found `)` at line 11:19"]);
  });
});

describe("parseContract advice on syntax errors", () => {
  const condition = (e: string) => block(`aggregate A {\n  public n: Int\n  public b: Bool\n  action Go() {\n    authorize anyone\n    validate {\n      ${e}\n    }\n  }\n}`);
  const hint = (md: string) => (errors(md)[0] ?? "").split("\n")[1];

  it("says which word to write for an operator from another language", () => {
    assert.equal(hint(condition("state.n > 0 && state.b")), "  write `and` instead of `&&`");
    assert.equal(hint(condition("state.b || state.n > 0")), "  write `or` instead of `||`");
    assert.equal(hint(condition("!state.b")), "  write `not` instead of `!`");
    assert.equal(hint(condition("state.n != 1")), undefined);
  });

  it("says how to write text, comparisons and assignments", () => {
    assert.equal(hint(condition("state.n == 'x'")), '  text is written in double quotes: "like this"');
    assert.equal(hint(condition("state.n = 1")), "  compare with `==`; a single `=` assigns, and only in apply and migrate");
    const apply = block("aggregate A {\n  public n: Int\n  action Go() {\n    authorize anyone\n    apply {\n      state.n == 1\n    }\n  }\n}");
    assert.equal(hint(apply), "  an apply or migrate line assigns with a single `=`: state.FIELD = VALUE");
  });
});

describe("parseContract never throws", () => {
  const expression = (e: string) => block(`aggregate A {\n  public n: Int\n  action Go() {\n    authorize anyone\n    validate {\n      ${e}\n    }\n  }\n}`);

  it("stops 10,000 nested parentheses with a diagnostic", () => {
    const md = expression(`${"(".repeat(10_000)}true${")".repeat(10_000)}`);
    assert.match(errors(md)[0] ?? "", /^syntax error: nested more than 64 levels deep at line 11:/);
  });

  it("stops very long operator chains and deep prefix operators", () => {
    assert.match(errors(expression(`${"not ".repeat(50_000)}true`))[0] ?? "", /too deeply nested/);
    assert.match(errors(expression(`1${" + 1".repeat(50_000)} > 0`))[0] ?? "", /too deeply nested/);
  });

  it("stops deeply nested list types", () => {
    const md = block(`record R { x: ${"List<".repeat(5_000)}Int${">".repeat(5_000)} }`);
    assert.match(errors(md)[0] ?? "", /nested more than 64 levels deep/);
  });

  it("handles a 10 MB file of garbage and one of comments", () => {
    const garbage = `\`\`\`charter\n${"x!".repeat(5_000_000)}\n\`\`\``;
    assert.match(errors(garbage)[0] ?? "", /^syntax error: expected "namespace", found `x…?` at line 2:1$/);
    const comments = block("# a comment line\n".repeat(600_000));
    assert.ok(parseContract(comments).contract !== null);
  });

  it("handles binary data", () => {
    let bytes = "";
    for (let i = 0; i < 100_000; i++) bytes += String.fromCharCode((i * 7919) % 65536);
    const r = parseContract(`\`\`\`charter\n${bytes}\n\`\`\``);
    assert.equal(r.contract, null);
    assert.equal(r.diagnostics.length, 1);
  });
});
