/**
 * @module Tests for diagnostic values: line and column in code points, the one printed form,
 * sorting and deduplication, and the catalogue's shape.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { catalog, diagnostic } from "./diagnostic-catalog.ts";
import { formatDiagnostic, formatDiagnostics, lineColumn, normalizeDiagnostics } from "./diagnostics.ts";

describe("lineColumn", () => {
  it("is 1-based and counts code points, so an astral character is one column", () => {
    const text = "ab\n🚚🚚x\n";
    assert.deepEqual(lineColumn(text, 0), { line: 1, column: 1 });
    assert.deepEqual(lineColumn(text, 3), { line: 2, column: 1 });
    assert.deepEqual(lineColumn(text, text.indexOf("x")), { line: 2, column: 3 });
    assert.deepEqual(lineColumn(text, 999), { line: 3, column: 1 });
  });
});

describe("formatDiagnostic", () => {
  it("prints `<phase> error: <message> at line <n>:<col>`", () => {
    const text = "```charter\n  state.status == \"New\"\n```\n";
    const d = diagnostic("C0214", [13, 34], "x");
    assert.equal(formatDiagnostic(text, d), "validation error: unknown name `x`: not a parameter or an enum value at line 2:3");
    assert.deepEqual(formatDiagnostics(text, [d, diagnostic("C0102", [0, 0])]), [
      "validation error: unknown name `x`: not a parameter or an enum value at line 2:3",
      "syntax error: no `charter` block: a contract file needs exactly one fenced code block tagged charter at line 1:1",
    ]);
  });

  it("prints a hint on a second, indented line, the first line keeping its shape", () => {
    const text = "```charter\n  state.status == \"New\"\n```\n";
    const d = diagnostic("C0201", [13, 34], "Status", "==", "Text(len=3)", 'Status is an enum; write New, not "New"');
    const printed = 'validation error: invalid eq types at line 2:3\n  cannot compare Status == Text(len=3): Status is an enum; write New, not "New"';
    assert.equal(formatDiagnostic(text, d), printed);
    assert.deepEqual(formatDiagnostics(text, [d]), [printed]);
  });

  it("agrees with lineColumn for every offset of a mixed file", () => {
    const text = "a\r\nb🚚c\n\n\tdé\n";
    for (let offset = 0; offset <= text.length; offset++) {
      const d = diagnostic("C0214", [offset, offset], "x");
      assert.equal(formatDiagnostics(text, [d])[0], formatDiagnostic(text, d));
    }
  });
});

describe("normalizeDiagnostics", () => {
  it("sorts by position and drops exact repeats", () => {
    const a = diagnostic("C0214", [9, 10], "a");
    const b = diagnostic("C0214", [2, 3], "b");
    assert.deepEqual(normalizeDiagnostics([a, b, a]), [b, a]);
  });
});

describe("catalog", () => {
  it("uses stable codes whose hundreds match the phase", () => {
    const phases = { "01": "syntax", "02": "validation", "03": "type", "04": "query", "05": "upgrade", "06": "compile" } as const;
    for (const [code, entry] of Object.entries(catalog)) {
      assert.match(code, /^C0[1-6][0-9]{2}$/);
      assert.equal(entry.phase, phases[code.slice(1, 3) as keyof typeof phases], code);
    }
  });

  it("fixes the enum-against-text message exactly, the types and advice going to the hint", () => {
    const d = diagnostic("C0201", [0, 1], "Enum(A, B)", "!=", "Text(len=1)", "state.s is an enum; write A, not \"A\"");
    assert.equal(d.phase, "validation");
    assert.equal(d.message, "invalid eq types");
    assert.equal(d.severity, "error");
    assert.equal(d.hint, 'cannot compare Enum(A, B) != Text(len=1): state.s is an enum; write A, not "A"');
  });

  it("gives no hint when the advice is empty or absent", () => {
    assert.equal("hint" in diagnostic("C0313", [0, 1], "Int", "n", "Text(len=3)", ""), false);
    assert.equal("hint" in diagnostic("C0313", [0, 1], "Int", "n", "Text(len=3)"), false);
    assert.equal(diagnostic("C0313", [0, 1], "Text(len=1)", "n", "Int", 'write 5, not "5"').hint, 'write 5, not "5"');
    assert.equal("hint" in diagnostic("C0101", [0, 0], "\")\"", "`}`"), false);
  });
});
