/**
 * @module The committed build is the build of the committed sources: the app is built afresh into
 * a temporary folder and every file compared with `workers/gateway/app-page/dist/`. When this
 * fails, run `npm run app:build` and commit the result.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const DIST = fileURLToPath(new URL("../workers/gateway/app-page/dist/", import.meta.url));

function files(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path));
    }
  };
  walk(dir);
  return out;
}

test("the committed app build matches a fresh build of app/ (else: npm run app:build)", () => {
  const out = mkdtempSync(join(tmpdir(), "charter-app-build-"));
  try {
    execFileSync(process.execPath, [fileURLToPath(new URL("./build.ts", import.meta.url)), out], { stdio: ["ignore", "ignore", "pipe"], timeout: 120_000 });
    const fresh = files(out);
    const committed = files(DIST);
    assert.deepEqual([...committed.keys()].sort(), [...fresh.keys()].sort(), "the same files (run npm run app:build and commit dist/)");
    for (const [name, bytes] of fresh) assert.ok(bytes.equals(committed.get(name) as Buffer), `${name} is stale: run npm run app:build and commit dist/`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
