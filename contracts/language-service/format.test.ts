/**
 * Formatting (issue #10): one canonical layout, idempotent, and never a change to the artifact other
 * than through comments and whitespace — the schema stays the same apart from `source.sha256` and
 * line numbers, and the program behaves the same.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { canonicalJson } from "../canonical-json.ts";
import { compileContract } from "../compile.ts";
import { loadArtifact, type Outcome } from "../runtime/index.ts";
import type { Schema } from "../schema.ts";
import { DIDS, record } from "../testing/arbitraries.ts";
import { openDocument } from "./document.ts";
import { formatDocument } from "./format.ts";
import { contractFile } from "./testing/cursor-marker.ts";

const dir = new URL("../examples/", import.meta.url);
const examples = readdirSync(dir).filter((f) => f.endsWith(".charter.md")).sort();

/** The file after applying the formatting edits. */
function format(text: string): string {
  const doc = openDocument(text);
  const edits = formatDocument(doc);
  if (edits.length === 0 || doc.block === null) return text;
  return text.slice(0, doc.block[0]) + (edits[0]?.newText ?? "") + text.slice(doc.block[1]);
}

/** Re-indents every line of the block badly, drops the space after `|` and adds blank lines and trailing spaces. */
function mangle(text: string): string {
  const block = openDocument(text).block;
  if (block === null) throw new Error("no block");
  const body = text.slice(block[0], block[1])
    .replace(/^ +/gm, (m) => " ".repeat((m.length * 7) % 5))
    .replace(/\| /g, "|")
    .replace(/\{\n/g, "{\n\n")
    .replace(/\)\n/g, ")   \n");
  return text.slice(0, block[0]) + body + text.slice(block[1]);
}

/** The canonical schema without what formatting may change: the source digest and line numbers. */
function stripped(schema: Schema): string {
  return canonicalJson(JSON.parse(JSON.stringify({ ...schema, source: null }, (k, v) => (k === "line" ? undefined : v))));
}

function outcome(run: () => Outcome): unknown {
  try {
    const o = run();
    return o.outcome === "refused" ? { ...o, reason: { ...o.reason, line: null } } : o;
  } catch (e) {
    return { threw: String(e) };
  }
}

describe("formatting", () => {
  it("leaves the examples as they are: they are in the canonical layout", () => {
    for (const file of examples) {
      const text = readFileSync(new URL(file, dir), "utf8");
      deepStrictEqual(formatDocument(openDocument(text)), [], file);
    }
  });

  it("lays out a messy block exactly, keeping condition texts byte for byte", () => {
    const messy = contractFile([
      "", "namespace acme.t   # the name", "version 1.0.0", "enum Status( New,Done )", "# Orders", "aggregate Order{", "",
      "public status :Status=New", "    public tags: List< Text(len = 5) >(cap=3)", "   action Go( n :Int ,", "k: Int) api public{",
      "authorize member", "validate{", "state.status==New  # as written", "  n>0", "}", "", "", "}", "", "}",
      "query All() returns List<Order> pipe", "Order", "|where status ==  New", "|  sort key", "# the page", "| take  10",
    ].join("\n"));
    equal(format(messy), contractFile([
      "namespace acme.t   # the name", "version 1.0.0", "", "enum Status(New, Done)", "", "# Orders", "aggregate Order {",
      "  public status: Status = New", "  public tags: List<Text(len=5)>(cap=3)", "  action Go(n: Int,", "    k: Int) api public {",
      "    authorize member", "    validate {", "      state.status==New  # as written", "      n>0", "    }", "  }", "}", "",
      "query All() returns List<Order> pipe", "  Order", "  | where status == New", "  | sort key", "  # the page", "  | take 10",
    ].join("\n")));
  });

  it("is idempotent and gives the examples back from mangled copies", () => {
    for (const file of examples) {
      const text = readFileSync(new URL(file, dir), "utf8");
      const once = format(mangle(text));
      equal(once, text, file);
      equal(format(once), once, file);
    }
  });

  it("does not format a file that does not parse", () => {
    deepStrictEqual(formatDocument(openDocument(contractFile("namespace a.b\nversion 1.0.0\naggregate {"))), []);
  });

  it("changes the artifact only through the source digest and line numbers: same schema, same behaviour", () => {
    for (const file of examples) {
      const messy = mangle(readFileSync(new URL(file, dir), "utf8"));
      const before = compileContract(messy).artifact;
      const after = compileContract(format(messy)).artifact;
      if (before === undefined || after === undefined) throw new Error(`${file} does not compile`);
      ok(before.id !== after.id, `${file}: the digest of the block's text changes`);
      equal(stripped(after.schema), stripped(before.schema), file);
      const [a, b] = [loadArtifact(before), loadArtifact(after)];
      for (const [name, action] of Object.entries(before.schema.actions)) {
        const fields = before.schema.aggregates[action.aggregate]?.fields ?? [];
        const input = fc.record({
          state: record(fields.map((f) => [f.name, f.type] as const), 0),
          args: record(action.params.map((p) => [p.name, p.type] as const), 2),
          context: fc.record({ signer: fc.constantFrom(null, ...DIDS), time: fc.nat() }),
        });
        fc.assert(fc.property(input, (i) => {
          deepStrictEqual(outcome(() => b.execute(name, i)), outcome(() => a.execute(name, i)), `${file} ${name}`);
        }), { numRuns: 40 });
      }
    }
  });
});
