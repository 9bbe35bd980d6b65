/** Hover at cursor markers (issue #10). */
import { deepStrictEqual, equal } from "node:assert/strict";
import { describe, it } from "node:test";
import { hover } from "./hover.ts";
import { at } from "./testing/fixture.ts";

const shown = (from: string, to: string): string | null => {
  const { doc, offset } = at(from, to);
  const h = hover(doc, offset);
  return h === null ? null : (h.contents as { value: string }).value;
};

describe("hover", () => {
  it("shows a field's declaration and type, with the name's range", () => {
    const { doc, offset } = at("state.status == New", "state.sta‸tus == New");
    const h = hover(doc, offset);
    deepStrictEqual(h?.contents, { kind: "markdown", value: "```charter\npublic status: Status = New\n```\nfield of `Order` · `Status`" });
    equal(doc.text.slice(offset - 3, offset + 3), "status");
    deepStrictEqual(h?.range?.start.character, 12);
    deepStrictEqual(h?.range?.end.character, 18);
  });

  it("shows parameters, enum values, context names and query columns", () => {
    equal(shown("      units > 0", "      un‸its > 0"), "```charter\nunits: Int\n```\nparameter of action `Place` · `Int`");
    equal(shown("state.status == New", "state.status == N‸ew"), "```charter\nNew\n```\nvalue of `Status` = Enum(New, Done)");
    equal(shown("context.signer", "context.sig‸ner"), "```charter\ncontext.signer: Identity\n```\nthe identity that signed the command");
    equal(shown("| where units >= $min", "| where units >= $m‸in"), "```charter\nmin: Int\n```\nparameter of query `Totals` · `Int`");
    equal(shown("| let total = units * 2", "| let total = un‸its * 2"), "```charter\nunits: Int\n```\ncolumn of query `Totals`");
  });

  it("shows a declaration from a reference to it", () => {
    equal(shown("returns List<Row>", "returns List<R‸ow>"), "```charter\nrecord Row\n```\nrecord of 2 fields");
    equal(shown("public status: Status", "public status: Sta‸tus"), "```charter\nenum Status(New, Done)\n```\nenum");
    equal(shown("  Order\n", "  Or‸der\n"), "```charter\naggregate Order\n```\naggregate of 4 fields and 1 action");
    equal(shown("action Place", "action Pl‸ace"), "```charter\naction Place(units: Int, kind: Enum(Small, Large)) api authenticated\n```\naction of `Order`");
  });

  it("shows a stage's meaning", () => {
    equal(shown("| where", "| wh‸ere"), "```charter\nwhere EXPR\n```\nkeep rows where EXPR holds; `$param` reads a parameter");
  });

  it("shows nothing outside the block or on punctuation", () => {
    const { doc } = at("enum Status", "‸enum Status");
    equal(hover(doc, 0), null);
    equal(shown("units > 0", "units >‸ 0"), null);
  });
});
