/**
 * @module The library and knowledge pages in Chromium against a real `charter node`: a PNG and a
 * small PDF uploaded together through the file input, each with its progress bar, then listed; the
 * image previewed (decoded: its natural width), the PDF previewed in a frame by the browser's
 * viewer (the content route serves it inline to its own origin), a file downloaded and its bytes
 * compared; a file the node refuses shows the node's reason. In the vault: a note made, Markdown
 * with a `[[wiki link]]` written and previewed, the linked note made from the link and showing the
 * first as its backlink; the same note open in a second tab, text typed in either appearing in the
 * other (Yjs over `/api/collab`), and the vault keeping the merged text. Screenshots at 375 px and
 * 1280 px; axe-core finds no serious violation.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { crc32, deflateSync } from "node:zlib";
import type { Page } from "playwright-core";
import { type BrowserApp, openApp, skipWithoutChromium } from "./helpers/browser.ts";
import { waitFor } from "./helpers/charter-process.ts";

/** A `width`×`height` RGB PNG (a gradient), made here. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) rows.set([(x * 255) / width, (y * 255) / height, 160], y * (1 + width * 3) + 1 + x * 3);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}

/** A one-page PDF saying `text` (Helvetica), its cross-reference table computed. */
function pdf(text: string): Buffer {
  const stream = `BT /F1 24 Tf 30 70 Td (${text}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

const PNG = png(48, 32);
const PDF = pdf("Hello from the library");

describe("the library and the knowledge vaults in Chromium", { skip: skipWithoutChromium }, () => {
  let app: BrowserApp;
  let second: Page | null = null;
  const secondErrors: string[] = [];

  before(async () => {
    app = await openApp({ env: { CHARTER_COLLAB_SAVE_MS: "100" } });
    await app.setUp("Ada");
    await waitFor("the library and the vault open", async () => ((await app.call("GET", "/api/library")).status === 200 && (await app.call("POST", "/api/knowledge", { operation: "list", args: {} })).status === 200 ? true : undefined), 30_000);
  });
  after(async () => {
    await app?.close();
  });

  it("uploads a PNG and a PDF together, each with its progress bar, and lists them", async (t) => {
    t.diagnostic(`screenshots: ${app.shots}`);
    const { page } = app;
    await app.open("library", "Library");
    await page.getByText("No file yet").waitFor();
    await page.getByLabel("Files to upload").setInputFiles([
      { name: "pixel.png", mimeType: "image/png", buffer: PNG },
      { name: "doc.pdf", mimeType: "application/pdf", buffer: PDF },
    ]);
    await page.getByRole("button", { name: "Upload 2 files" }).click();
    await page.getByRole("status").filter({ hasText: "2 of 2 files stored." }).waitFor();
    // Each upload has its own labelled bar, full once stored.
    for (const [name, bytes] of [
      ["pixel.png", PNG],
      ["doc.pdf", PDF],
    ] as const) {
      const bar = page.getByLabel(new RegExp(`^${name.replace(".", "\\.")} \\(`));
      assert.equal(await bar.evaluate((el) => el.tagName), "PROGRESS");
      assert.equal(await bar.getAttribute("max"), String(bytes.length));
      assert.equal(await bar.evaluate((el) => (el as HTMLProgressElement).value), bytes.length);
      assert.equal(await bar.getAttribute("aria-valuetext"), "stored");
    }
    const files = page.getByRole("list", { name: "Your files" });
    await files.getByText("pixel.png").waitFor();
    await files.getByText("doc.pdf").waitFor();
    const listed = (await app.call("GET", "/api/library")).body.items as { name: string; type: string; size: number }[];
    assert.deepEqual(listed.map((f) => [f.name, f.type, f.size]).sort(), [
      ["doc.pdf", "application/pdf", PDF.length],
      ["pixel.png", "image/png", PNG.length],
    ]);
  });

  it("previews the image: decoded, its name as its text", async () => {
    const { page } = app;
    await page.getByRole("button", { name: "Preview pixel.png" }).click();
    const img = page.getByRole("img", { name: "pixel.png" });
    await img.waitFor();
    await page.waitForFunction(() => (document.querySelector("img.preview-image") as HTMLImageElement | null)?.complete === true);
    assert.equal(await img.evaluate((el) => (el as HTMLImageElement).naturalWidth), 48);
    assert.equal(await img.evaluate((el) => (el as HTMLImageElement).naturalHeight), 32);
  });

  it("previews the PDF in a frame, shown by the browser's viewer", async (t) => {
    const { page } = app;
    await page.getByRole("button", { name: "Preview doc.pdf" }).click();
    const frame = page.getByTitle("Preview of doc.pdf");
    await frame.waitFor();
    const src = (await frame.getAttribute("src")) ?? "";
    assert.match(src, /^\/api\/library\/[^/]+\/content$/);
    // The content route lets its own origin frame it, inline, and still sandboxed.
    const headers = await page.evaluate(async (url) => {
      const res = await fetch(url);
      return { status: res.status, type: res.headers.get("content-type"), disposition: res.headers.get("content-disposition"), csp: res.headers.get("content-security-policy"), frameOptions: res.headers.get("x-frame-options") };
    }, src);
    assert.equal(headers.status, 200);
    assert.equal(headers.type, "application/pdf");
    assert.match(headers.disposition ?? "", /^inline;/);
    assert.match(headers.csp ?? "", /sandbox/);
    assert.doesNotMatch(headers.csp ?? "", /frame-ancestors/);
    assert.equal(headers.frameOptions, null);
    // The framed document is the PDF, and the browser's PDF viewer opens inside it (not a download).
    await waitFor("the PDF in its frame", () => (page.frames().some((f) => f.url() === `${app.origin}${src}`) ? true : undefined));
    const viewer = await waitFor("the PDF viewer", () => page.frames().find((f) => f.url().startsWith("chrome-extension://")));
    // The viewer names its window after the document once it has read it.
    await viewer.waitForFunction(() => document.title !== "" && document.querySelector("pdf-viewer") !== null);
    t.diagnostic(`the PDF viewer shows "${await viewer.evaluate(() => document.title)}"`);
    await app.screenshot("library-previews");
    assert.deepEqual(await app.axe(), []);
  });

  it("downloads a file with its bytes", async () => {
    const { page } = app;
    for (const [name, bytes] of [
      ["doc.pdf", PDF],
      ["pixel.png", PNG],
    ] as const) {
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: `Download ${name}` }).click()]);
      assert.equal(download.suggestedFilename(), name);
      const saved = await download.path();
      assert.ok(readFileSync(saved).equals(bytes), `${name}: the downloaded bytes are the uploaded ones`);
    }
  });

  it("a file the node refuses shows the node's reason, and nothing is stored", async () => {
    const { page } = app;
    await page.getByLabel("Files to upload").setInputFiles([{ name: "bell\u0007.txt", mimeType: "text/plain", buffer: Buffer.from("ding") }]);
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    const alert = page.getByRole("alert").filter({ hasText: "bell" });
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? "", /name has a control character/);
    await page.getByRole("status").filter({ hasText: "0 of 1 file stored, 1 refused." }).waitFor();
    assert.equal((await app.call("GET", "/api/library")).body.items.length, 2);
    await app.screenshot("library-refused");
    assert.deepEqual(await app.axe(), []);
  });

  it("the vault: a note with Markdown and a wiki link, its preview, and the linked note's backlink", async () => {
    const { page } = app;
    await app.open("vaults", "Knowledge");
    await page.getByText("No note yet").waitFor();
    await page.getByText("Your own vault, empty so far.").waitFor();
    assert.equal(await page.getByLabel("Vault", { exact: true }).count(), 0, "one vault: nothing to choose");
    await app.screenshot("vault-empty");
    assert.deepEqual(await app.axe(), []);
    await page.getByLabel("Path of the new note").fill("Garden");
    await page.getByRole("button", { name: "Create the note" }).click();
    await page.getByRole("heading", { level: 2, name: "Garden.md" }).waitFor();
    assert.equal(new URL(page.url()).hash, "#/vaults/personal/Garden.md");
    const editor = page.getByLabel("Text of Garden.md");
    await page.getByRole("status").filter({ hasText: "Live:" }).waitFor();
    assert.equal(await editor.inputValue(), "# Garden\n\n");
    await editor.fill("# Garden\n\nTomatoes, see [[Seeds]] and **basil**, with `water` *daily*.\n\n- sun\n- rain\n\n[Charter](https://example.org/)");
    const preview = page.getByTestId("preview");
    await preview.getByRole("heading", { name: "Garden" }).waitFor();
    assert.equal(await preview.getByRole("heading", { name: "Garden" }).evaluate((el) => el.tagName), "H4");
    assert.equal(await preview.locator("strong").textContent(), "basil");
    assert.equal(await preview.locator("em").textContent(), "daily");
    assert.equal(await preview.locator("code").textContent(), "water");
    assert.deepEqual(await preview.getByRole("listitem").allTextContents(), ["sun", "rain"]);
    assert.equal(await preview.getByRole("link", { name: "Charter" }).getAttribute("href"), "https://example.org/");
    const seeds = preview.getByRole("link", { name: "Seeds" });
    assert.equal(await seeds.getAttribute("href"), "#/vaults/personal/Seeds.md");
    // The node saves the co-edited text into the vault.
    await waitFor("the text saved", async () => ((await app.call("POST", "/api/knowledge", { operation: "read", args: { path: "Garden" } })).body?.text?.includes("[[Seeds]]") ? true : undefined));
    await app.screenshot("vault-note");
    assert.deepEqual(await app.axe(), []);

    await seeds.click();
    await page.getByRole("heading", { level: 2, name: "Seeds.md" }).waitFor();
    await page.getByText("There is no note at this path yet.").waitFor();
    await page.getByRole("button", { name: "Create this note" }).click();
    const backlinks = page.getByRole("list", { name: "Notes that link to Seeds.md" });
    await backlinks.getByRole("link", { name: "Garden.md" }).waitFor();
    assert.equal(await backlinks.getByRole("link", { name: "Garden.md" }).getAttribute("href"), "#/vaults/personal/Garden.md");
    await app.screenshot("vault-backlinks");
    assert.deepEqual(await app.axe(), []);
    await backlinks.getByRole("link", { name: "Garden.md" }).click();
    await page.getByRole("heading", { level: 2, name: "Garden.md" }).waitFor();
  });

  it("two tabs co-edit the same note live, and the vault keeps the merged text", async () => {
    const { page } = app;
    second = await app.context.newPage();
    second.on("pageerror", (error) => secondErrors.push(error.message));
    second.on("console", (message) => {
      if (/Content Security Policy|Trusted Type/i.test(message.text())) secondErrors.push(message.text());
    });
    await second.goto(`${app.origin}/#/vaults/personal/Garden.md`);
    await second.getByRole("heading", { level: 2, name: "Garden.md" }).waitFor();
    const mine = page.getByLabel("Text of Garden.md");
    const theirs = second.getByLabel("Text of Garden.md");
    await second.getByRole("status").filter({ hasText: "Live:" }).waitFor();
    await page.getByRole("status").filter({ hasText: "1 other device edits with you" }).waitFor();
    assert.match(await theirs.inputValue(), /Tomatoes, see \[\[Seeds\]\]/);

    await theirs.focus();
    await second.keyboard.press("Control+End");
    await second.keyboard.type("\nTyped in the second tab.");
    await page.waitForFunction(() => (document.querySelector("textarea.note-text") as HTMLTextAreaElement).value.endsWith("\nTyped in the second tab."));
    await page.getByTestId("preview").getByText("Typed in the second tab.").waitFor();

    await mine.focus();
    await page.keyboard.press("Control+Home");
    await page.keyboard.type("Top line from the first tab.\n");
    await second.waitForFunction(() => (document.querySelector("textarea.note-text") as HTMLTextAreaElement).value.startsWith("Top line from the first tab.\n# Garden"));
    assert.equal(await mine.inputValue(), await theirs.inputValue());
    const merged = await mine.inputValue();
    await waitFor("the merged text saved", async () => ((await app.call("POST", "/api/knowledge", { operation: "read", args: { path: "Garden" } })).body?.text === merged ? true : undefined));
    await app.screenshot("vault-co-editing");
    assert.deepEqual(await app.axe(), []);
    await second.close();
  });

  it("the vault lists its notes by title, and finds them by their words", async () => {
    const { page } = app;
    await app.open("vaults", "Knowledge");
    const notes = page.getByRole("list", { name: "Notes of personal" });
    await notes.getByRole("link", { name: "Seeds" }).waitFor();
    assert.equal(await notes.getByRole("link", { name: "Garden" }).getAttribute("href"), "#/vaults/personal/Garden.md");
    await page.getByLabel("Search the notes").fill("tomato");
    const found = page.getByRole("list", { name: "Notes found" });
    await found.getByRole("link", { name: "Garden" }).waitFor();
    assert.equal(await found.getByRole("listitem").count(), 1);
    assert.match((await found.locator("strong").first().textContent()) ?? "", /^Tomato/);
    await app.screenshot("vault-search");
    assert.deepEqual(await app.axe(), []);
  });

  it("the pages' scripts threw nothing, and their policy refused nothing the pages need", () => {
    assert.deepEqual(app.pageErrors, []);
    assert.deepEqual(app.refusedByPolicy, []);
    assert.deepEqual(secondErrors, []);
  });
});
