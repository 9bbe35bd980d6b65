/**
 * @module What the operator commands (`tenant`, `install`, `contracts`) share: parsing their
 * arguments with one-line usage errors (exit 2), and turning an admin answer into output or a
 * one-line error (exit 1).
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { AdminResult } from "../../shared/protocol/admin.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Options every operator command takes. */
export const COMMON: Options = { data: { type: "string" }, help: { type: "boolean", short: "h" } };

export interface Parsed {
  readonly values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  readonly positionals: string[];
}

/**
 * Parses `args` for command `name` expecting exactly `arity` positionals. Prints `help` (exit 0) or a
 * one-line usage error (exit 2) and returns the exit code instead when parsing ends the command.
 */
export function parse(name: string, args: string[], options: Options, arity: number, help: string): Parsed | number {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...COMMON, ...options }, strict: true, allowPositionals: true });
  } catch (error) {
    return usageError(name, (error as Error).message.split("\n")[0] as string);
  }
  if (parsed.values.help === true) {
    process.stdout.write(help);
    return 0;
  }
  if (parsed.positionals.length !== arity) {
    return usageError(name, `expected ${arity} argument${arity === 1 ? "" : "s"}, got ${parsed.positionals.length}`);
  }
  return parsed;
}

/** Prints `charter NAME: MESSAGE (run …--help)` and answers exit code 2. */
export function usageError(name: string, message: string): number {
  process.stderr.write(`charter ${name}: ${message} (run \`charter ${name} --help\`)\n`);
  return 2;
}

/** Prints the value with `print` (exit 0) or the error in one line (exit 1). */
export function report<T>(name: string, result: AdminResult<T>, print: (value: T) => string): number {
  if (!result.ok) {
    process.stderr.write(`charter ${name}: ${result.error.message} (${result.error.code})\n`);
    return 1;
  }
  process.stdout.write(print(result.value));
  return 0;
}

/** Pretty JSON with a final newline, for `--json`. */
export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
