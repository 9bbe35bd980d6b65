/**
 * @module The Workbench in a process of its own, for the node's gateway (`POST
 * /api/workbench/check`), which must never load the compiler nor wait on a throwaway node in its
 * own process: reads `{source, steps, stepTimeoutMs, dir?}` (JSON) on stdin, runs the Workbench
 * (run-workbench.ts: a throwaway node in a temporary directory, each step in its own process), and
 * writes its WorkbenchResult as JSON on stdout. When it cannot run at all (the throwaway node did
 * not start), it says why in one line on stderr and exits 1. Stopped with SIGTERM, it removes the
 * throwaway node and its directory first (run-workbench.ts's signal handler).
 */
import { text } from "node:stream/consumers";
import { runWorkbench, type WorkbenchStep } from "./run-workbench.ts";

interface CheckRequest {
  readonly source: string;
  readonly steps: readonly WorkbenchStep[];
  readonly stepTimeoutMs: number;
  /** An empty directory to work in, which the caller removes in the end. */
  readonly dir?: string;
}

// The gateway's environment names the real node's data directory and worker configuration; nothing
// this process starts may see them (the throwaway node has its own, given on its command line).
delete process.env.CHARTER_WORKER_CONFIG;
delete process.env.CHARTER_DATA;

try {
  const request = JSON.parse(await text(process.stdin)) as CheckRequest;
  if (typeof request.source !== "string" || !Array.isArray(request.steps)) throw new Error("the check request needs a source and a list of steps");
  const result = await runWorkbench({ source: request.source, steps: request.steps, stepTimeoutMs: request.stepTimeoutMs, ...(typeof request.dir === "string" ? { dir: request.dir } : {}) });
  process.stdout.write(JSON.stringify(result));
} catch (error) {
  process.stderr.write(`${(error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ")}\n`);
  process.exitCode = 1;
}
