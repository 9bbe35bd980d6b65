import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contentDisposition, inlineAllowed, rangeOf } from "./send-blob.ts";
import { contentType, fileName, fileTags } from "./file-input.ts";

describe("byte ranges", () => {
  it("reads one range of each form and ignores what it does not understand", () => {
    assert.deepEqual(rangeOf(undefined, 100), { kind: "all" });
    assert.deepEqual(rangeOf("bytes=0-9", 100), { kind: "range", start: 0, end: 9 });
    assert.deepEqual(rangeOf("bytes=90-", 100), { kind: "range", start: 90, end: 99 });
    assert.deepEqual(rangeOf("bytes=-5", 100), { kind: "range", start: 95, end: 99 });
    assert.deepEqual(rangeOf("bytes=-500", 100), { kind: "range", start: 0, end: 99 });
    assert.deepEqual(rangeOf("bytes=50-5000", 100), { kind: "range", start: 50, end: 99 });
    assert.deepEqual(rangeOf("bytes=100-", 100), { kind: "unsatisfiable" });
    assert.deepEqual(rangeOf("bytes=-0", 100), { kind: "unsatisfiable" });
    assert.deepEqual(rangeOf("bytes=0-0", 0), { kind: "unsatisfiable" });
    for (const ignored of ["bytes=0-1,5-6", "items=0-1", "bytes=9-1", "bytes=a-b", "bytes=-", `bytes=${"9".repeat(40)}-`]) assert.deepEqual(rangeOf(ignored, 100), { kind: "all" }, ignored);
  });
});

describe("what is served inline", () => {
  it("never a document a browser would run scripts in", () => {
    for (const t of ["text/html", "text/html; charset=utf-8", "image/svg+xml", "application/xhtml+xml", "text/xml", "application/xml", "application/rss+xml"]) assert.equal(inlineAllowed(t), false, t);
    for (const t of ["image/png", "application/pdf", "text/plain; charset=utf-8", "video/mp4"]) assert.equal(inlineAllowed(t), true, t);
  });
  it("names the file exactly, with an ASCII fallback", () => {
    assert.equal(contentDisposition("attachment", 'Zoë "x".pdf'), `attachment; filename="Zo_ _x_.pdf"; filename*=UTF-8''Zo%C3%AB%20%22x%22.pdf`);
  });
});

describe("file names, tags and types", () => {
  it("refuses paths, control characters and overlong names", () => {
    for (const bad of [undefined, "", "  ", "../x", "a/b", "a\\b", ".", "..", "a\u0000b", "a\nb", "x".repeat(256)]) assert.equal(fileName(bad).ok, false, JSON.stringify(bad));
    assert.deepEqual(fileName("Report 2026 — final.pdf"), { ok: true, value: "Report 2026 — final.pdf" });
  });
  it("reads tags from a list or a comma-separated text", () => {
    assert.deepEqual(fileTags("a, b,a"), { ok: true, value: ["a", "b"] });
    assert.deepEqual(fileTags(""), { ok: true, value: [] });
    assert.equal(fileTags([1]).ok, false);
    assert.equal(fileTags("x".repeat(41)).ok, false);
    assert.equal(fileTags(Array.from({ length: 21 }, (_, i) => `t${i}`)).ok, false);
  });
  it("keeps a content type's essence and charset only", () => {
    assert.equal(contentType(undefined), "application/octet-stream");
    assert.equal(contentType("Text/Plain; Charset=UTF-8; x=y"), "text/plain; charset=utf-8");
    assert.equal(contentType("image/png"), "image/png");
    assert.equal(contentType("nonsense"), "application/octet-stream");
    assert.equal(contentType("text/html\r\nX-Evil: 1"), "application/octet-stream");
  });
});
