/**
 * @module The custom GraphQL scalars of the generated schemas. They accept and answer values exactly
 * as the REST surface does (contracts/back-end.md): `Int64` is a JSON number within ±(2^53−1),
 * otherwise a decimal string — and in a query document an integer literal of any size, or a string.
 */
import { GraphQLError, GraphQLScalarType, Kind, type ConstValueNode } from "graphql";
import { parseDate } from "../dates.ts";

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;
const DECIMAL = /^-?[0-9]{1,19}$/;
const DID_KEY = /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/;

/** A 64-bit integer as the API writes it, or null when `value` is not one. */
function int64(value: unknown): number | string | null {
  let n: bigint;
  if (typeof value === "number" && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === "bigint") n = value;
  else if (typeof value === "string" && DECIMAL.test(value)) n = BigInt(value);
  else return null;
  if (n < MIN || n > MAX) return null;
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
}

function checked<T>(value: T | null, message: string): T {
  if (value === null) throw new GraphQLError(message);
  return value;
}

const literal = (node: ConstValueNode): unknown => (node.kind === Kind.INT || node.kind === Kind.STRING ? node.value : undefined);

export const Int64 = new GraphQLScalarType<number | string, number | string>({
  name: "Int64",
  description: "A 64-bit signed integer: a number within ±(2^53−1), otherwise a decimal string.",
  coerceOutputValue: (v) => checked(int64(v), `Int64 cannot represent ${String(v)}`),
  coerceInputValue: (v) => checked(int64(v), `Int64 must be an integer within the 64-bit range (a number, or a decimal string beyond 2^53), not ${JSON.stringify(v)}`),
  coerceInputLiteral: (node) => checked(int64(literal(node)), "Int64 must be an integer literal within the 64-bit range, or a decimal string"),
});

const date = (v: unknown): string | null => (typeof v === "string" && parseDate(v) !== null ? v : null);

export const DateScalar = new GraphQLScalarType<string, string>({
  name: "Date",
  description: "A calendar date, YYYY-MM-DD.",
  coerceOutputValue: (v) => checked(date(v), `Date cannot represent ${String(v)}`),
  coerceInputValue: (v) => checked(date(v), `Date must be a date written YYYY-MM-DD, not ${JSON.stringify(v)}`),
  coerceInputLiteral: (node) => checked(date(node.kind === Kind.STRING ? node.value : undefined), "Date must be a string YYYY-MM-DD"),
});

const didKey = (v: unknown): string | null => (typeof v === "string" && DID_KEY.test(v) ? v : null);

export const DidKey = new GraphQLScalarType<string, string>({
  name: "DidKey",
  description: "An Ed25519 identity written as a did:key.",
  coerceOutputValue: (v) => checked(didKey(v), `DidKey cannot represent ${String(v)}`),
  coerceInputValue: (v) => checked(didKey(v), `DidKey must be an Ed25519 did:key, not ${JSON.stringify(v)}`),
  coerceInputLiteral: (node) => checked(didKey(node.kind === Kind.STRING ? node.value : undefined), "DidKey must be a string did:key:z6Mk…"),
});
