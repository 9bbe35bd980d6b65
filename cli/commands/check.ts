/** @module `charter check FILE`: prints a contract's diagnostics (none: silent, exit 0; any: exit 1). */
import { readContractFile, usage } from "./contract-file.ts";

const HELP = `Usage: charter check FILE

Parses and type-checks a contract (*.charter.md) and prints its diagnostics.
  --help   show this help
`;

export default async function check(args: string[]): Promise<number> {
  const parsed = usage(args, [], HELP);
  if (typeof parsed === "number") return parsed;
  const markdown = readContractFile(parsed.file);
  if (markdown === null) return 1;
  const { analyze } = await import("../../contracts/front.ts");
  const { formatDiagnostic } = await import("../../contracts/diagnostics.ts");
  const { diagnostics } = analyze(markdown);
  for (const d of diagnostics) process.stdout.write(`${parsed.file}: ${formatDiagnostic(markdown, d)}\n`);
  return diagnostics.length > 0 ? 1 : 0;
}
