/**
 * @module `charter install FILE --tenant T`: compile a contract here, in the CLI process (the engine
 * never loads the compiler), then install the artifact for the tenant — through the running node's
 * admin socket, or on the store directly when none runs. Prints the artifact id.
 */
import type { Schema } from "../../contracts/schema.ts";
import type { AdminRequests, AdminRequestType } from "../../shared/protocol/admin.ts";
import { runAdmin } from "../admin-client.ts";
import { existingDataDir } from "../options.ts";
import { parse, report, usageError } from "./admin-command.ts";
import { readContractFile } from "./contract-file.ts";

const HELP = `Usage: charter install FILE --tenant TENANT [--data DIR]

Compiles a contract (*.charter.md) and installs it for TENANT; prints the artifact id.
Diagnostics go to stderr (exit 1). Installing the artifact already active is a no-op.

  --tenant TENANT  the tenant's handle (required)
  --data DIR       data directory (default: $CHARTER_DATA, else ./data); it must exist
`;

export default async function install(args: string[]): Promise<number> {
  const p = parse("install", args, { tenant: { type: "string" } }, 1, HELP);
  if (typeof p === "number") return p;
  const tenant = p.values.tenant as string | undefined;
  if (tenant === undefined) return usageError("install", "--tenant TENANT is required");
  const dataDir = existingDataDir(p.values.data as string | undefined);
  if (dataDir === null) return 1;
  const file = p.positionals[0] as string;
  const source = readContractFile(file);
  if (source === null) return 1;
  const admin = <K extends AdminRequestType>(type: K, body: AdminRequests[K]["request"]) => runAdmin(dataDir, type, body, { create: false });

  const { compileContract } = await import("../../contracts/compile.ts");
  const { formatDiagnostics } = await import("../../contracts/diagnostics.ts");
  const { artifactWire } = await import("../../contracts/artifact-wire.ts");
  const { previousFromSchema } = await import("../../contracts/previous-schema.ts");
  // Queries may read the tenant's other contracts and the standard library: check against them.
  const known = await admin("collections", { tenant });
  // An unknown tenant is reported after the file's own diagnostics, which matter whatever the tenant.
  const collections = known.ok ? known.value : {};
  const resolveCollection = (name: string) => (Object.hasOwn(collections, name) ? (collections[name] ?? null) : null);
  let compiled = compileContract(source, { resolveCollection });
  const upgrades = compiled.artifact?.schema.upgrades ?? null;
  if (upgrades !== null) {
    // An upgrade is checked again against the version it replaces (missing `migrate` lines, old.FIELD).
    const replaced = await admin("artifact-schema", { id: upgrades });
    if (replaced.ok) compiled = compileContract(source, { resolveCollection, previous: previousFromSchema(JSON.parse(replaced.value.schemaJson) as Schema) });
  }
  for (const line of formatDiagnostics(source, compiled.diagnostics)) process.stderr.write(`${file}: ${line}\n`);
  if (compiled.artifact === undefined) return 1;
  if (!known.ok) return report("install", known, () => "");

  const result = await admin("install", { tenant, artifact: artifactWire(compiled.artifact, source), by: null });
  if (result.ok && result.value.replaced) process.stderr.write(`upgraded ${result.value.replaced} → ${result.value.artifact}: ${result.value.migrated ?? 0} record(s) migrated\n`);
  return report("install", result, (r) => `${r.artifact}\n`);
}
