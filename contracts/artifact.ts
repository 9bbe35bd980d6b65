/**
 * @module The artifact: canonical schema bytes + WebAssembly bytes, named by their digest.
 *
 * id = "art_" + lower-case hex SHA-256 of
 *   "charter-artifact/1\n" ‖ u64be(len(schema)) ‖ schema ‖ u64be(len(wasm)) ‖ wasm
 * where `schema` is the UTF-8 canonical JSON of the schema. The length prefixes make the split
 * between the two parts unambiguous.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.ts";
import type { Schema } from "./schema.ts";

export interface Artifact {
  readonly id: string;
  readonly schema: Schema;
  readonly schemaBytes: Uint8Array;
  readonly wasm: Uint8Array;
}

const MAGIC = "charter-artifact/1\n";

function u64be(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
}

/** The id of an artifact made of these schema and program bytes. */
export function artifactId(schemaBytes: Uint8Array, wasm: Uint8Array): string {
  const h = createHash("sha256");
  h.update(MAGIC, "utf8");
  h.update(u64be(schemaBytes.length));
  h.update(schemaBytes);
  h.update(u64be(wasm.length));
  h.update(wasm);
  return `art_${h.digest("hex")}`;
}

/** Packs a schema and its program into an artifact. */
export function makeArtifact(schema: Schema, wasm: Uint8Array): Artifact {
  const schemaBytes = new TextEncoder().encode(canonicalJson(schema));
  return { id: artifactId(schemaBytes, wasm), schema, schemaBytes, wasm };
}
