import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_LINKS, markdownFacts, markdownTarget } from "./markdown-facts.ts";

describe("what the index keeps of a note", () => {
  it("finds the title, wiki and Markdown links, and tags outside code", () => {
    const facts = markdownFacts(
      "Daily/Monday.md",
      [
        "---",
        "tags: [Work, 'planning']",
        "---",
        "Intro line #ignored-before-title? no: tags count anywhere",
        "# Monday notes #not-a-heading-tag",
        "See [[Projects/Charter#Goals|the goals]], ![[diagram]] and [bread](../Recipes/Bread.md \"title\").",
        "A [site](https://example.com/x.md), an [anchor](#top), [[ ]] and `[[in code]]`.",
        "```",
        "[[in a fence]] #fenced",
        "```",
        "Tagged #idea and #2026 and #a/b/ (#paren).",
      ].join("\n"),
    );
    assert.equal(facts.title, "Monday notes #not-a-heading-tag");
    assert.deepEqual(
      facts.links.map((l) => `${l.kind}:${l.target}`),
      ["wiki:projects/charter", "wiki:diagram", "md:Recipes/Bread.md"],
    );
    assert.deepEqual([...facts.tags].sort(), ["a/b", "idea", "ignored-before-title", "planning", "work"]);
  });

  it("takes the name as title, and resolves Markdown links against the note's folder", () => {
    assert.equal(markdownFacts("a/Plain.md", "no heading").title, "Plain");
    assert.equal(markdownTarget("a/b.md", "c.md"), "a/c.md");
    assert.equal(markdownTarget("a/b.md", "/top.md"), "top.md");
    assert.equal(markdownTarget("a/b.md", "My%20Note.md"), "a/My Note.md");
    assert.equal(markdownTarget("a/b.md", "<with space.md>"), "a/with space.md");
    assert.equal(markdownTarget("a/b.md", "../../out.md"), null);
    assert.equal(markdownTarget("a/b.md", "pic.png"), null);
    assert.equal(markdownTarget("a/b.md", "%E0%A4%A.md"), null);
  });

  it("is bounded however many links a note has", () => {
    const many = Array.from({ length: MAX_LINKS * 2 }, (_, i) => `[[n${i}]]`).join(" ");
    assert.equal(markdownFacts("x.md", many).links.length, MAX_LINKS);
  });
});
