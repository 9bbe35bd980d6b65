/**
 * @module fast-check arbitraries for JSON-style contract values, as a caller may send them: Ints
 * near ±2^63 as number, bigint or string, multi-byte texts (some past their length), lists at
 * and past capacity, unset identities.
 */
import fc from "fast-check";
import type { Type } from "../ast.ts";
import { formatDate } from "../dates.ts";

export const DIDS = ["did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG", "did:key:z6Mkf5rGMoatrSj1f4CyvuHBeXJELe9RPdzo2PKGNCKVtZxP"];
export const INT64_MAX = 2n ** 63n - 1n;
export const INT64_MIN = -(2n ** 63n);

/** Ints as a caller may send them: small, near the float-safe edge, near ±2^63, as number, bigint or string. */
const intValue = fc.oneof(
  fc.integer({ min: -12, max: 12 }),
  fc.constantFrom(2 ** 53 - 1, -(2 ** 53 - 1), 3037000499, 3037000500, 4294967296),
  fc.constantFrom(INT64_MAX, INT64_MIN, INT64_MAX - 1n, INT64_MIN + 1n, 2n ** 62n, -(2n ** 62n), 2n ** 53n).map((n) => (n % 2n === 0n ? n : n.toString())),
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(String),
);

const CHARS = ["a", "b", "z", "é", "ß", "€", "ｚ", "😀", "𝄞"];
const textValue = (max: number) => fc.array(fc.constantFrom(...CHARS), { maxLength: max }).map((cs) => cs.join(""));

/** A value of type `t`; `slack` lets texts and lists run past their bounds (arguments only). */
export function valueOf(t: Type, slack: number): fc.Arbitrary<unknown> {
  switch (t.kind) {
    case "Int":
      return intValue;
    case "Bool":
      return fc.boolean();
    case "Date":
      return fc.integer({ min: -1000, max: 30000 }).map(formatDate);
    case "Enum":
      return fc.constantFrom(...t.values);
    case "Text":
      return textValue(t.len + slack);
    case "Identity":
      return fc.constantFrom(null, ...DIDS);
    case "Ref":
      return fc.constantFrom(null, "thing-1", "thing-2");
    case "List":
      return fc.array(valueOf(t.element, slack), { maxLength: t.cap + slack });
    case "Vector":
      return fc.option(fc.array(fc.constantFrom(0.5, -2, 0.1, 1e10), { minLength: t.dim, maxLength: t.dim }), { nil: null });
    case "Float":
      throw new Error("no Float values in actions");
  }
}

/** Field values within bounds, or (for arguments, now and then) past them. */
export const record = (items: readonly (readonly [string, Type])[], slack: number) =>
  fc.record(Object.fromEntries(items.map(([n, t]) => [n, slack === 0 ? valueOf(t, 0) : fc.oneof({ arbitrary: valueOf(t, 0), weight: 12 }, { arbitrary: valueOf(t, slack), weight: 1 })])));

