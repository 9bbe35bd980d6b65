/**
 * @module Compiling in a short-lived child process (contracts/compile-child.ts), for long-lived
 * workers that must not load binaryen themselves. At most `MAX_CHILDREN` compile at once (each
 * costs ~110 MB); later calls wait their turn.
 */
import { spawn } from "node:child_process";
import type { CheckOptions, CollectionInfo } from "./check/check-contract.ts";
import { fileURLToPath } from "node:url";
import type { CompileOutcome } from "./artifact-wire.ts";

const CHILD = fileURLToPath(new URL("./compile-child.ts", import.meta.url));
const MAX_CHILDREN = 2;
const DEFAULT_TIMEOUT_MS = 60_000;

/** The child could not answer: it crashed, printed nonsense, or ran out of time. A bug or an overload, not the user's mistake. */
export class CompileChildError extends Error {
  readonly timedOut: boolean;
  constructor(message: string, timedOut = false) {
    super(message);
    this.timedOut = timedOut;
  }
}

let running = 0;
const waiting: (() => void)[] = [];

/** Compiles `source` in a child process: the artifact, or the located diagnostics. */
export async function compileInChild(
  source: string,
  options: { timeoutMs?: number; previous?: CheckOptions["previous"]; collections?: Record<string, CollectionInfo> } = {},
): Promise<CompileOutcome> {
  if (running >= MAX_CHILDREN) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await runChild(JSON.stringify({ source, previous: options.previous, collections: options.collections }), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function runChild(input: string, timeoutMs: number): Promise<CompileOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD], { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let err = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.stdin.on("error", () => {}); // the child may exit before reading everything; its exit says why
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new CompileChildError(`cannot start the compiler: ${error.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return reject(new CompileChildError(`compiling took longer than ${timeoutMs} ms`, true));
      if (code !== 0) return reject(new CompileChildError(`the compiler exited with ${signal ?? code}: ${err.trim().slice(0, 2000)}`));
      try {
        resolve(JSON.parse(Buffer.concat(out).toString("utf8")) as CompileOutcome);
      } catch {
        reject(new CompileChildError("the compiler's output is not JSON"));
      }
    });
    child.stdin.end(input);
  });
}
