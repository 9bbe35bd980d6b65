/**
 * @module Tests for the checker's annotations and options: types on expressions, resolved names,
 * the typed query plan, foreign collections with indexes, and upgrades against a previous version.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { AggregateDecl, Contract, QueryDecl } from "../ast.ts";
import { formatDiagnostics } from "../diagnostics.ts";
import { analyze, type CheckOptions } from "../front.ts";
import { previousVersion } from "./previous.ts";

const example = (name: string) => readFileSync(new URL(`../examples/${name}`, import.meta.url), "utf8");
const block = (body: string, header = "namespace a.b\nversion 1.0.0\n") => `\`\`\`charter\n${header}${body}\n\`\`\`\n`;

function check(markdown: string, options: CheckOptions = {}): { contract: Contract; errors: string[] } {
  const r = analyze(markdown, options);
  assert.ok(r.contract !== null, formatDiagnostics(markdown, r.diagnostics).join("\n"));
  return { contract: r.contract, errors: formatDiagnostics(markdown, r.diagnostics) };
}

describe("checkContract annotations", () => {
  const { contract, errors } = check(example("shipping.charter.md"));
  const order = contract.decls[0] as AggregateDecl;

  it("checks the shipping example cleanly", () => assert.deepEqual(errors, []));

  it("fills resolvedType on fields and parameters", () => {
    assert.deepEqual(order.fields[0]?.resolvedType, { kind: "Enum", values: ["New", "Requested", "Confirmed", "Shipped"] });
    assert.deepEqual(order.actions[0]?.params[0]?.resolvedType, { kind: "Text", len: 200 });
  });

  it("types expressions and resolves bare names", () => {
    const cond = order.actions[0]?.validate[0]?.expr;
    assert.ok(cond?.kind === "Binary" && cond.right.kind === "Name");
    assert.deepEqual(cond.type, { kind: "Bool" });
    assert.deepEqual(cond.right.resolved, { kind: "enum-value", value: "New" });
    assert.deepEqual(cond.right.type, order.fields[0]?.resolvedType);
    const units = order.actions[0]?.validate[1]?.expr;
    assert.ok(units?.kind === "Binary" && units.left.kind === "Name");
    assert.deepEqual(units.left.resolved, { kind: "param", name: "units" });
    assert.deepEqual(order.actions[0]?.apply[6]?.value.type, { kind: "Identity" });
  });

  it("records the typed plan of a query", () => {
    const find = contract.decls[2] as QueryDecl;
    assert.equal(find.columns?.length, 3);
    assert.deepEqual(find.columns?.[0]?.slice(0, 3), [
      { name: "subject", type: { kind: "Text", len: 128 } },
      { name: "key", type: { kind: "Text", len: 128 } },
      { name: "status", type: { kind: "Enum", values: ["New", "Requested", "Confirmed", "Shipped"] } },
    ]);
    assert.deepEqual(find.columns?.[2]?.at(-1), { name: "score", type: { kind: "Float" } });
  });
});

describe("checkContract rules", () => {
  const aggregate = (members: string) => block(`aggregate A {\n  public n: Int\n  public t: Text(len=3)\n  public d: Date\n${members}\n}`);

  it("accepts a longer Text assigned to a shorter field (checked at run time) but not a too-long literal", () => {
    const ok = check(aggregate("  action Go(s: Text(len=100)) {\n    authorize anyone\n    apply {\n      state.t = s + s\n    }\n  }"));
    assert.deepEqual(ok.errors, []);
    const bad = check(aggregate('  action Go() {\n    authorize anyone\n    apply {\n      state.t = "abcd"\n    }\n  }'));
    assert.deepEqual(bad.errors, ["type error: text of 4 characters does not fit Text(len=3) at line 11:17"]);
  });

  it("types a text literal compared with a Date as a date", () => {
    const { contract, errors } = check(aggregate('  action Go() {\n    authorize anyone\n    validate {\n      state.d >= "2024-02-29"\n    }\n  }'));
    assert.deepEqual(errors, []);
    const cond = (contract.decls[0] as AggregateDecl).actions[0]?.validate[0]?.expr;
    assert.ok(cond?.kind === "Binary");
    assert.deepEqual(cond.right.type, { kind: "Date" });
  });

  it("accepts merge commute with a constant on either side, including a negative one", () => {
    const { errors } = check(aggregate("  public m: Int\n  action Go() {\n    authorize anyone\n    merge commute\n    apply {\n      state.n = state.n + -2\n      state.m = 5 + state.m\n    }\n  }"));
    assert.deepEqual(errors, []);
  });

  it("points invalid eq types at the comparison's left operand", () => {
    const md = block('enum S(On, Off)\naggregate A {\n  public s: S\n  action Go() {\n    authorize anyone\n    validate {\n      state.n > 0 or "On" == state.s\n    }\n  }\n}');
    const r = analyze(md);
    const eq = formatDiagnostics(md, r.diagnostics).filter((e) => e.startsWith("validation error: invalid eq types at"));
    assert.deepEqual(eq, ['validation error: invalid eq types at line 10:22\n  cannot compare Text(len=2) == S: S is an enum; write On, not "On"']);
  });

  it("advises on text compared with an enum: the value to write, the values, or comparing with a value", () => {
    const md = block('enum S(On, Off)\naggregate A {\n  public s: S\n  public t: Enum(Up, Down)\n  action Go(name: Text(len=3)) {\n    authorize anyone\n    validate {\n      state.t != "Up"\n      state.s == "Of"\n      name == state.s\n    }\n  }\n}');
    const hints = analyze(md).diagnostics.map((d) => [d.code, d.message, d.hint]);
    assert.deepEqual(hints, [
      ["C0201", "invalid eq types", 'cannot compare Enum(Up, Down) != Text(len=2): state.t is an enum; write Up, not "Up"'],
      ["C0201", "invalid eq types", "cannot compare S == Text(len=2): S is an enum; write one of its values without quotes: On or Off"],
      ["C0201", "invalid eq types", "cannot compare Text(len=3) == S: S is an enum and never equals text; compare it with one of its values: On or Off"],
    ]);
  });

  it("issue 16 #9: refuses a fulltext index that mixes private and public fields, naming both", () => {
    const members = (fields: string) => block(`aggregate T {\n  public title: Text(len=100)\n  private notes: Text(len=100)\n  private secret: Text(len=100)\n  index words fulltext(${fields})\n}`);
    assert.deepEqual(check(members("title, notes")).errors, [
      "validation error: fulltext index words mixes private field `notes` with public field `title`: a search's scores would reveal the private text's length; index public fields only (private fields may have an index of their own) at line 8:31",
    ]);
    assert.match(check(members("notes, title")).errors.join("\n"), /private field `notes` with public field `title`/);
    assert.deepEqual(check(members("title")).errors, []);
    assert.deepEqual(check(members("notes, secret")).errors, []);
  });

  it("guards merge commute on a field that is not Int", () => {
    const { errors } = check(aggregate("  action Go() {\n    authorize anyone\n    merge commute\n    apply {\n      state.t = state.t + \"a\"\n    }\n  }"));
    assert.equal(errors.length, 1);
    assert.match(errors[0] ?? "", /^type error: merge commute needs/);
  });
});

describe("checkContract options", () => {
  it("reads a foreign collection's indexes for search and nearest", () => {
    const md = block(
      "query Q(q: Text(len=10), v: Vector(dim=2)) returns List<Hit> pipe\n  acme.docs.Doc\n  | search $q in title\n  | nearest v to $v take 3\n  | select subject, score, distance\n\nrecord Hit { subject: Text(len=128), score: Float, distance: Float }",
    );
    const resolveCollection = (name: string) =>
      name === "acme.docs.Doc"
        ? {
            columns: [
              { name: "subject", type: { kind: "Text", len: 128 } as const },
              { name: "title", type: { kind: "Text", len: 50 } as const },
              { name: "v", type: { kind: "Vector", dim: 2 } as const },
            ],
            indexes: [{ index: "fulltext", fields: ["title"] } as const, { index: "vector", fields: ["v"] } as const],
          }
        : null;
    assert.deepEqual(check(md, { resolveCollection }).errors, []);
    assert.deepEqual(check(md, { resolveCollection: (n) => resolveCollection(n)?.columns ?? null }).errors, [
      "query error: search needs a fulltext index over title on the source at line 6:5",
      "query error: nearest needs a vector index over `v` on the source at line 7:13",
    ]);
  });

  it("checks the shipping upgrade against version 1.0.0", () => {
    const before = check(example("shipping.charter.md")).contract;
    const { errors } = check(example("shipping-v2.charter.md"), { previous: previousVersion(before) });
    assert.deepEqual(errors, []);
  });

  it("names the migrate lines an upgrade is missing", () => {
    const before = check(example("shipping.charter.md")).contract;
    const v2 = example("shipping-v2.charter.md").replace("  state.priority = old.units\n", "");
    const { errors } = check(v2, { previous: previousVersion(before) });
    assert.deepEqual(errors, ["upgrade error: aggregate Order needs migrate lines for priority (new field without a default) at line 109:9"]);
  });
});
