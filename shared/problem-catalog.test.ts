import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { problemCatalog, type ProblemCode } from "./problem-catalog.ts";
import { problem, problemOf } from "./problem.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const codes = Object.keys(problemCatalog) as ProblemCode[];

/** Every non-test source file of the project (the rooms that answer problems). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && entry.name !== "problem-catalog.ts" ? [path] : [];
  });
}

describe("the problem catalogue", () => {
  it("spells every code in kebab-case, once", () => {
    for (const code of codes) assert.match(code, /^[a-z]+(-[a-z]+)*$/, code);
    assert.equal(new Set(codes).size, codes.length);
    // No two codes differ only in their separators (the old snake and kebab spellings side by side).
    assert.equal(new Set(codes.map((c) => c.replaceAll("-", ""))).size, codes.length);
  });

  it("gives every code an error status and a title", () => {
    for (const code of codes) {
      const { status, title } = problemCatalog[code];
      assert.ok(Number.isInteger(status) && status >= 400 && status <= 599, `${code}: ${status}`);
      assert.ok(title.trim().length > 0, code);
    }
  });

  it("derives each problem's type, status and title from its code", () => {
    for (const code of codes) {
      const p = problemOf(code, "why");
      assert.deepEqual(p, { type: `urn:charter:problem:${code}`, title: problemCatalog[code].title, status: problemCatalog[code].status, detail: "why", code });
    }
    assert.deepEqual(problem(400, "malformed-body", "why", [{ pointer: "#", detail: "must be an object" }]).errors, [{ pointer: "#", detail: "must be an object" }]);
  });

  it("has no code that nothing answers with, unless it is marked reserved", () => {
    const files = sources(root).map((path) => readFileSync(path, "utf8"));
    // Built with `problem(STATUS, "code", …)`, or named in a file that maps another vocabulary onto the
    // catalogue's (the admin channel's errors, the JWS verifier's).
    const built = (code: string) => files.some((text) => new RegExp(`problem\\(\\s*\\d{3},\\s*"${code}"`).test(text));
    const mapped = (code: string) => files.some((text) => /\b(ProblemCode|JwsErrorCode)\b/.test(text) && text.includes(`"${code}"`));
    const unused = codes.filter((code) => !("reserved" in problemCatalog[code]) && !built(code) && !mapped(code));
    assert.deepEqual(unused, []);
  });

  it("is listed, code for code and status for status, in the README's /v1 section", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## The `/v1` API (engine)"), readme.indexOf("## A signed write, step by step"));
    const listed = [...section.matchAll(/^\| (\d{3}) \| (.+) \|$/gm)].flatMap(([, status, cell]) => [...(cell as string).matchAll(/`([a-z-]+)`/g)].map(([, code]) => `${code} ${status}`));
    assert.deepEqual(listed.sort(), codes.map((code) => `${code} ${problemCatalog[code].status}`).sort());
  });
});
