/**
 * @module Keeps the language reference (`docs/contract-language.md`) true to the compiler: every
 * ```charter block in it is compiled by the real compiler, as the only block of a file.
 *
 * * A block with no comment before it must compile with no diagnostic.
 * * A block right after `<!-- expect: LINE -->` (or `<!-- expect:` with one line per line of
 *   output, then `-->`) must fail, and its first diagnostic, printed, must begin with those lines.
 *   Positions count from the block's first line, as the reference says. A ```text block right
 *   after such a block shows the reader the output: it must equal every diagnostic, printed.
 * * An upgrade block (`upgrades art_…`) is checked against the nearest earlier block of the same
 *   namespace, the version it replaces; a dotted query source is resolved from the blocks before
 *   it and the standard library, as an installed node would resolve it.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { collectionInfo, sourceAggregate } from "../shared/store/collections.ts";
import { previousVersion } from "./check/previous.ts";
import type { CheckOptions } from "./check/scope.ts";
import { compileContract } from "./compile.ts";
import { formatDiagnostics, type Diagnostic } from "./diagnostics.ts";
import { analyze } from "./front.ts";
import type { Schema } from "./schema.ts";

const referenceUrl = new URL("../docs/contract-language.md", import.meta.url);

/** A fenced block of the reference: its language, body, first body line, and what stood before it. */
interface Block {
  readonly language: string;
  readonly body: string;
  readonly line: number;
  readonly expect: readonly string[] | null;
}

/** The fenced blocks of `markdown` (fences at the line start, as the reference writes them). */
function fencedBlocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*(\S*)/.exec(lines[i] ?? "");
    if (open === null) continue;
    const fence = open[1] ?? "```";
    let end = i + 1;
    while (end < lines.length && !(lines[end]?.startsWith(fence) && lines[end]?.trim() === fence)) end++;
    blocks.push({ language: open[2] ?? "", body: lines.slice(i + 1, end).join("\n") + "\n", line: i + 2, expect: expectBefore(lines, i) });
    i = end;
  }
  return blocks;
}

/** The lines of an `<!-- expect: … -->` comment ending on the last non-blank line before `index`. */
function expectBefore(lines: readonly string[], index: number): string[] | null {
  let end = index - 1;
  while (end >= 0 && (lines[end] ?? "").trim() === "") end--;
  if (!(lines[end] ?? "").trimEnd().endsWith("-->")) return null;
  let start = end;
  while (start >= 0 && !(lines[start] ?? "").includes("<!--")) start--;
  const comment = lines.slice(start, end + 1).join("\n");
  const m = /^<!--\s*expect:([\s\S]*?)-->\s*$/.exec(comment.trim());
  if (m === null) return null;
  return (m[1] ?? "").split("\n").map((l) => l.trim()).filter((l) => l !== "");
}

const FENCE_LINE = "```charter\n";

/** `body` as the only block of a file, and its diagnostics printed with lines counted from the body's first line. */
function check(body: string, options: CheckOptions): { diagnostics: readonly Diagnostic[]; printed: string[]; schema: Schema | null } {
  const markdown = `${FENCE_LINE}${body}\`\`\`\n`;
  const result = compileContract(markdown, options);
  const shift = FENCE_LINE.length;
  const inBody = result.diagnostics.map((d) => ({ ...d, span: [Math.max(0, d.span[0] - shift), Math.max(0, d.span[1] - shift)] as const }));
  return { diagnostics: result.diagnostics, printed: formatDiagnostics(body, inBody), schema: result.artifact?.schema ?? null };
}

/** The standard library's schemas, which every tenant has installed. */
function standardLibrary(): Schema[] {
  const dir = new URL("./std/", import.meta.url);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".charter.md"))
    .flatMap((f) => {
      const schema = compileContract(readFileSync(new URL(f, dir), "utf8")).artifact?.schema;
      return schema === undefined ? [] : [schema];
    });
}

/** The options a block is checked with, given the schemas of the clean blocks before it. */
function optionsFor(body: string, earlier: readonly { body: string; schema: Schema }[], library: readonly Schema[]): CheckOptions {
  const resolveCollection: CheckOptions["resolveCollection"] = (name) => {
    for (const schema of [...library, ...earlier.map((e) => e.schema)].reverse()) {
      if (!(name === schema.namespace || name.startsWith(`${schema.namespace}.`))) continue;
      const aggregate = sourceAggregate(schema, name);
      if (aggregate !== null) return collectionInfo(schema, aggregate);
    }
    return null;
  };
  if (!/^upgrades\s/m.test(body)) return { resolveCollection };
  const namespace = /^namespace\s+(\S+)/m.exec(body)?.[1];
  const replaced = [...earlier].reverse().find((e) => e.schema.namespace === namespace);
  assert.ok(replaced !== undefined, `an upgrade of ${namespace} with no earlier block of that namespace`);
  const contract = analyze(`${FENCE_LINE}${replaced.body}\`\`\`\n`).contract;
  assert.ok(contract !== null);
  return { resolveCollection, previous: previousVersion(contract) };
}

describe("the language reference", () => {
  const markdown = readFileSync(referenceUrl, "utf8");
  const blocks = fencedBlocks(markdown);
  const charter = blocks.filter((b) => b.language === "charter");
  const library = standardLibrary();
  const earlier: { body: string; schema: Schema }[] = [];

  it("has examples of both kinds", () => {
    assert.ok(charter.length >= 15, `only ${charter.length} charter blocks`);
    assert.ok(charter.some((b) => b.expect !== null));
  });

  for (const block of charter) {
    const name = `${block.expect === null ? "compiles" : "fails as shown"}: the block at line ${block.line}`;
    it(name, () => {
      const result = check(block.body, optionsFor(block.body, earlier, library));
      if (block.expect === null) {
        assert.deepEqual(result.printed, [], `docs/contract-language.md:${block.line} does not compile`);
        assert.ok(result.schema !== null);
        earlier.push({ body: block.body, schema: result.schema });
        return;
      }
      const first = result.printed[0] ?? "(no diagnostic)";
      assert.deepEqual(first.split("\n").slice(0, block.expect.length).map((l) => l.trim()), block.expect, `docs/contract-language.md:${block.line}: the first diagnostic is\n${first}`);
      const shown = blocks[blocks.indexOf(block) + 1];
      if (shown?.language === "text" && shown.line <= block.line + block.body.split("\n").length + 3) {
        assert.equal(shown.body, result.printed.map((p) => `${p}\n`).join(""), `docs/contract-language.md:${shown.line} shows other output`);
      }
    });
  }
});

describe("the reference's test harness", () => {
  it("fails a block that does not compile, and one whose diagnostic differs", () => {
    const doc = [
      "<!-- expect: syntax error: expected \"version\", found the end of the block at line 2:1 -->",
      "```charter",
      "namespace a.b",
      "```",
      "",
      "```charter",
      "namespace a.b",
      "```",
    ].join("\n");
    const [failing, broken] = fencedBlocks(doc);
    assert.deepEqual(failing?.expect, ['syntax error: expected "version", found the end of the block at line 2:1']);
    assert.deepEqual(check(failing?.body ?? "", {}).printed, ['syntax error: expected "version", found the end of the block at line 2:1']);
    assert.equal(broken?.expect, null);
    assert.notDeepEqual(check(broken?.body ?? "", {}).printed, []);
  });

  it("reads a comment of several lines as the lines of the output", () => {
    const [block] = fencedBlocks("<!-- expect:\n  first line\n  second line\n-->\n\n```charter\nx\n```\n");
    assert.deepEqual(block?.expect, ["first line", "second line"]);
  });
});
