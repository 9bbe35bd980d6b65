/**
 * @module The simulation's state machine: a key → value map fed by committed entries. Each
 * command entry is `{key, value}` as JSON. Deterministic, with a digest to compare voters and a
 * serialization for snapshots.
 */
import type { LogEntry } from "../../workers/engine/raft/index.ts";

/** One write, as carried in a command entry. */
export interface KvWrite {
  readonly key: string;
  readonly value: string;
}

/** A register per key; `index` is the last applied log index. */
export class KvMachine {
  index = 0;
  values = new Map<string, string>();

  /** Applies the next committed entry; entries must come in order without gaps. */
  apply(entry: LogEntry): void {
    if (entry.index !== this.index + 1) throw new Error(`state machine: applied ${entry.index} after ${this.index}`);
    this.index = entry.index;
    if (entry.type === "command") {
      const w = JSON.parse(entry.data) as KvWrite;
      this.values.set(w.key, w.value);
    }
  }

  /** The current value of a key ("" when never written). */
  get(key: string): string {
    return this.values.get(key) ?? "";
  }

  /** The state as a string (also the snapshot format). */
  serialize(): string {
    return JSON.stringify({ index: this.index, values: [...this.values].sort(([a], [b]) => (a < b ? -1 : 1)) });
  }

  /** Replaces the state with a snapshot's. */
  restore(data: string, index: number): void {
    const parsed = data === "" ? { index: 0, values: [] } : (JSON.parse(data) as { index: number; values: [string, string][] });
    if (parsed.index !== index) throw new Error(`snapshot says index ${parsed.index}, expected ${index}`);
    this.index = index;
    this.values = new Map(parsed.values);
  }

  /** A short fingerprint of the state. */
  digest(): string {
    return fnv(this.serialize());
  }
}

/** FNV-1a, 32 bits, as hex. */
export function fnv(text: string, seed = 0x811c9dc5): string {
  let h = seed;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}
