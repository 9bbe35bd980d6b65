/**
 * @module What a library file's name, tags and content type may be, checked before anything is
 * stored. A name is what the person calls the file, never a path: no `/` or `\`, no control
 * characters or NUL, not `.` or `..`, at most 255 characters. A content type is `type/subtype`
 * from the upload's `Content-Type` (a `charset` kept), `application/octet-stream` when there is
 * none. Each check answers the value or a reason, for a `400` naming the field.
 */

/** The longest name, tag, and the most tags. */
export const MAX_NAME = 255;
export const MAX_TAG = 40;
export const MAX_TAGS = 20;

/** Whether `text` has a control character (C0, NUL included, or DEL). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** A file's name, or why it is not one. */
export function fileName(value: unknown): { ok: true; value: string } | { ok: false; reason: string } {
  if (typeof value !== "string" || value.trim() === "") return { ok: false, reason: "name is required: the file's name" };
  if (value.length > MAX_NAME) return { ok: false, reason: `name is at most ${MAX_NAME} characters` };
  if (hasControl(value)) return { ok: false, reason: "name has a control character" };
  if (/[/\\]/.test(value)) return { ok: false, reason: "name is a file's name, not a path: no / or \\" };
  if (value === "." || value === "..") return { ok: false, reason: "name is not . or .." };
  return { ok: true, value };
}

/** Tags from a list (or a comma-separated text), or why they are not tags. */
export function fileTags(value: unknown): { ok: true; value: string[] } | { ok: false; reason: string } {
  const list = typeof value === "string" ? (value === "" ? [] : value.split(",")) : value;
  if (!Array.isArray(list)) return { ok: false, reason: "tags is a list of texts" };
  if (list.length > MAX_TAGS) return { ok: false, reason: `at most ${MAX_TAGS} tags` };
  const tags: string[] = [];
  for (const tag of list) {
    if (typeof tag !== "string") return { ok: false, reason: "tags is a list of texts" };
    const t = tag.trim();
    if (t === "" || t.length > MAX_TAG || hasControl(t)) return { ok: false, reason: `a tag is 1 to ${MAX_TAG} characters, no control characters` };
    if (!tags.includes(t)) tags.push(t);
  }
  return { ok: true, value: tags };
}

/** The stored content type of an upload's `Content-Type` header. */
export function contentType(header: string | undefined): string {
  if (header === undefined) return "application/octet-stream";
  const [essence = "", ...params] = header.split(";");
  const type = essence.trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(type)) return "application/octet-stream";
  const charset = params.map((p) => p.trim().toLowerCase()).find((p) => /^charset="?[a-z0-9._-]{1,40}"?$/.test(p));
  return charset === undefined ? type : `${type}; ${charset.replace(/"/g, "")}`;
}
