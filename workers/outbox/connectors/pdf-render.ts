/**
 * @module The pdf connector's `render` effect (a contract's `effect pdf`): one A4 document from a
 * title and a text (paragraphs on line breaks, words wrapped), drawn with pdf-lib's standard
 * Helvetica, written to `DATA/documents/<sha256>.pdf` (to a temporary name, synced, then renamed).
 * The document's metadata are fixed by the effect (its time, no random id), so an attempt repeated
 * after a crash makes the same bytes under the same name; the receipt names the file's digest.
 */
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { documentPath } from "../../../shared/connectors/documents.ts";
import { PDFDocument, type PDFFont, StandardFonts } from "pdf-lib";
import { type Connector, type EffectJob, PermanentEffectError } from "./connector.ts";

const PAGE: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const TITLE_SIZE = 18;
const TEXT_SIZE = 11;
const LEADING = 1.4;
/** The most characters of a document's text, and of its title; and its most pages. */
export const MAX_TEXT = 1024 * 1024;
const MAX_TITLE = 1000;
const MAX_PAGES = 500;

/** Characters the standard font cannot draw become "?" (its encoding is WinAnsi), tabs spaces. */
function drawable(font: PDFFont, text: string): string {
  const known = new Set(font.getCharacterSet());
  let out = "";
  for (const ch of text) {
    if (ch === "\t") out += "    ";
    else out += known.has(ch.codePointAt(0) as number) ? ch : "?";
  }
  return out;
}

/** Lines of at most `width` points, words kept whole unless one alone is wider. */
function wrap(font: PDFFont, size: number, width: number, paragraph: string): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of paragraph.split(" ")) {
    const candidate = line === "" ? word : `${line} ${word}`;
    if (font.widthOfTextAtSize(candidate, size) <= width) {
      line = candidate;
      continue;
    }
    if (line !== "") lines.push(line);
    // A word wider than the line is cut where it fills it.
    let rest = word;
    while (font.widthOfTextAtSize(rest, size) > width) {
      let cut = rest.length - 1;
      while (cut > 1 && font.widthOfTextAtSize(rest.slice(0, cut), size) > width) cut = Math.max(1, Math.floor(cut * 0.9));
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  lines.push(line);
  return lines;
}

/** The document's bytes. */
export async function renderDocument(input: { title: string; text: string; time: number }): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const when = new Date(Number.isFinite(input.time) ? input.time : 0);
  doc.setCreationDate(when);
  doc.setModificationDate(when);
  doc.setProducer("Charter");
  doc.setCreator("Charter");
  doc.setTitle(input.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const width = PAGE[0] - 2 * MARGIN;
  let page = doc.addPage(PAGE);
  let y = PAGE[1] - MARGIN;
  const draw = (text: string, f: PDFFont, size: number) => {
    if (y - size < MARGIN) {
      if (doc.getPageCount() >= MAX_PAGES) throw new PermanentEffectError(`the document is longer than ${MAX_PAGES} pages`);
      page = doc.addPage(PAGE);
      y = PAGE[1] - MARGIN;
    }
    y -= size;
    page.drawText(text, { x: MARGIN, y, size, font: f });
    y -= size * (LEADING - 1);
  };
  for (const line of wrap(bold, TITLE_SIZE, width, drawable(bold, input.title))) draw(line, bold, TITLE_SIZE);
  y -= TEXT_SIZE;
  for (const paragraph of input.text.split(/\r?\n/)) {
    for (const line of wrap(font, TEXT_SIZE, width, drawable(font, paragraph))) draw(line, font, TEXT_SIZE);
  }
  return doc.save({ useObjectStreams: true });
}

/** Writes `bytes` under their digest in `dir`, durably; answers the digest. */
async function store(dir: string, bytes: Uint8Array): Promise<string> {
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = documentPath(dir, sha256);
  const temporary = `${target}.${process.pid}.tmp`;
  const file = await open(temporary, "w", 0o600);
  try {
    await file.writeFile(bytes);
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const folder = await open(dir, "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
  return sha256;
}

export function pdfConnector(documentsDir: string): Connector {
  return {
    needsAccount: false,
    async perform(effect: string, job: EffectJob) {
      if (effect !== "render") throw new PermanentEffectError(`the pdf connector has no effect ${JSON.stringify(effect)}`);
      const { title, text, time } = job.args;
      if (typeof title !== "string" || typeof text !== "string") throw new PermanentEffectError("a document needs a title and a text");
      if (title.length > MAX_TITLE || text.length > MAX_TEXT) throw new PermanentEffectError("the document's title or text is too long");
      const bytes = await renderDocument({ title, text, time: typeof time === "number" ? time : 0 });
      return { providerId: `sha256:${await store(documentsDir, bytes)}` };
    },
  };
}
