/**
 * @module Running a Node script in a short-lived child process that does a user's work (a
 * Workbench step, the install's compiler): under this process's Node, with its input on stdin, a
 * deadline after which it is terminated and, if it lingers, killed — and however it ends, one
 * outcome: its output, or one line saying what went wrong (the error it printed, not its stack).
 */
import type { Result } from "execa";

/** How a child ended: its stdout, or why it gave none. */
export type ChildOutcome =
  | { readonly ok: true; readonly pid: number | null; readonly stdout: string }
  | {
      readonly ok: false;
      readonly pid: number | null;
      /** True when it was stopped at its deadline. */
      readonly timedOut: boolean;
      /** One line, a phrase to follow the child's name: "exited with code 1: Error: boom", "was killed by SIGKILL". */
      readonly error: string;
    };

export interface NodeChildOptions {
  /** Written to the child's stdin, which is then closed. */
  readonly input: string;
  /** The child is terminated (SIGTERM) once it has run this long. */
  readonly timeoutMs: number;
  /** A child still running this long after it was told to stop is killed (SIGKILL); default 2 s. */
  readonly killAfterMs?: number;
  /** Node flags for the child; by default none (not this process's flags). */
  readonly nodeOptions?: readonly string[];
  /** Aborting it stops the child as its deadline would. */
  readonly cancelSignal?: AbortSignal;
  /** The most characters kept of its stdout (and of its stderr); a child that writes more is stopped. */
  readonly maxOutputChars?: number;
}

const DEFAULT_KILL_AFTER_MS = 2_000;
/** A reported line is cut to this length (it is read by a person). */
const LINE_CHARS = 300;

/** Runs `script` under this process's Node (`process.execPath`) until it exits, is stopped, or fails to start. */
export async function runNodeChild(script: string, options: NodeChildOptions): Promise<ChildOutcome> {
  // Loaded on first use: execa takes a noticeable while to import, and the gateway, which imports
  // this module, should not pay it at start-up for an install that may never come.
  const { execaNode } = await import("execa");
  const child = execaNode(script, [], {
    nodePath: process.execPath,
    nodeOptions: [...(options.nodeOptions ?? [])],
    ipc: false,
    input: options.input,
    timeout: options.timeoutMs,
    killSignal: "SIGTERM",
    forceKillAfterDelay: options.killAfterMs ?? DEFAULT_KILL_AFTER_MS,
    ...(options.cancelSignal === undefined ? {} : { cancelSignal: options.cancelSignal }),
    ...(options.maxOutputChars === undefined ? {} : { maxBuffer: options.maxOutputChars }),
    reject: false,
  });
  const pid = child.pid ?? null;
  const result = await child;
  if (!result.failed) return { ok: true, pid, stdout: result.stdout };
  return { ok: false, pid, timedOut: result.timedOut, error: failure(result, options.timeoutMs) };
}

/** What went wrong with a child that did not succeed, as one line. */
function failure(result: Result<{ reject: false }>, timeoutMs: number): string {
  if (result.timedOut) return `did not finish within ${timeoutMs} ms and was stopped`;
  if (result.isCanceled) return "was stopped";
  if (result.isMaxBuffer) return "wrote more output than it may";
  if (result.signal !== undefined) return `was killed by ${result.signal}`;
  if (result.exitCode !== undefined) {
    const line = errorLine(typeof result.stderr === "string" ? result.stderr : "");
    return `exited with code ${result.exitCode}${line === null ? "" : `: ${line}`}`;
  }
  // It never ran (it could not be spawned) or its stdin could not be written.
  return `could not run: ${clip(result.originalMessage ?? result.shortMessage ?? "unknown error")}`;
}

/**
 * The line of a Node process's stderr that says what went wrong: the `Name: message` line Node
 * prints for an uncaught error (or V8's `FATAL ERROR:` line), else the last line that is not a
 * stack frame or Node's closing banner (what a script printed about its own failure); null when
 * it printed nothing.
 */
export function errorLine(stderr: string): string | null {
  const lines = stderr.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
  const named = lines.find((line) => /^(?:[A-Z][\w$]*)?Error(?: \[[^\]]+\])?: \S/.test(line) || line.startsWith("FATAL ERROR: "));
  const last = lines.filter((line) => !/^(?:at |Node\.js v\d|\(Use `node --trace)/.test(line)).at(-1);
  const line = named ?? last;
  return line === undefined ? null : clip(line);
}

function clip(line: string): string {
  return line.length <= LINE_CHARS ? line : `${line.slice(0, LINE_CHARS - 1)}…`;
}
