/**
 * @module `charter compile FILE [--wat]`: prints the artifact id (or, with --wat, the program's
 * WebAssembly text); diagnostics go to stderr and make the exit code 1.
 */
import { readContractFile, usage } from "./contract-file.ts";

const HELP = `Usage: charter compile FILE [--wat]

Compiles a contract (*.charter.md) and prints its artifact id.
  --wat    print the WebAssembly text format of the program instead
  --help   show this help
`;

export default async function compile(args: string[]): Promise<number> {
  const parsed = usage(args, ["--wat"], HELP);
  if (typeof parsed === "number") return parsed;
  const markdown = readContractFile(parsed.file);
  if (markdown === null) return 1;
  const { compileContract } = await import("../../contracts/compile.ts");
  const { formatDiagnostic } = await import("../../contracts/diagnostics.ts");
  const wat = parsed.flags.has("--wat");
  const result = compileContract(markdown, { wat });
  for (const d of result.diagnostics) process.stderr.write(`${parsed.file}: ${formatDiagnostic(markdown, d)}\n`);
  if (result.artifact === undefined) return 1;
  process.stdout.write(wat ? (result.wat ?? "") : `${result.artifact.id}\n`);
  return 0;
}
