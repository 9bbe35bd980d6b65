/** Editor diagnostics are the compiler's (issue #10); the service never loads the code generator. */
import { deepStrictEqual, ok } from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { documentDiagnostics } from "./diagnostics.ts";
import { openDocument } from "./document.ts";
import { contractFile } from "./testing/cursor-marker.ts";

describe("diagnostics", () => {
  it("prints each diagnostic as the compiler does, over its span, with its code", () => {
    const text = contractFile("namespace a.b\nversion 1.0.0\naggregate A {\n  public s: Enum(X, Y) = X\n  action Go() {\n    authorize anyone\n    validate {\n      state.s == \"X\"\n    }\n  }\n}");
    deepStrictEqual(documentDiagnostics(openDocument(text)), [{
      range: { start: { line: 10, character: 6 }, end: { line: 10, character: 20 } },
      severity: 1,
      code: "C0201",
      source: "charter",
      message: 'validation error: invalid eq types at line 11:7\n  cannot compare Enum(X, Y) == Text(len=1): state.s is an enum; write X, not "X"',
    }]);
  });

  it("points a syntax error at the bracket left open", () => {
    const text = contractFile("namespace a.b\nversion 1.0.0\naggregate A {\n  public n: Int\n  action Go(n: Int {\n    authorize anyone\n  }\n}");
    deepStrictEqual(documentDiagnostics(openDocument(text)).map((d) => [d.code, d.range, d.message]), [[
      "C0106",
      { start: { line: 7, character: 11 }, end: { line: 7, character: 12 } },
      "syntax error: the parameter list of action Go is not closed: add `)` to match this `(` at line 8:12",
    ]]);
  });

  it("reports a file without a block, and a syntax error at its offset", () => {
    deepStrictEqual(documentDiagnostics(openDocument("# nothing\n")).map((d) => d.message), ["syntax error: no `charter` block: a contract file needs exactly one fenced code block tagged charter at line 1:1"]);
    const broken = documentDiagnostics(openDocument(contractFile("namespace a.b\nversion 1.0.0\naggregate {")));
    deepStrictEqual(broken.map((d) => [d.code, d.range.start]), [["C0101", { line: 5, character: 10 }]]);
  });

  it("imports nothing of the code generator or binaryen", () => {
    const seen = new Set<string>();
    const visit = (url: URL): void => {
      if (seen.has(url.href)) return;
      seen.add(url.href);
      const source = readFileSync(url, "utf8");
      for (const [, spec] of source.matchAll(/^(?:import|export) (?!type )[^;]*? from "(\.[^"]+)"/gm)) if (spec) visit(new URL(spec, url));
    };
    visit(new URL("./service.ts", import.meta.url));
    const loaded = [...seen].map((u) => u.replace(/^.*\/contracts\//, ""));
    ok(loaded.includes("front.ts"));
    deepStrictEqual(loaded.filter((u) => u.startsWith("codegen/") || u.includes("binaryen") || u === "compile.ts"), []);
  });
});
