/**
 * @module The names in a vault: a vault's name and a note's path. A path is relative to its vault,
 * `/`-separated, and names a Markdown file: `.md` is added when it is left out. Nothing that could
 * reach outside the vault is a path: no absolute path, no `.` or `..` segment, no empty segment, no
 * backslash, NUL or other control character; no hidden segment either (a leading `.`: where
 * editors and the node keep their own files), and nothing overlong.
 */
import type { Result } from "../../../../shared/result.ts";

/** The longest path, in UTF-8 bytes, and the longest segment (a file name on most file systems). */
export const MAX_PATH_BYTES = 1024;
export const MAX_SEGMENT_BYTES = 255;

const VAULT = /^[a-z0-9][a-z0-9-]{0,62}$/;
// C0 and C1 controls, DEL, and the line and paragraph separators.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** `name` when it may name a vault (lower-case letters, digits, `-`; at most 63). */
export function vaultName(name: unknown): Result<string, string> {
  if (typeof name !== "string" || !VAULT.test(name)) return { ok: false, error: "a vault is named by lower-case letters, digits and -, at most 63" };
  return { ok: true, value: name };
}

/** The note path `input` names (with `.md`), or why it is not one. */
export function notePath(input: unknown): Result<string, string> {
  if (typeof input !== "string" || input.length === 0) return { ok: false, error: "a path is a non-empty string" };
  if (input.length > MAX_PATH_BYTES) return { ok: false, error: `a path is at most ${MAX_PATH_BYTES} bytes` };
  if (CONTROL.test(input)) return { ok: false, error: "a path has no control characters" };
  if (input.includes("\\")) return { ok: false, error: "a path separates folders with /, never \\" };
  if (input.startsWith("/")) return { ok: false, error: "a path is relative to its vault" };
  const path = /\.md$/iu.test(input) ? input : `${input}.md`;
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return { ok: false, error: `a path is at most ${MAX_PATH_BYTES} bytes` };
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return { ok: false, error: "a path has no empty, . or .. segment" };
    if (segment.startsWith(".")) return { ok: false, error: "a path has no hidden (.) segment" };
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) return { ok: false, error: `each name in a path is at most ${MAX_SEGMENT_BYTES} bytes` };
  }
  if (path.length <= 3) return { ok: false, error: "a note has a name before .md" };
  return { ok: true, value: path };
}

/** A folder in a vault (`""`: its top), `/`-separated, without a trailing `/`. */
export function folderPath(input: unknown): Result<string, string> {
  if (input === undefined || input === "" || input === "/") return { ok: true, value: "" };
  if (typeof input !== "string") return { ok: false, error: "a folder is a string" };
  const trimmed = input.endsWith("/") ? input.slice(0, -1) : input;
  const asNote = notePath(`${trimmed}/x.md`);
  return asNote.ok ? { ok: true, value: trimmed } : { ok: false, error: asNote.error.replace("path", "folder") };
}

/** A note's name: its file name without `.md`. */
export function noteName(path: string): string {
  const file = path.slice(path.lastIndexOf("/") + 1);
  return file.slice(0, -3);
}

/** The folder a note is in (`""` at the top). */
export function folderOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at < 0 ? "" : path.slice(0, at);
}
