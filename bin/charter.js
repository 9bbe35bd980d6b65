#!/usr/bin/env node
// @module Entry point of the `charter` executable: make sure Node 24 runs it, then hand over to cli/main.ts.
import { spawn } from "node:child_process";
import { constants as osConstants } from "node:os";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  // The project ships its own Node 24 (npm package `node`); re-run under it rather than fail obscurely.
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const own = join(root, "node_modules", "node", "bin", "node");
  if (existsSync(own) && !process.env.CHARTER_REEXEC) {
    const child = spawn(own, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
      stdio: "inherit",
      env: { ...process.env, CHARTER_REEXEC: "1" },
    });
    // Whoever holds this process (a shell, npm, a process manager) stops Charter by signalling it:
    // pass the signal on, and exit as the child does.
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
      process.on(signal, () => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      });
    }
    child.on("error", (error) => {
      process.stderr.write(`charter: cannot run ${own}: ${error.message}\n`);
      process.exit(1);
    });
    child.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128 + (osConstants.signals[signal] ?? 0))));
    await new Promise(() => {});
  }
  process.stderr.write(`charter: Node ${process.versions.node} is too old; Node 24 or newer is required (run \`npm install\`)\n`);
  process.exit(1);
}
await import("../cli/main.ts");
