/**
 * @module The size limits of a contract: how long a Text, how large a List or Vector
 * may be declared, and how much WebAssembly memory its program may reserve. The checker reports
 * every limit (`check/resolve-type.ts`, `check/memory.ts`); the code generator only asserts the
 * total, since a program over it means the checker's bound is wrong.
 *
 * The memory is fixed when an artifact loads (`layout.pages`) and held for as long as it is loaded,
 * so the limits keep it modest: a state of at most 1 MiB (it is copied in and out on every call and
 * stored per record), arguments of at most 1 MiB, and at most 8 MiB in all (128 pages).
 */

/** Largest `len` of a Text: 65536 code points, a slot of 256 KiB (4 bytes per code point at most). */
export const MAX_TEXT_LEN = 65536;
/** Largest `cap` of a List (the state limit usually binds first for large elements). */
export const MAX_LIST_CAP = 65536;
/** Largest `dim` of a Vector: every common embedding fits (384 … 3072). */
export const MAX_VECTOR_DIM = 4096;

/** Largest state slot area of one aggregate, in bytes. */
export const MAX_STATE_BYTES = 1 << 20;
/** Largest argument area of one action, in bytes. */
export const MAX_ARGS_BYTES = 1 << 20;
/** Largest memory a program may reserve, in bytes: context, state, staged state, arguments, literals, arena. */
export const MAX_MEMORY_BYTES = 8 << 20;

/** `1 MiB (1048576 bytes)`: a limit as the diagnostics print it. */
export function formatBytes(bytes: number): string {
  const mib = bytes / (1 << 20);
  return Number.isInteger(mib) ? `${mib} MiB (${bytes} bytes)` : `${bytes} bytes`;
}
