/**
 * @module Telling the console when the data directory changed, without polling the CPU busy:
 * inotify (`fs.watch`) on the directory (the store, its WAL, the lock) and on `logs/`, merged
 * over a short window so a burst of commits costs one refresh; and a 1 s tick as a fallback for
 * filesystems where watching reports nothing (network mounts) — the console answers a tick with a
 * `PRAGMA data_version` and a few stats, not a reload.
 */
import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";

/** What changed: the store file or its WAL, the lock (a node started or stopped), the logs, or a tick. */
export type Change = "store" | "lock" | "logs" | "tick";

export interface WatchOptions {
  /** How long changes are gathered before one call (the refresh latency it adds). */
  readonly windowMs?: number;
  readonly tickMs?: number;
}

/** Calls `onChange` with the kinds of change gathered over each window; returns the stop function. */
export function watchChanges(dataDir: string, onChange: (changes: ReadonlySet<Change>) => void, options: WatchOptions = {}): () => void {
  const windowMs = options.windowMs ?? 100;
  let pending = new Set<Change>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  // A window opened by the first change of a burst and closed after windowMs: unlike a debounce,
  // a steady stream of commits still refreshes every window.
  const note = (change: Change) => {
    if (stopped) return;
    pending.add(change);
    timer ??= setTimeout(() => {
      timer = null;
      const changes = pending;
      pending = new Set();
      onChange(changes);
    }, windowMs);
  };

  let dirWatcher: FSWatcher | null = null;
  let logsWatcher: FSWatcher | null = null;
  const watchLogs = () => {
    if (logsWatcher !== null) return;
    logsWatcher = tryWatch(join(dataDir, "logs"), () => note("logs"), () => {
      logsWatcher = null;
    });
  };
  const watchDir = () => {
    if (dirWatcher !== null) return;
    dirWatcher = tryWatch(
      dataDir,
      (filename) => {
        if (filename === null || filename.startsWith("charter.db")) note("store");
        if (filename === null || filename.startsWith("charter.lock") || filename === "node-key.jwk") note("lock");
        if (filename === null || filename === "logs") {
          watchLogs();
          note("logs");
        }
      },
      () => {
        dirWatcher = null;
      },
    );
  };
  watchDir();
  watchLogs();
  const tick = setInterval(() => {
    // A directory created after start (or recreated) gets its watcher here.
    watchDir();
    watchLogs();
    note("tick");
  }, options.tickMs ?? 1000);
  tick.unref?.();

  return () => {
    stopped = true;
    clearInterval(tick);
    if (timer !== null) clearTimeout(timer);
    dirWatcher?.close();
    logsWatcher?.close();
  };
}

/** fs.watch, or null where the path does not exist or cannot be watched (the tick covers it). */
function tryWatch(path: string, onEvent: (filename: string | null) => void, onGone: () => void): FSWatcher | null {
  try {
    const w = watch(path, { persistent: false }, (_event, filename) => onEvent(filename === null ? null : String(filename)));
    w.on("error", () => {
      w.close();
      onGone();
    });
    return w;
  } catch {
    return null;
  }
}
