/**
 * @module A tool server's answer as the model is given it: text, bounded. Text parts are joined;
 * an embedded text resource is its text; an image, audio or binary resource is named with its type
 * and size, not given; a link is named with its address; structured content with no text is its
 * JSON. At most RESULT_CHARS characters, and a result cut says so and how long it was.
 */

/** The most characters of one result the model is given. */
export const RESULT_CHARS = 16_000;
/** The most content parts read of one result. */
const MAX_PARTS = 100;

/** The model's text of a `tools/call` result (MCP's CallToolResult, unchecked: a server's). */
export function resultText(result: unknown): string {
  const r = (typeof result === "object" && result !== null ? result : {}) as { content?: unknown; structuredContent?: unknown; toolResult?: unknown };
  const parts = Array.isArray(r.content) ? r.content.slice(0, MAX_PARTS) : [];
  const texts: string[] = [];
  let length = 0;
  for (const part of parts) {
    const text = partText(part);
    texts.push(text);
    length += text.length;
    // Enough to fill the answer: the rest is cut anyway.
    if (length > RESULT_CHARS) break;
  }
  if (Array.isArray(r.content) && r.content.length > MAX_PARTS) texts.push(`[${r.content.length - MAX_PARTS} more parts left out]`);
  let text = texts.join("\n");
  if (text === "" && r.structuredContent !== undefined) text = JSON.stringify(r.structuredContent) ?? "";
  if (text === "" && r.toolResult !== undefined) text = JSON.stringify(r.toolResult) ?? "";
  return clip(text);
}

/** `text` cut to RESULT_CHARS, saying it was cut. */
export function clip(text: string): string {
  if (text.length <= RESULT_CHARS) return text;
  const note = `\n[clipped: the result had ${text.length} characters; only the first ${RESULT_CHARS - 100} are shown]`;
  return `${text.slice(0, RESULT_CHARS - note.length)}${note}`;
}

function partText(part: unknown): string {
  if (typeof part !== "object" || part === null) return "";
  const p = part as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown; resource?: unknown; uri?: unknown; name?: unknown };
  switch (p.type) {
    case "text":
      return typeof p.text === "string" ? p.text : "";
    case "image":
    case "audio":
      return `[${p.type} ${shortText(p.mimeType)}, ${typeof p.data === "string" ? Math.floor((p.data.length * 3) / 4) : 0} bytes, not shown]`;
    case "resource": {
      const res = (typeof p.resource === "object" && p.resource !== null ? p.resource : {}) as { uri?: unknown; text?: unknown; blob?: unknown; mimeType?: unknown };
      if (typeof res.text === "string") return res.text;
      return `[resource ${shortText(res.uri)} (${shortText(res.mimeType)}), ${typeof res.blob === "string" ? Math.floor((res.blob.length * 3) / 4) : 0} bytes, not shown]`;
    }
    case "resource_link":
      return `[link: ${shortText(p.name)} ${shortText(p.uri)}]`;
    default:
      return `[a part of type ${shortText(p.type)}, not shown]`;
  }
}

function shortText(x: unknown): string {
  return typeof x === "string" ? x.slice(0, 200) : "unknown";
}
