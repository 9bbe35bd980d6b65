/**
 * @module Per-type encoders and decoders between JSON-style values and the memory slots described
 * in `layout.ts`. Built once per type and slot when an artifact loads, so executing an action only
 * runs these small closures over typed arrays that stay valid (the memory never grows).
 */
import type { Type } from "../ast.ts";
import { formatDate, parseDate } from "../dates.ts";
import { IDENTITY_BYTES, strideOf } from "../layout.ts";
import { normalizeInt, readInt, writeInt } from "./ints.ts";

/** Typed views over the instance's memory. */
export interface Views {
  readonly u8: Uint8Array;
  readonly i32: Int32Array;
  readonly u32: Uint32Array;
  readonly f32: Float32Array;
}

export function viewsOf(memory: WebAssembly.Memory): Views {
  const b = memory.buffer;
  return { u8: new Uint8Array(b), i32: new Int32Array(b), u32: new Uint32Array(b), f32: new Float32Array(b) };
}

/** Writes `value` into the slot at byte address `a`; returns a problem's message, or null. */
export type Writer = (value: unknown, a: number) => string | null;
/** Reads the value held by the slot at byte address `a`. */
export type Reader = (a: number) => unknown;

/**
 * `argument`: over-long texts and over-full lists are written so the program refuses them
 * (`text_too_long`, `list_full`); `state`: they are problems (a state never holds them).
 */
export type Mode = "argument" | "state";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SUBJECT = /^[A-Za-z0-9._:-]{1,128}$/;

export function writerFor(t: Type, v: Views, mode: Mode): Writer {
  switch (t.kind) {
    case "Int":
      return (x, a) => (writeInt(v.i32, a >> 2, x) ? null : "must be a 64-bit integer (a number, or a decimal string beyond 2^53)");
    case "Bool":
      return (x, a) => {
        if (typeof x !== "boolean") return "must be true or false";
        v.i32[a >> 2] = x ? 1 : 0;
        return null;
      };
    case "Date":
      return (x, a) => {
        const days = typeof x === "string" ? parseDate(x) : null;
        if (days === null) return "must be a date written YYYY-MM-DD";
        v.i32[a >> 2] = days;
        return null;
      };
    case "Enum": {
      const index = new Map(t.values.map((name, i) => [name, i]));
      const message = `must be one of ${t.values.join(", ")}`;
      return (x, a) => {
        const i = typeof x === "string" ? index.get(x) : undefined;
        if (i === undefined) return message;
        v.i32[a >> 2] = i;
        return null;
      };
    }
    case "Text":
      return textWriter(t.len, v, mode);
    case "Identity":
      return asciiWriter(v, (s) => s.startsWith("did:key:") && s.length <= IDENTITY_BYTES, `must be a did:key identity of at most ${IDENTITY_BYTES} characters, or null`);
    case "Ref":
      return asciiWriter(v, (s) => SUBJECT.test(s), "must be a subject (1–128 of A-Z a-z 0-9 . _ : -), or null");
    case "List":
      return listWriter(t.element, t.cap, v, mode);
    case "Vector":
      return (x, a) => {
        if (x === null) {
          v.u32[a >> 2] = 0;
          return null;
        }
        if (!Array.isArray(x) || x.length !== t.dim || !x.every((n) => typeof n === "number" && Number.isFinite(n))) return `must be ${t.dim} numbers, or null`;
        v.u32[a >> 2] = 1;
        v.f32.set(x as number[], (a >> 2) + 1);
        return null;
      };
    case "Float":
      throw new Error("Float values exist only in query results");
  }
}

function textWriter(len: number, v: Views, mode: Mode): Writer {
  const max = 4 * len;
  const tooLong = `must be at most ${len} characters`;
  const fits = (a: number, bytes: number, cps: number): string | null => {
    v.u32[a >> 2] = bytes;
    v.u32[(a >> 2) + 1] = cps;
    return mode === "state" && cps > len ? tooLong : null;
  };
  return (x, a) => {
    if (typeof x !== "string") return "must be a string";
    const n = x.length;
    const u8 = v.u8;
    const base = a + 8;
    if (n <= max) {
      let i = 0;
      for (; i < n; i++) {
        const c = x.charCodeAt(i);
        if (c > 127) break;
        u8[base + i] = c;
      }
      if (i === n) return fits(a, n, n);
      if (!x.isWellFormed()) return "must be well-formed Unicode text";
      const r = encoder.encodeInto(x, u8.subarray(base, base + max));
      if (r.read === n) {
        let cps = 0;
        for (let k = base, end = base + r.written; k < end; k++) if (((u8[k] as number) & 0xc0) !== 0x80) cps++;
        return fits(a, r.written, cps);
      }
    } else if (!x.isWellFormed()) return "must be well-formed Unicode text";
    // More UTF-8 bytes than 4·len: certainly more than len code points.
    if (mode === "state") return tooLong;
    return fits(a, 0, len + 1);
  };
}

function asciiWriter(v: Views, valid: (s: string) => boolean, message: string): Writer {
  return (x, a) => {
    if (x === null) {
      v.u32[a >> 2] = 0;
      return null;
    }
    if (typeof x !== "string" || !valid(x)) return message;
    const u8 = v.u8;
    for (let i = 0; i < x.length; i++) {
      const c = x.charCodeAt(i);
      if (c > 127) return message;
      u8[a + 4 + i] = c;
    }
    v.u32[a >> 2] = x.length + 1;
    return null;
  };
}

function listWriter(element: Type, cap: number, v: Views, mode: Mode): Writer {
  const write = writerFor(element, v, mode);
  const stride = strideOf(element);
  return (x, a) => {
    if (!Array.isArray(x)) return "must be a list";
    if (x.length > cap) {
      if (mode === "state") return `must hold at most ${cap} elements`;
      v.u32[a >> 2] = cap + 1;
      return null;
    }
    for (let i = 0; i < x.length; i++) {
      const problem = write(x[i], a + 8 + i * stride);
      if (problem !== null) return `[${i}] ${problem}`;
    }
    v.u32[a >> 2] = x.length;
    v.u32[(a >> 2) + 1] = 0;
    return null;
  };
}

export function readerFor(t: Type, v: Views): Reader {
  switch (t.kind) {
    case "Int":
      return (a) => readInt(v.i32, v.u32, a >> 2);
    case "Bool":
      return (a) => v.i32[a >> 2] !== 0;
    case "Date":
      return (a) => formatDate(v.i32[a >> 2] as number);
    case "Enum":
      return (a) => t.values[v.i32[a >> 2] as number];
    case "Text":
      return (a) => {
        const n = v.u32[a >> 2] as number;
        return n === 0 ? "" : decoder.decode(v.u8.subarray(a + 8, a + 8 + n));
      };
    case "Identity":
    case "Ref":
      return (a) => {
        const h = v.u32[a >> 2] as number;
        return h === 0 ? null : String.fromCharCode(...v.u8.subarray(a + 4, a + 3 + h));
      };
    case "List": {
      const read = readerFor(t.element, v);
      const stride = strideOf(t.element);
      return (a) => {
        const n = v.u32[a >> 2] as number;
        const out = new Array<unknown>(n);
        for (let i = 0; i < n; i++) out[i] = read(a + 8 + i * stride);
        return out;
      };
    }
    case "Vector":
      return (a) => (v.u32[a >> 2] === 0 ? null : Array.from(v.f32.subarray((a >> 2) + 1, (a >> 2) + 1 + t.dim)));
    case "Float":
      throw new Error("Float values exist only in query results");
  }
}

/** Maps an accepted input to its canonical JSON-style value (Ints become numbers or strings), or null when nothing changes. */
export function normalizerFor(t: Type): ((x: unknown) => unknown) | null {
  if (t.kind === "Int") return normalizeInt;
  if (t.kind === "List") {
    const inner = normalizerFor(t.element);
    return inner === null ? null : (x) => (x as unknown[]).map(inner);
  }
  return null;
}
