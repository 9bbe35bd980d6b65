/**
 * The long-lived workers never load the compiler (binaryen costs ~0.5 s and ~110 MB): the engine
 * and gateway modules are imported in a child process that records every module resolved.
 * The gateway's `_install` compiles in a short-lived child instead (contracts/compile-in-child.ts).
 * (Other packages' own `codegen` folders, such as ajv's, are not the compiler.)
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { it } from "node:test";

const root = fileURLToPath(new URL("..", import.meta.url));
const hook = `data:text/javascript,${encodeURIComponent(
  'import { registerHooks } from "node:module"; registerHooks({ resolve(s, c, next) { const r = next(s, c); if (/binaryen/.test(r.url) || (!r.url.includes("/node_modules/") && /\\/codegen\\/|\\/compile\\.ts$/.test(r.url))) console.log("COMPILER " + r.url + " from " + c.parentURL); return r; } });',
)}`;

it("neither the engine nor the gateway imports the compiler", () => {
  const script = "await import('./workers/engine/engine.ts'); await import('./workers/gateway/gateway.ts'); console.log('imported');";
  const out = execFileSync(process.execPath, ["--import", hook, "--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
  assert.equal(out, "imported\n");
});
