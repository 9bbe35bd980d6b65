/**
 * @module The frames of `/api/events`: JSON text `{"id", "kind", …fields}`, one WebSocket message
 * each. A frame is serialised once, and several are framed (RFC 6455 §5.2: a server's frames are
 * unmasked) into one buffer, so the same bytes go to every client that may see them with one
 * write per client — not one `ws.send` per client and frame.
 */

/** The JSON text of a frame of `kind`: `id` and `kind` first, then the kind's fields. */
export function frameJson(kind: string, id: string, fields: Readonly<Record<string, unknown>>): Buffer {
  return Buffer.from(JSON.stringify({ id, kind, ...fields }), "utf8");
}

/** FIN + opcode 1 (text): each payload is one whole text message. */
const FIN_TEXT = 0x81;

/** The bytes of a frame header for a payload of `length` bytes. */
function headerLength(length: number): number {
  return length < 126 ? 2 : length < 65_536 ? 4 : 10;
}

/** The text frames of `payloads` (each valid UTF-8 JSON), back to back in one buffer, as a server sends them. */
export function wireFrames(payloads: readonly Buffer[]): Buffer {
  let size = 0;
  for (const p of payloads) size += headerLength(p.length) + p.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of payloads) {
    out[at] = FIN_TEXT;
    if (p.length < 126) {
      out[at + 1] = p.length;
      at += 2;
    } else if (p.length < 65_536) {
      out[at + 1] = 126;
      out.writeUInt16BE(p.length, at + 2);
      at += 4;
    } else {
      out[at + 1] = 127;
      out.writeBigUInt64BE(BigInt(p.length), at + 2);
      at += 10;
    }
    p.copy(out, at);
    at += p.length;
  }
  return out;
}
