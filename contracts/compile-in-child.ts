/**
 * @module Compiling in a short-lived child process (contracts/compile-child.ts), for long-lived
 * workers that must not load binaryen themselves. At most `MAX_CHILDREN` compile at once (each
 * costs ~110 MB); later calls wait their turn. A child that runs past its deadline is stopped (and
 * killed if it lingers); one that crashes is reported by its error's line, not its stack.
 */
import { fileURLToPath } from "node:url";
import { runNodeChild } from "../shared/node-child.ts";
import type { CompileOutcome } from "./artifact-wire.ts";
import type { CheckOptions, CollectionInfo } from "./check/check-contract.ts";

const CHILD = fileURLToPath(new URL("./compile-child.ts", import.meta.url));
const MAX_CHILDREN = 2;
const DEFAULT_TIMEOUT_MS = 60_000;
/** A compiler told to stop at its deadline is killed if it is still running this much later. */
const KILL_AFTER_MS = 2_000;

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

async function runChild(input: string, timeoutMs: number): Promise<CompileOutcome> {
  const outcome = await runNodeChild(CHILD, { input, timeoutMs, killAfterMs: KILL_AFTER_MS });
  if (!outcome.ok && outcome.timedOut) throw new CompileChildError(`compiling took longer than ${timeoutMs} ms`, true);
  if (!outcome.ok) throw new CompileChildError(`the compiler ${outcome.error}`);
  try {
    return JSON.parse(outcome.stdout) as CompileOutcome;
  } catch {
    throw new CompileChildError("the compiler's output is not JSON");
  }
}
