/**
 * Determinism of the artifact (language reference §8): the same source gives the same bytes and id
 * in separate processes; any character changed inside the block changes the id; prose outside the
 * block does not.
 */
import { deepStrictEqual, notStrictEqual, strictEqual } from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, it } from "node:test";
import { artifactId } from "./artifact.ts";
import { compileContract } from "./compile.ts";

const source = readFileSync(new URL("./examples/shipping.charter.md", import.meta.url), "utf8");
const charter = fileURLToPath(new URL("../bin/charter.js", import.meta.url));

function idOf(markdown: string): string {
  const r = compileContract(markdown);
  if (r.artifact === undefined) throw new Error(JSON.stringify(r.diagnostics));
  return r.artifact.id;
}

/** `source` with the first occurrence of `from` replaced by `to` (which must exist). */
function edit(from: string, to: string, base = source): string {
  if (!base.includes(from)) throw new Error(`no ${from}`);
  return base.replace(from, to);
}

describe("artifact determinism", () => {
  it("gives identical bytes and id in two separate processes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "charter-det-"));
    const file = join(dir, "shipping.charter.md");
    writeFileSync(file, source);
    const run = (args: string[]) => promisify(execFile)(process.execPath, [charter, "compile", file, ...args], { cwd: dir });
    const [a, b, wat] = await Promise.all([run([]), run([]), run(["--wat"])]);
    const local = compileContract(source, { wat: true });
    strictEqual(a.stdout, `${local.artifact?.id}\n`);
    strictEqual(b.stdout, a.stdout);
    strictEqual(wat.stdout, local.wat);
  });

  it("frames the id as the length-prefixed schema and program bytes", () => {
    const r = compileContract(source);
    const art = r.artifact;
    if (art === undefined) throw new Error("no artifact");
    strictEqual(art.id, artifactId(art.schemaBytes, art.wasm));
    notStrictEqual(artifactId(new Uint8Array([1, 2]), new Uint8Array([3])), artifactId(new Uint8Array([1]), new Uint8Array([2, 3])));
    deepStrictEqual(JSON.parse(new TextDecoder().decode(art.schemaBytes)), JSON.parse(JSON.stringify(art.schema)));
  });

  it("changes when one character of a condition, an assignment or a comment in the block changes", () => {
    const withComment = edit("  action Pay()", "  # payment is recorded once\n  action Pay()");
    const ids = [
      idOf(source),
      idOf(edit("units > 0", "units > 1")),
      idOf(edit("state.crates_checked + 1", "state.crates_checked + 2")),
      idOf(edit("units <= 100", "units <= 900")),
      idOf(withComment),
      idOf(edit("# payment is recorded once", "# payment is recorded twice", withComment)),
      idOf(edit("# payment is recorded once", "# payment is recorded oncE", withComment)),
    ];
    strictEqual(new Set(ids).size, ids.length, ids.join("\n"));
  });

  it("does not change with the prose outside the block", () => {
    const id = idOf(source);
    strictEqual(idOf(edit("The person\nwho requests", "The clerk\nwho requests")), id);
    strictEqual(idOf(`${source}\nA closing remark after the block.\n`), id);
  });

  it("writes a canonical schema: sorted keys, defaults filled, no positions", () => {
    const art = compileContract(source).artifact;
    if (art === undefined) throw new Error("no artifact");
    const text = new TextDecoder().decode(art.schemaBytes);
    strictEqual(text.includes('"span"'), false);
    strictEqual(text.includes(process.cwd()), false);
    const ship = art.schema.actions["Order.Ship"];
    deepStrictEqual([ship?.exposure, ship?.merge, ship?.durability, ship?.authorize], ["authenticated", "replay", "quorum", { mode: "delegate", scope: "shipping" }]);
    deepStrictEqual(art.schema.actions["Order.CheckCrate"]?.merge, "commute");
    strictEqual(ship?.validate[4]?.text, 'state.status == Confirmed or state.destination != "Embargoed"');
    const keysSorted = (v: unknown): boolean =>
      Array.isArray(v) ? v.every(keysSorted) : v === null || typeof v !== "object" ? true : Object.keys(v).every((k, i, ks) => i === 0 || (ks[i - 1] as string) < k) && Object.values(v).every(keysSorted);
    strictEqual(keysSorted(JSON.parse(text)), true);
  });
});
