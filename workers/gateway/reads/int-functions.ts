/**
 * @module Integer arithmetic for compiled queries, with the language's semantics (reference §5):
 * 64-bit signed, and overflow or division by zero is an error — never SQLite's silent switch to a
 * floating-point result or its NULL for `x / 0`. Registered as deterministic SQL functions on the
 * reader's connection; an error aborts the statement and reaches the caller as `QueryArithmeticError`.
 */
import type { DatabaseSync } from "node:sqlite";
import { INT_FUNCTION, NEG_FUNCTION } from "../../../contracts/query/sql-functions.ts";

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;

/** A query's arithmetic failed on the stored data: `code` is `overflow` or `division_by_zero`. */
export class QueryArithmeticError extends Error {
  readonly code: "overflow" | "division_by_zero";
  constructor(code: "overflow" | "division_by_zero", op: string) {
    super(code === "overflow" ? `integer overflow in '${op}'` : "integer division by zero");
    this.code = code;
  }
}


function checked(n: bigint, op: string): bigint {
  if (n < MIN || n > MAX) throw new QueryArithmeticError("overflow", op);
  return n;
}

/** `a op b` for 64-bit integers; null when an operand is null (an unset value never reaches Int). */
export function intOp(op: string, a: bigint | null, b: bigint | null): bigint | null {
  if (a === null || b === null) return null;
  switch (op) {
    case "+":
      return checked(a + b, op);
    case "-":
      return checked(a - b, op);
    case "*":
      return checked(a * b, op);
    case "/":
      if (b === 0n) throw new QueryArithmeticError("division_by_zero", op);
      // BigInt division truncates toward zero, as i64.div_s does in the contract's WebAssembly.
      return checked(a / b, op);
    case "%":
      if (b === 0n) throw new QueryArithmeticError("division_by_zero", op);
      return a % b;
    default:
      throw new Error(`not an integer operator: ${op}`);
  }
}

/** Registers the functions on `db`. */
export function registerIntFunctions(db: DatabaseSync): void {
  const options = { deterministic: true, useBigIntArguments: true, directOnly: true };
  db.function(INT_FUNCTION, options, (op, a, b) => intOp(String(op), a as bigint | null, b as bigint | null));
  db.function(NEG_FUNCTION, options, (a) => (a === null ? null : checked(-(a as bigint), "-")));
}
