import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { clipText, contractDocs, memberText, plainText } from "./contract-docs.ts";

const source = (name: string) => readFileSync(new URL(`../../../../contracts/std/node/${name}.charter.md`, import.meta.url), "utf8");

describe("a contract's docs from its Markdown", () => {
  it("std.tasks: its title, its first prose paragraph as summary, and the bullet that names each action", () => {
    const docs = contractDocs(source("tasks"));
    assert.equal(docs.title, "std.tasks — the person's tasks");
    assert.match(docs.summary, /^One of the node's own contracts, installed in the personal tenant\. One record per task;/);
    assert.ok(!docs.summary.includes("`"), "plain text: no code marks");
    const create = memberText(docs, "Create");
    assert.match(create, /^Create enters a task once/);
    assert.match(create, /A repeating task needs a due date\.$/);
    assert.doesNotMatch(create, /Update/, "only the prose that names Create");
    assert.match(memberText(docs, "Reschedule"), /Reschedule moves \(or removes\) an open task's due date/);
    assert.match(memberText(docs, "Open"), /^Queries: Open, Done and All page by id/);
    assert.doesNotMatch(memberText(docs, "Open"), /Reopen opens/, "`Open` is not `Reopen`");
  });

  it("std.memory: Add, Delete and the queries Notes and Search", () => {
    const docs = contractDocs(source("memory"));
    assert.equal(docs.title, "std.memory — the person's memory notes");
    assert.match(docs.summary, /^Installed by charter node in the personal tenant\. One record per note/);
    assert.equal(memberText(docs, "Add"), "Add writes a note once: a subject that already has a note, kept or deleted, refuses it, and a note needs some text. The signer is its creator.");
    assert.match(memberText(docs, "Delete"), /^Delete is an action too, so history keeps that it happened/);
    assert.match(memberText(docs, "Search"), /Search ranks the kept notes against a text/);
    assert.equal(memberText(docs, "Nothing"), "", "a name the prose never gives has no text");
    assert.equal(docs.comments.size, 0, "memory's one comment is above a field, not a declaration");
  });

  it("the # comment lines right above a declaration belong to it; a blank line or a field between breaks the tie", () => {
    const docs = contractDocs([
      "# acme.notes — notes",
      "",
      "Keeps **notes** for [the team](https://example.com).",
      "",
      "```charter",
      "namespace acme.notes",
      "version 1.0.0",
      "aggregate Note {",
      "  public text: Text(len=100)",
      "  # Writes the note's text,",
      "  #   once.",
      "  action Write(text: Text(len=100)) api authenticated {",
      "    authorize member",
      "  }",
      "  # Not above a declaration.",
      "",
      "  action Erase() api authenticated {",
      "    authorize member",
      "  }",
      "}",
      "# Pages through the notes.",
      "query Notes(after: Text(len=128), limit: Int) returns List<Note> api authenticated pipe",
      "  Note",
      "```",
      "",
      "```ts",
      "# a comment in another block",
      "action Other()",
      "```",
    ].join("\n"));
    assert.equal(docs.title, "acme.notes — notes");
    assert.equal(docs.summary, "Keeps notes for the team.");
    assert.equal(memberText(docs, "Write"), "Writes the note's text, once.");
    assert.equal(memberText(docs, "Erase"), "");
    assert.equal(memberText(docs, "Notes"), "Pages through the notes.");
    assert.equal(memberText(docs, "Other"), "", "only the charter block's comments count");
  });

  it("is plain text: code spans, links and emphasis unwrapped, whitespace collapsed", () => {
    assert.equal(plainText("`Add` writes *one* note, see [the docs](x.md)\n  and **more**"), "Add writes one note, see the docs and more");
  });

  it("clips at a word, marked, never past the limit, never inside a surrogate pair", () => {
    const text = "word ".repeat(300).trim();
    const clipped = clipText(text, 1000);
    assert.ok(clipped.length <= 1000);
    assert.ok(clipped.endsWith("word…"));
    assert.equal(clipText("short", 1000), "short");
    const emoji = clipText("😀".repeat(20), 9);
    assert.ok(emoji.length <= 9);
    assert.ok(emoji.slice(0, -1).isWellFormed());
  });

  it("reads a large, unbroken source in bounded time", () => {
    const started = performance.now();
    const docs = contractDocs(`# t\n\n${"`".repeat(200_000)}${"*a".repeat(200_000)}\n\n* ${"[x](".repeat(100_000)}`);
    assert.ok(performance.now() - started < 2000, "linear, not quadratic");
    assert.ok(docs.summary.length <= 4000);
  });
});
