/**
 * @module The node's assistant settings in `DATA/accounts.db` (table `node_settings`): one JSON
 * value per name (`models`, `routing`, `autonomy`, `tools`, …). They configure the node, they are
 * not the person's records: they live beside the account, not in the replicated store. Values are
 * written whole and read whole, each at most MAX_SETTING_BYTES; every read is cached until the
 * next write (this store is the only writer of its table).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** The largest value one setting may hold, in bytes of JSON. */
export const MAX_SETTING_BYTES = 256 * 1024;

const DDL = `CREATE TABLE IF NOT EXISTS node_settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT`;

export class NodeSettings {
  readonly #get: StatementSync;
  readonly #put: StatementSync;
  readonly #cache = new Map<string, unknown>();
  readonly #now: () => number;

  constructor(db: DatabaseSync, now: () => number = Date.now) {
    db.exec(DDL);
    this.#get = db.prepare("SELECT value FROM node_settings WHERE name = ?");
    this.#put = db.prepare("INSERT INTO node_settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at");
    this.#now = now;
  }

  /** The value stored under `name`, or `fallback` when none is. */
  get<T>(name: string, fallback: T): T {
    if (!this.#cache.has(name)) {
      const row = this.#get.get(name) as { value: string } | undefined;
      this.#cache.set(name, row === undefined ? undefined : JSON.parse(row.value));
    }
    const value = this.#cache.get(name);
    return value === undefined ? fallback : (value as T);
  }

  /** Stores `value` under `name` (replacing what was there). Throws a RangeError past MAX_SETTING_BYTES. */
  put(name: string, value: unknown): void {
    const json = JSON.stringify(value);
    if (Buffer.byteLength(json) > MAX_SETTING_BYTES) throw new RangeError(`the setting ${name} would hold more than ${MAX_SETTING_BYTES} bytes`);
    this.#put.run(name, json, this.#now());
    this.#cache.set(name, JSON.parse(json));
  }
}
