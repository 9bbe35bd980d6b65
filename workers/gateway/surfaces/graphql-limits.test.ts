/**
 * The GraphQL limit checks on the shipping example's generated schema: what they refuse (depth over
 * 15, cost over 5,000, fragments that are unknown, doubled or spread within themselves), and that
 * their work grows with the document, not with what its fragments expand to (issue 16 #3). No test
 * here times anything: the walks report each selection they look at, and the tests count.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { buildSchema, type DocumentNode, type GraphQLError, Kind, parse, validate } from "graphql";
import { costErrors, depthErrors, MAX_COST, MAX_DEPTH, MAX_NESTING, MAX_TOKENS, nestingError } from "./graphql-limits.ts";

const schema = buildSchema(readFileSync(new URL("../../../test/golden/describe/shipping.schema.graphql", import.meta.url), "utf8"));

/** Runs both checks as the route does (depth, validation, cost); answers the errors and the selections looked at. */
function check(source: string): { errors: readonly GraphQLError[]; visits: number } {
  const document = parse(source, { maxLexicalTokens: MAX_TOKENS });
  let visits = 0;
  const visit = () => void visits++;
  const deep = depthErrors(document, visit);
  if (deep.length > 0) return { errors: deep, visits };
  const invalid = validate(schema, document);
  if (invalid.length > 0) return { errors: invalid, visits };
  return { errors: costErrors(schema, document, visit), visits };
}

const codes = (errors: readonly GraphQLError[]) => errors.map((e) => e.extensions.code);

/** `query Q { ...F0 }` where each fragment spreads the next twice: `levels` fragments expand to 2^levels copies of the last. */
function doubling(levels: number, last = "_contract { namespace }"): string {
  let source = "query Q { ...F0 }";
  for (let i = 0; i < levels; i++) source += ` fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`;
  return `${source} fragment F${levels} on Query { ${last} }`;
}

/** The same doubling inside `__Type.ofType`, so every level is also one level deeper. */
function deepDoubling(levels: number): string {
  let source = "query Q { __schema { types { ...T0 } } }";
  for (let i = 0; i < levels; i++) source += ` fragment T${i} on __Type { ofType { ...T${i + 1} } ofType { ...T${i + 1} } }`;
  return `${source} fragment T${levels} on __Type { name }`;
}

describe("GraphQL limits", () => {
  it("issue 16 #3: thirty levels of fragment doubling take visits linear in the document, and are refused", () => {
    const runs = [10, 20, 30].map((levels) => check(doubling(levels)));
    const [ten, twenty, thirty] = runs as [(typeof runs)[number], (typeof runs)[number], (typeof runs)[number]];
    assert.deepEqual(codes(thirty.errors), ["QUERY_TOO_COSTLY"]);
    assert.match(thirty.errors[0]?.message ?? "", /costs 2147483648, more than the limit of 5000/);
    // Ten more levels cost the same ten-levels' worth of visits each time: linear, not 2^levels.
    assert.equal(thirty.visits - twenty.visits, twenty.visits - ten.visits);
    // The document has 2 selections per level; each check looks at each a handful of times.
    assert.ok(thirty.visits <= 10 * (2 * 30 + 2), `${thirty.visits} visits`);
  });

  it("issue 16 #3: doubling that also deepens is refused for its depth after linear work", () => {
    const runs = [20, 30].map((levels) => check(deepDoubling(levels)));
    for (const r of runs) assert.deepEqual(codes(r.errors), ["QUERY_TOO_DEEP"]);
    assert.ok((runs[1]?.visits ?? Infinity) <= 10 * (2 * 30 + 4), `${runs[1]?.visits} visits`);
    // Ten levels under the limit still pass, and cost what their copies cost.
    assert.deepEqual(codes(check(deepDoubling(10)).errors), []);
  });

  it("issue 16 #3: fragments spread within themselves are refused, whether used or not", () => {
    const cases: [string, RegExp][] = [
      ["query Q { ...A } fragment A on Query { _contract { namespace } ...A }", /Cannot spread fragment "A" within itself\./],
      ["query Q { ...A } fragment A on Query { ...B } fragment B on Query { ...C } fragment C on Query { ...A }", /Cannot spread fragment "A" within itself via "B", "C"\./],
      ["query Q { _contract { namespace } } fragment A on Query { ...B } fragment B on Query { ...A }", /within itself via/],
      // Thirty levels of doubling whose last fragment spreads the first: 2^30 paths, one cycle.
      [doubling(30, "...F0"), /Cannot spread fragment "F0" within itself via "F1", .*"F30"\./],
    ];
    for (const [source, message] of cases) {
      const { errors, visits } = check(source);
      assert.deepEqual(codes(errors), ["GRAPHQL_VALIDATION_FAILED"], source);
      assert.match(errors[0]?.message ?? "", message);
      assert.ok(visits <= 4 * 64, `${visits} visits for ${source.slice(0, 40)}…`);
    }
  });

  it("issue 16 #3: unknown and twice-defined fragments are refused before anything is measured", () => {
    const cases: [string, RegExp][] = [
      ["query Q { ...Nope }", /Unknown fragment "Nope"\./],
      ["query Q { ...A } fragment A on Query { ...Nope }", /Unknown fragment "Nope"\./],
      ["query Q { ...A } fragment A on Query { _contract { namespace } } fragment A on Query { _contract { version } }", /only one fragment named "A"/],
    ];
    for (const [source, message] of cases) {
      const { errors } = check(source);
      assert.deepEqual(codes(errors), ["GRAPHQL_VALIDATION_FAILED"], source);
      assert.match(errors[0]?.message ?? "", message);
    }
  });

  it("keeps the documented depth: 15 levels pass, 16 are refused, through fragments too", () => {
    const nested = (k: number) => `{ __schema { types { ${"ofType { ".repeat(k)}name${" }".repeat(k)} } } }`;
    assert.equal(MAX_DEPTH, 15);
    assert.deepEqual(codes(check(nested(12)).errors), []);
    assert.deepEqual(codes(check(nested(13)).errors), ["QUERY_TOO_DEEP"]);
    const viaFragment = (k: number) => `{ __schema { types { ...T } } } fragment T on __Type { ${"ofType { ".repeat(k)}name${" }".repeat(k)} }`;
    assert.deepEqual(codes(check(viaFragment(12)).errors), []);
    assert.deepEqual(codes(check(viaFragment(13)).errors), ["QUERY_TOO_DEEP"]);
  });

  it("keeps the documented cost: 100 per query, 1 per field, 10× inside lists, fragments counted where spread", () => {
    // ByStatus 100 + rows 1 + 10 × key 1 = 111; 45 of them are 4,995, 46 are 5,106.
    const many = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `q${i}: ByStatus(status: New) { rows { key } }`).join(" ")} }`;
    assert.equal(MAX_COST, 5000);
    assert.deepEqual(codes(check(many(45)).errors), []);
    assert.match(check(many(46)).errors[0]?.message ?? "", /costs 5106, more than the limit of 5000/);
    // The same through fragments: one at the root (its fields run queries), one inside the list.
    const viaFragments = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `q${i}: ByStatus(status: New) { ...R }`).join(" ")} } fragment R on ByStatusResult { rows { ...K } } fragment K on ByStatusRow { key }`;
    assert.deepEqual(codes(check(viaFragments(45)).errors), []);
    assert.match(check(viaFragments(46)).errors[0]?.message ?? "", /costs 5106,/);
    const atRoot = `{ ...Q } fragment Q on Query { ${Array.from({ length: 46 }, (_, i) => `q${i}: ByStatus(status: New) { rows { key } }`).join(" ")} }`;
    assert.match(check(atRoot).errors[0]?.message ?? "", /costs 5106,/);
    // Introspection is never multiplied; _contract is not a query.
    assert.deepEqual(codes(check(`{ _contract { namespace } __schema { types { fields { name } } } }`).errors), []);
  });

  it("issue 16 #3: nesting a hundred thousand deep overflows no stack, and the depth walk stops past the limit", () => {
    let fields: unknown = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: "name" } };
    let inline: unknown = fields;
    for (let i = 0; i < 100_000; i++) {
      fields = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: "ofType" }, selectionSet: { kind: Kind.SELECTION_SET, selections: [fields] } };
      inline = { kind: Kind.INLINE_FRAGMENT, selectionSet: { kind: Kind.SELECTION_SET, selections: [inline] } };
    }
    const operation = (top: unknown) => ({ kind: Kind.DOCUMENT, definitions: [{ kind: Kind.OPERATION_DEFINITION, operation: "query", selectionSet: { kind: Kind.SELECTION_SET, selections: [top] } }] }) as unknown as DocumentNode;
    let visits = 0;
    assert.deepEqual(codes(depthErrors(operation(fields), () => void visits++)), ["QUERY_TOO_DEEP"]);
    assert.equal(visits, MAX_DEPTH + 1, "the walk stops at the first selection past the limit");
    assert.deepEqual(depthErrors(operation(inline)), [], "inline fragments add no depth");
    assert.deepEqual(costErrors(schema, operation(inline)), [], "and cost only their one field");
  });

  it("issue 16 #3: brackets nested past the limit are refused before graphql's recursive parser sees them", () => {
    assert.deepEqual(nestingError(`{ ${"ofType { ".repeat(2490)}name${" }".repeat(2490)} }`)?.extensions.code, "QUERY_TOO_DEEP");
    assert.equal(nestingError(`{ f(x: ${"[".repeat(MAX_NESTING + 1)}1${"]".repeat(MAX_NESTING + 1)}) }`)?.extensions.code, "QUERY_TOO_DEEP");
    assert.equal(nestingError(`{ f(x: ${"[".repeat(MAX_NESTING - 2)}1${"]".repeat(MAX_NESTING - 2)}) }`), undefined);
    assert.equal(nestingError(doubling(30)), undefined);
    // Lexical errors and oversized documents are the parser's to word.
    assert.equal(nestingError(`{ "unterminated }`), undefined);
    assert.equal(nestingError(`{ ${"a ".repeat(MAX_TOKENS * 2)}}`), undefined);
  });
});
