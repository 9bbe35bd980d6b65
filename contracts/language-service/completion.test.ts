/** Completion at cursor markers (issue #10). */
import { deepStrictEqual } from "node:assert/strict";
import { describe, it } from "node:test";
import { completion } from "./completion.ts";
import { at } from "./testing/fixture.ts";

const labels = (from: string, to: string): string[] => {
  const { doc, offset } = at(from, to);
  return completion(doc, offset).map((i) => i.label);
};

describe("completion", () => {
  it("lists the aggregate's fields after state., even while the line does not parse", () => {
    deepStrictEqual(labels("      units > 0\n", "      units > 0\n      state.‸\n"), ["status", "owner", "units", "kind"]);
    deepStrictEqual(labels("state.status == New", "state.st‸atus == New"), ["status", "owner", "units", "kind"]);
  });

  it("lists only Identity fields after authorize state.", () => {
    deepStrictEqual(labels("authorize member", "authorize state.‸"), ["owner"]);
  });

  it("lists context names, parameters in a query, and stages after |", () => {
    deepStrictEqual(labels("context.signer", "context.‸signer"), ["signer", "time"]);
    deepStrictEqual(labels("units >= $min", "units >= $‸min"), ["min"]);
    deepStrictEqual(labels("| let total", "| ‸let total"), ["where", "sort", "take", "drop", "select", "let", "explode", "summarize", "search", "nearest", "latest", "asof", "traverse", "shortest"]);
  });

  it("lists the enum's values after a comparison with an enum field or parameter", () => {
    deepStrictEqual(labels("state.status == New", "state.status == ‸New"), ["New", "Done"]);
    deepStrictEqual(labels("state.kind = kind", "state.kind = ‸"), ["Small", "Large"]);
  });

  it("lists parameters, enum values and operators in an expression", () => {
    deepStrictEqual(labels("      units > 0\n", "      units > 0\n      ‸\n"), ["units", "kind", "New", "Done", "Small", "Large", "state.", "context.", "and", "or", "not", "in", "true", "false", "len", "append", "remove"]);
  });

  it("lists the modes after authorize, merge, durability and api", () => {
    deepStrictEqual(labels("authorize member", "authorize ‸member"), ["anyone", "member", "owner", "delegate", "state."]);
    deepStrictEqual(labels("    authorize member\n", "    authorize member\n    merge ‸\n"), ["replay", "reject", "commute"]);
    deepStrictEqual(labels("    authorize member\n", "    authorize member\n    durability ‸\n"), ["memory", "local", "quorum"]);
    deepStrictEqual(labels("api authenticated {", "api ‸authenticated {"), ["public", "authenticated"]);
  });

  it("lists types after a colon, and keywords at the start of a line by block", () => {
    deepStrictEqual(labels("public units: Int", "public units: ‸Int"), ["Text(len=N)", "Int", "Bool", "Date", "Identity", "Enum(A, B)", "Ref<Aggregate>", "List<T>(cap=N)", "Vector(dim=N)", "Status", "Row"]);
    deepStrictEqual(labels("  public owner", "  ‸public owner"), ["public", "private", "index", "action"]);
    deepStrictEqual(labels("    authorize member", "    ‸authorize member"), ["authorize", "merge", "durability", "validate", "apply", "effect"]);
    deepStrictEqual(labels("enum Status", "‸enum Status"), ["enum", "record", "aggregate", "query", "migrate", "namespace", "version", "upgrades"]);
  });

  it("lists the columns at a query stage", () => {
    deepStrictEqual(labels("| select subject as id, total", "| select ‸subject as id, total").slice(0, 7), ["subject", "key", "status", "owner", "units", "kind", "total"]);
  });

  it("gives nothing outside the charter block", () => {
    const { doc } = at("enum Status", "‸enum Status");
    deepStrictEqual(completion(doc, 2), []);
  });
});
