/** @module The digest history records of a record's state (`before_digest`, `after_digest`): its fields in declaration order. */
import { hash } from "node:crypto";
import type { SchemaField } from "../../contracts/schema.ts";

/** Digest of a whole state, fields in declaration order. */
export function stateDigest(fields: readonly SchemaField[], state: Record<string, unknown>): string {
  return hash("sha256", JSON.stringify(fields.map((f) => state[f.name] ?? null)), "hex");
}
