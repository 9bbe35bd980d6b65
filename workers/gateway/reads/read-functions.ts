/**
 * @module The SQL functions compiled queries call, registered on every connection that runs them:
 * 64-bit integer arithmetic (int-functions.ts), `charter_distance(metric, a, b)` for `nearest`,
 * `charter_fts(text, columns)` turning a search text into an FTS5 query that cannot be malformed
 * (each word quoted, all required, restricted to the index's columns), and
 * `charter_vector(json)` turning a vector held in history JSON into its stored BLOB form (`asof`).
 */
import type { DatabaseSync } from "node:sqlite";
import { DISTANCE_FUNCTION, FTS_FUNCTION, VECTOR_FUNCTION } from "../../../contracts/query/sql-functions.ts";
import { registerIntFunctions } from "./int-functions.ts";
import { distance, floats, type Metric } from "./vector-distance.ts";


const registered = new WeakSet<DatabaseSync>();

/** The FTS5 query for `text` over `columns` (space-separated FTS5 column names); a text without words matches nothing. */
export function ftsQuery(text: string, columns: string): string {
  const words = text.normalize("NFC").match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  // The empty phrase is valid FTS5 and matches no row (MATCH NULL would be a syntax error).
  return `{${columns}} : (${words.length === 0 ? '""' : words.map((w) => `"${w}"`).join(" ")})`;
}

/** Registers the functions on `db` once. */
export function registerReadFunctions(db: DatabaseSync): void {
  if (registered.has(db)) return;
  registered.add(db);
  registerIntFunctions(db);
  const options = { deterministic: true, directOnly: true };
  db.function(DISTANCE_FUNCTION, options, (metric, a, b) => {
    if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array)) return null;
    return distance(metric as Metric, floats(a), floats(b));
  });
  db.function(FTS_FUNCTION, options, (text, columns) => ftsQuery(typeof text === "string" ? text : "", String(columns)));
  db.function(VECTOR_FUNCTION, options, (json) => {
    if (typeof json !== "string") return null;
    const values = JSON.parse(json) as number[];
    return new Uint8Array(Float32Array.from(values).buffer);
  });
}
