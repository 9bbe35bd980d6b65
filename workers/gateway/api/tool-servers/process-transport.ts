/**
 * @module A stdio tool server's process, as an MCP transport: spawned with execa from an argv array
 * (never a shell), with only the environment given (a few harmless variables of the node's, such as
 * PATH and HOME, then the server's own), in a process group of its own so that stopping it stops
 * whatever it started too (`npx` runs the server as its child). Newline-delimited JSON-RPC on its
 * stdin and stdout, a message at most MAX_MESSAGE_BYTES; its stderr goes to the node's log line by
 * line, each line cut, at most STDERR_LINES a minute. Every live group is killed when this
 * process exits, so a stopping node leaves no server behind.
 */
import { execa } from "execa";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../../../../shared/log.ts";
import type { ProcessLedger } from "./process-ledger.ts";

/** The largest message a server may send (a longer line closes the transport). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** A server stopped with SIGTERM is killed this long after, if it lingers. */
const KILL_AFTER_MS = 2000;
/** Stderr lines logged per server and minute, and the characters of each. */
const STDERR_LINES = 60;
const STDERR_CHARS = 500;

/** The process groups alive now, killed when this process exits. */
const live = new Set<number>();
process.once("exit", () => {
  for (const group of live) signalGroup(group, "SIGKILL");
});

export interface ProcessTransportOptions {
  readonly server: string;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly log: Logger;
  /** Hears the process's end (its exit code or signal), once. */
  readonly onExit?: (how: string) => void;
  /** Where the process group is written down while it runs (a gateway that crashed is swept after). */
  readonly ledger?: ProcessLedger;
}

export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #options: ProcessTransportOptions;
  readonly #buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  #child: ReturnType<typeof spawnServer> | null = null;
  #pid: number | null = null;
  #stderrWindow = { start: 0, lines: 0, dropped: 0 };

  constructor(options: ProcessTransportOptions) {
    this.#options = options;
  }

  /** The process's id (its group's too) while it runs. */
  get pid(): number | null {
    return this.#pid;
  }

  async start(): Promise<void> {
    const [file, ...args] = this.#options.argv;
    if (file === undefined) throw new Error("no command to run");
    const child = spawnServer(file, args, this.#options);
    this.#child = child;
    await new Promise<void>((resolve, reject) => {
      child.nodeChildProcess.once("spawn", () => resolve());
      child.nodeChildProcess.once("error", (error) => reject(error));
    });
    this.#pid = child.pid ?? null;
    if (this.#pid !== null) {
      live.add(this.#pid);
      this.#options.ledger?.started(this.#pid);
    }
    child.stdout.on("data", (chunk: Buffer) => {
      try {
        this.#buffer.append(chunk);
        for (let message = this.#buffer.readMessage(); message !== null; message = this.#buffer.readMessage()) this.onmessage?.(message);
      } catch (error) {
        // A line that is not JSON-RPC, or one past the bound: the server is not one to trust further.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        this.stop();
      }
    });
    child.stderr.setEncoding("utf8");
    let partial = "";
    child.stderr.on("data", (text: string) => {
      const lines = (partial + text).split("\n");
      partial = (lines.pop() ?? "").slice(-STDERR_CHARS);
      for (const line of lines) this.#logStderr(line);
    });
    child.stdin.on("error", (error) => this.onerror?.(error));
    void child.then((result) => {
      if (this.#pid !== null) {
        // What the server started and left behind goes with it.
        signalGroup(this.#pid, "SIGTERM");
        live.delete(this.#pid);
        this.#options.ledger?.ended(this.#pid);
      }
      this.#pid = null;
      const how = result.signal !== undefined ? `was stopped by ${result.signal}` : `exited with code ${result.exitCode ?? "?"}`;
      this.#options.onExit?.(how);
      this.onclose?.();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin === undefined || this.#pid === null) throw new Error("the tool server is not running");
    if (!stdin.write(serializeMessage(message))) await new Promise((resolve) => stdin.once("drain", resolve));
  }

  /** Stops the server's process group: SIGTERM now, SIGKILL if it lingers. */
  async close(): Promise<void> {
    const child = this.#child;
    this.stop();
    if (child !== null) await child;
  }

  /** Stops it without waiting (the node stopping): SIGTERM to the group now, SIGKILL after KILL_AFTER_MS or at this process's exit. */
  stop(): void {
    const pid = this.#pid;
    if (pid === null) return;
    this.#child?.stdin.end();
    signalGroup(pid, "SIGTERM");
    setTimeout(() => {
      if (live.has(pid)) signalGroup(pid, "SIGKILL");
    }, KILL_AFTER_MS).unref();
  }

  #logStderr(line: string): void {
    const now = Date.now();
    const window = this.#stderrWindow;
    if (now - window.start >= 60_000) {
      if (window.dropped > 0) this.#options.log.warn("tool server stderr lines dropped", { server: this.#options.server, dropped: window.dropped });
      this.#stderrWindow = { start: now, lines: 0, dropped: 0 };
    }
    if (this.#stderrWindow.lines >= STDERR_LINES) {
      this.#stderrWindow.dropped++;
      return;
    }
    this.#stderrWindow.lines++;
    if (line.trim() !== "") this.#options.log.info("tool server stderr", { server: this.#options.server, line: line.slice(0, STDERR_CHARS) });
  }
}

/** Spawns the server: its own process group, only the environment given, no shell, output streamed (never buffered). */
function spawnServer(file: string, args: readonly string[], options: Pick<ProcessTransportOptions, "env" | "cwd">) {
  return execa(file, args, {
    env: { ...getDefaultEnvironment(), ...options.env },
    extendEnv: false,
    cwd: options.cwd,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    buffer: false,
    reject: false,
    detached: true,
    cleanup: false,
    shell: false,
  });
}

/** Signals a process group (its leader's pid); one already gone is fine. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Gone already.
  }
}
