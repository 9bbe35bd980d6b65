/**
 * Issue 9: ink (and React) cost ~0.6 s to import, so only the console loads them. Every module of
 * the server (supervisor, workers, shared, contracts, cli) is scanned for imports of ink, React or
 * tui/, and the modules `charter serve`/`charter node` run are imported in a child process that
 * records every module resolved.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const root = fileURLToPath(new URL("..", import.meta.url));
/** The one server-side file allowed to reach the console: `charter tui`'s command, loaded on demand. */
const allowed = new Set(["cli/commands/tui.ts"]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|js)$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
  });
}

test("no server module imports ink, React or the console", () => {
  const offenders: string[] = [];
  for (const top of ["supervisor", "workers", "shared", "contracts", "cli", "bin"]) {
    for (const file of sources(join(root, top))) {
      const rel = relative(root, file);
      if (allowed.has(rel)) continue;
      const text = readFileSync(file, "utf8");
      const imports = [...text.matchAll(/(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? m[2] ?? "");
      for (const spec of imports) if (/^(ink|react|react-reconciler|ink-testing-library)(\/|$)|(^|\/)tui\//.test(spec) && !(rel === "cli/main.ts" && spec === "./commands/tui.ts")) offenders.push(`${rel} imports ${spec}`);
    }
  }
  assert.deepEqual(offenders, []);
  const main = readFileSync(join(root, "cli/main.ts"), "utf8");
  assert.match(main, /tui: \{[^}]*load: \(\) => import\("\.\/commands\/tui\.ts"\)/, "the command table loads the console only when `charter tui` runs");
});

test("the modules a running node loads resolve neither ink nor React", () => {
  const hook = `data:text/javascript,${encodeURIComponent(
    'import { registerHooks } from "node:module"; registerHooks({ resolve(s, c, next) { const r = next(s, c); if (/node_modules\\/(ink|react|react-reconciler|yoga-layout)\\/|\\/tui\\//.test(r.url)) console.log("CONSOLE " + r.url + " from " + c.parentURL); return r; } });',
  )}`;
  const script = [
    "./cli/commands/serve.ts",
    "./cli/commands/node.ts",
    "./cli/run-tree.ts",
    "./supervisor/supervisor.ts",
    "./workers/engine/engine.ts",
    "./workers/gateway/gateway.ts",
    "./workers/assistant/assistant.ts",
    "./workers/outbox/outbox.ts",
    "./workers/sync/sync.ts",
    "./workers/updater/updater.ts",
  ]
    .map((m) => `await import('${m}');`)
    .join(" ");
  const out = execFileSync(process.execPath, ["--import", hook, "--input-type=module", "-e", `${script} console.log('imported');`], { cwd: root, encoding: "utf8" });
  assert.equal(out, "imported\n");
});
