/**
 * @module The person's library files as the routes answer them: records of `std.library` `File`
 * in the personal tenant.
 */
import type { PersonReader } from "../personal/person-reader.ts";

export const LIBRARY = "std.library";
export const FILE = "File";

/** A kept file. */
export interface FileView {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
  readonly tags: readonly string[];
  readonly createdAt: string | null;
  readonly createdBy: string | null;
}

/** A file from a row of the contract's queries, or a record's state. */
export function fileView(id: string, row: Record<string, unknown>): FileView {
  const at = Number(row.created_at ?? 0);
  const creator = typeof row.creator === "string" && row.creator !== "" ? row.creator : null;
  return {
    id,
    name: String(row.name ?? ""),
    type: String(row.type ?? ""),
    size: Number(row.size ?? 0),
    sha256: String(row.sha256 ?? ""),
    tags: Array.isArray(row.tags) ? row.tags.map(String) : [],
    createdAt: at > 0 ? new Date(at).toISOString() : null,
    createdBy: creator,
  };
}

/** The kept (not deleted) file `id` of the personal tenant, or null. */
export function findFile(reader: PersonReader, id: string): FileView | null {
  const found = reader.record(undefined, LIBRARY, FILE, id);
  if (found === null || found.state.deleted === true || found.state.sha256 === "") return null;
  return fileView(id, found.state);
}
