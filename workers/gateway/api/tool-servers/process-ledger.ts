/**
 * @module The stdio servers' process groups a gateway started, written down in
 * `DATA/run/tool-servers.json` (each group's leader pid and its start time from `/proc`), so that a
 * gateway that did not stop cleanly (killed, crashed) leaves nothing behind: the next one kills
 * every group the file names whose leader is still the same process (same pid *and* start time, so
 * a pid the system has since given to another process is left alone). A server that ends on its
 * own, or is stopped, is struck off. Linux only; elsewhere nothing is written and nothing swept.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeDirsSync } from "../../../../shared/make-dirs.ts";
import type { Logger } from "../../../../shared/log.ts";

interface Entry {
  readonly pid: number;
  readonly start: string;
}

export class ProcessLedger {
  readonly #file: string;
  readonly #log: Logger;
  readonly #entries = new Map<number, Entry>();

  constructor(file: string, log: Logger) {
    this.#file = file;
    this.#log = log;
  }

  /** Kills the groups a gateway before this one left running, then starts the file afresh. */
  sweep(): void {
    let left: unknown = [];
    try {
      left = JSON.parse(readFileSync(this.#file, "utf8"));
    } catch {
      // No file: nothing was left.
    }
    for (const entry of Array.isArray(left) ? left.slice(0, 256) : []) {
      const { pid, start } = (entry ?? {}) as Partial<Entry>;
      if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 1 || typeof start !== "string") continue;
      if (startOf(pid) !== start) continue;
      try {
        process.kill(-pid, "SIGKILL");
        this.#log.warn("killed a tool server left running by an earlier gateway", { pid });
      } catch {
        // Gone meanwhile.
      }
    }
    this.#write();
  }

  /** Writes a new group down. */
  started(pid: number): void {
    const start = startOf(pid);
    if (start === null) return;
    this.#entries.set(pid, { pid, start });
    this.#write();
  }

  /** Strikes a group off. */
  ended(pid: number): void {
    if (this.#entries.delete(pid)) this.#write();
  }

  #write(): void {
    try {
      makeDirsSync(dirname(this.#file));
      const temp = join(dirname(this.#file), `.tool-servers.${process.pid}.tmp`);
      writeFileSync(temp, JSON.stringify([...this.#entries.values()]), { mode: 0o600 });
      renameSync(temp, this.#file);
    } catch (error) {
      this.#log.warn("the tool servers' process list could not be written", { error: String(error) });
    }
  }
}

/** A process's start time (field 22 of `/proc/<pid>/stat`, in clock ticks since boot), or null when it is gone or there is no `/proc`. */
function startOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count from the last `)`.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
