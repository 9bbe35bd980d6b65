/**
 * @module What the model is told of a message's attachments: each file's name, type and size, and
 * for a small text file (text/*, JSON, XML, YAML, CSV, Markdown; at most MAX_READ_BYTES) its
 * contents, cut at MAX_FILE_CHARS; at most MAX_TOTAL_CHARS for all of one message's files. A file
 * deleted since is said to be gone. Binary files are named only.
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { PersonReader } from "../personal/person-reader.ts";
import type { BlobStore } from "./blob-store.ts";
import { findFile } from "./library-records.ts";

const MAX_READ_BYTES = 64 * 1024;
const MAX_FILE_CHARS = 8000;
const MAX_TOTAL_CHARS = 24_000;
const TEXT_TYPE = /^(?:text\/|application\/(?:json|xml|x-yaml|yaml|csv|x-ndjson|javascript|x-sh|sql)\b|application\/[\w.+-]+\+(?:json|xml)\b)/iu;

/** The part of a person's message that tells the model about attachments `ids` ("" for none). */
export function attachmentsText(reader: PersonReader, blobs: Pick<BlobStore, "path" | "size">, ids: readonly string[]): string {
  if (ids.length === 0) return "";
  const parts: string[] = [];
  let budget = MAX_TOTAL_CHARS;
  for (const id of ids) {
    const file = findFile(reader, id);
    if (file === null) {
      parts.push(`Attached file ${id}: deleted since.`);
      continue;
    }
    const head = `Attached file "${file.name}" (${file.type}, ${file.size} bytes, library id ${file.id})`;
    if (!TEXT_TYPE.test(file.type) || file.size > MAX_READ_BYTES || budget <= 0 || blobs.size(file.sha256) === null) {
      parts.push(`${head}.`);
      continue;
    }
    const text = readText(blobs.path(file.sha256), file.size);
    const cut = Math.min(MAX_FILE_CHARS, budget);
    budget -= Math.min(text.length, cut);
    parts.push(`${head}:\n<<<\n${text.slice(0, cut)}${text.length > cut ? "\n[… cut]" : ""}\n>>>`);
  }
  return parts.join("\n\n");
}

function readText(path: string, size: number): string {
  const fd = openSync(path, "r");
  try {
    const bytes = Buffer.alloc(Math.min(size, MAX_READ_BYTES));
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, read));
  } finally {
    closeSync(fd);
  }
}
