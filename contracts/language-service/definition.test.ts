/** Go to definition at cursor markers (issue #10). */
import { deepStrictEqual, equal } from "node:assert/strict";
import { describe, it } from "node:test";
import { definition } from "./definition.ts";
import { offsetAt } from "./positions.ts";
import { at } from "./testing/fixture.ts";

/** The declared text (the name's line, with the name bracketed) that the cursor's name goes to. */
const target = (from: string, to: string): string | null => {
  const { doc, offset } = at(from, to);
  const loc = definition(doc, "file:///t.charter.md", offset);
  if (loc === null) return null;
  equal(loc.uri, "file:///t.charter.md");
  const start = offsetAt(doc.lines, doc.text.length, loc.range.start);
  const end = offsetAt(doc.lines, doc.text.length, loc.range.end);
  const lineStart = doc.text.lastIndexOf("\n", start - 1) + 1;
  const lineEnd = doc.text.indexOf("\n", end);
  return `${doc.text.slice(lineStart, start)}[${doc.text.slice(start, end)}]${doc.text.slice(end, lineEnd)}`.trim();
};

describe("definition", () => {
  it("goes from state.FIELD and an apply target to the field", () => {
    equal(target("state.status == New", "state.st‸atus == New"), "public [status]: Status = New");
    equal(target("state.owner = context", "state.ow‸ner = context"), "public [owner]: Identity");
  });

  it("goes from a parameter and a $parameter to its declaration", () => {
    equal(target("      units > 0", "      u‸nits > 0"), "action Place([units]: Int, kind: Enum(Small, Large)) api authenticated {");
    equal(target("units >= $min", "units >= $mi‸n"), "query Totals([min]: Int) returns List<Row> pipe");
  });

  it("goes from enum values to the enum that lists them, named or inline", () => {
    equal(target("state.status == New", "state.status == Ne‸w"), "enum Status([New], Done)");
    equal(target("public kind: Enum(Small, Large) = Small", "public kind: Enum(Small, Large) = Sm‸all"), "public kind: Enum([Small], Large) = Small");
  });

  it("goes from type references to enums, records and aggregates", () => {
    equal(target("public status: Status", "public status: St‸atus"), "enum [Status](New, Done)");
    equal(target("returns List<Row>", "returns List<Ro‸w>"), "record [Row] {");
    equal(target("  Order\n", "  Ord‸er\n"), "aggregate [Order] {");
  });

  it("goes from query columns to the stage or field that made them", () => {
    equal(target("| where units", "| where un‸its"), "public [units]: Int = 0");
    equal(target("subject as id, total", "subject as id, to‸tal"), "| let [total] = units * 2");
  });

  it("goes nowhere from a stage keyword or outside the block", () => {
    equal(target("| where", "| wh‸ere"), null);
    const { doc } = at("enum Status", "‸enum Status");
    deepStrictEqual(definition(doc, "file:///t.charter.md", 0), null);
  });
});
