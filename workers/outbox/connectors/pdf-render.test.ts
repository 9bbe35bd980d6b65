/** The pdf connector: the same effect makes the same bytes (so a repeated attempt writes the same file), pages follow the text, and bad input is a permanent failure. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { PDFDocument } from "pdf-lib";
import { PermanentEffectError } from "./connector.ts";
import { pdfConnector, renderDocument } from "./pdf-render.ts";

const job = (args: Record<string, unknown>) => ({ id: 1, key: "k", attempts: 1, args, account: null, signal: new AbortController().signal });

describe("the pdf connector", () => {
  it("renders the same bytes for the same effect, whatever the characters and however long the words", async () => {
    const input = { title: "Invoice 7", text: `Amount: 12 — ünïcödé 漢字\tend\n${"x".repeat(500)}`, time: Date.parse("2026-11-25T10:00:00Z") };
    const [a, b] = [await renderDocument(input), await renderDocument(input)];
    assert.deepEqual(Buffer.from(a), Buffer.from(b));
    const doc = await PDFDocument.load(a);
    assert.equal(doc.getTitle(), "Invoice 7");
    assert.equal(doc.getCreationDate()?.toISOString(), "2026-11-25T10:00:00.000Z");
  });

  it("adds pages as the text needs them", async () => {
    const pages = async (lines: number) => (await PDFDocument.load(await renderDocument({ title: "T", text: "line\n".repeat(lines), time: 0 }))).getPageCount();
    assert.equal(await pages(10), 1);
    assert.ok((await pages(200)) >= 3);
  });

  it("writes the document under its SHA-256 once, however often the effect is repeated", async () => {
    const dir = mkdtempSync(join(tmpdir(), "charter-pdf-"));
    try {
      const connector = pdfConnector(dir);
      const first = await connector.perform("render", job({ title: "T", text: "body", time: 5 }));
      const again = await connector.perform("render", job({ title: "T", text: "body", time: 5 }));
      assert.equal(again.providerId, first.providerId);
      assert.deepEqual(readdirSync(dir), [`${first.providerId?.slice(7)}.pdf`], "no temporary file left");
      const bytes = readFileSync(join(dir, readdirSync(dir)[0] as string));
      assert.equal(`sha256:${createHash("sha256").update(bytes).digest("hex")}`, first.providerId);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails for good on what no retry mends", async () => {
    const connector = pdfConnector(tmpdir());
    await assert.rejects(connector.perform("render", job({ title: 5, text: "x" })), PermanentEffectError);
    await assert.rejects(connector.perform("render", job({ title: "t", text: "x".repeat(1024 * 1024 + 1) })), PermanentEffectError);
    await assert.rejects(connector.perform("print", job({ title: "t", text: "x" })), PermanentEffectError);
  });
});
