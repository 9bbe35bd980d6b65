/** @module Argument handling shared by the commands that take one contract file. */
import { readFileSync } from "node:fs";

/** `{file, flags}` from `FILE [flags]`, or the exit code after printing help or a usage error. */
export function usage(args: readonly string[], allowed: readonly string[], help: string): { file: string; flags: Set<string> } | number {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(help);
    return 0;
  }
  const flags = new Set(args.filter((a) => a.startsWith("--")));
  const files = args.filter((a) => !a.startsWith("--"));
  const unknown = [...flags].filter((f) => !allowed.includes(f));
  const [file] = files;
  if (unknown.length > 0 || files.length !== 1 || file === undefined) {
    process.stderr.write(unknown.length > 0 ? `charter: unknown option ${unknown[0]}\n` : "charter: expected exactly one contract file\n");
    process.stderr.write(help);
    return 2;
  }
  return { file, flags };
}

/** The file's text, or null after printing a one-line error. */
export function readContractFile(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    const reason = e instanceof Error && "code" in e ? String(e.code) : String(e);
    process.stderr.write(`charter: cannot read ${file}: ${reason}\n`);
    return null;
  }
}
