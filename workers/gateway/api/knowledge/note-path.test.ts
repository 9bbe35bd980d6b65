import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { folderPath, notePath, vaultName } from "./note-path.ts";

describe("note paths", () => {
  it("names a Markdown note inside the vault, adding .md", () => {
    assert.deepEqual(notePath("Projects/Charter"), { ok: true, value: "Projects/Charter.md" });
    assert.deepEqual(notePath("a b/c.MD"), { ok: true, value: "a b/c.MD" });
    assert.deepEqual(notePath("Ünïcode/日本"), { ok: true, value: "Ünïcode/日本.md" });
  });

  it("refuses whatever could leave the vault or hide in it", () => {
    for (const bad of ["", "/abs", "../x", "a/../../x", "a/./b", "a//b", "a/", ".git/config", "a/.obsidian/x", "nul\u0000", "tab\tname", "line\u2028sep", "back\\slash", ".md", "x".repeat(256), "d/".repeat(520), 7, null, undefined, {}]) {
      assert.equal(notePath(bad).ok, false, JSON.stringify(bad));
    }
  });

  it("names folders and vaults", () => {
    assert.deepEqual(folderPath(undefined), { ok: true, value: "" });
    assert.deepEqual(folderPath("Journal/"), { ok: true, value: "Journal" });
    assert.equal(folderPath("../up").ok, false);
    assert.equal(vaultName("personal").ok, true);
    for (const bad of ["Personal", "../personal", "", "a".repeat(64), "a_b", 3]) assert.equal(vaultName(bad).ok, false, String(bad));
  });
});
