/**
 * @module Running one short `charter …` command as a user would, from a directory of the test's
 * choosing: its exit code and its whole stdout and stderr, with optional stdin.
 */
import { spawn } from "node:child_process";
import { charterBin } from "./charter-process.ts";

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd?: string;
  /** Added to the environment; a key set to undefined is removed from it. */
  readonly env?: Record<string, string | undefined>;
  readonly stdin?: string;
}

/** Runs `charter ARGS` to its end. CHARTER_DATA and CHARTER_URL are cleared unless `env` sets them. */
export function runCharter(args: readonly string[], options: RunOptions = {}): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env, CHARTER_DATA: undefined, CHARTER_URL: undefined, ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const child = spawn(process.execPath, [charterBin, ...args], { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(options.stdin ?? "");
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
