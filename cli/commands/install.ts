/**
 * @module `charter install FILE --tenant T`: compile a contract here, in the CLI process (the engine
 * never loads the compiler), then install the artifact for the tenant — through the running node's
 * admin socket, or on the store directly when none runs. Prints the artifact id.
 */
import { runAdmin } from "../admin-client.ts";
import { dataDirFrom } from "../options.ts";
import { parse, report, usageError } from "./admin-command.ts";
import { readContractFile } from "./contract-file.ts";

const HELP = `Usage: charter install FILE --tenant TENANT [--data DIR]

Compiles a contract (*.charter.md) and installs it for TENANT; prints the artifact id.
Diagnostics go to stderr (exit 1). Installing the artifact already active is a no-op.

  --tenant TENANT  the tenant's handle (required)
  --data DIR       data directory (default: $CHARTER_DATA, else ./data)
`;

export default async function install(args: string[]): Promise<number> {
  const p = parse("install", args, { tenant: { type: "string" } }, 1, HELP);
  if (typeof p === "number") return p;
  const tenant = p.values.tenant as string | undefined;
  if (tenant === undefined) return usageError("install", "--tenant TENANT is required");
  const file = p.positionals[0] as string;
  const source = readContractFile(file);
  if (source === null) return 1;

  const { compileContract } = await import("../../contracts/compile.ts");
  const { formatDiagnostics } = await import("../../contracts/diagnostics.ts");
  const { artifactWire } = await import("../../contracts/artifact-wire.ts");
  const compiled = compileContract(source);
  for (const line of formatDiagnostics(source, compiled.diagnostics)) process.stderr.write(`${file}: ${line}\n`);
  if (compiled.artifact === undefined) return 1;

  const result = await runAdmin(dataDirFrom(p.values.data as string | undefined), "install", { tenant, artifact: artifactWire(compiled.artifact, source), by: null });
  return report("install", result, (r) => `${r.artifact}\n`);
}
