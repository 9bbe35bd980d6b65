/**
 * @module `charter contracts list [--tenant T] [--json]`: the installed contracts, active first per
 * namespace; `charter contracts retire|restore NAMESPACE --tenant T`: stop and resume serving one.
 */
import { runAdmin } from "../admin-client.ts";
import { existingDataDir } from "../options.ts";
import { json, parse, report, usageError } from "./admin-command.ts";
import { formatContracts } from "./tenant-format.ts";

const HELP = `Usage: charter contracts list [--tenant TENANT] [--json] [--data DIR]
       charter contracts retire NAMESPACE --tenant TENANT [--data DIR]
       charter contracts restore NAMESPACE --tenant TENANT [--data DIR]

list     the installed contracts: tenant, namespace, version, artifact, status, when and by whom
retire   stop serving a namespace's actions and queries; its records and history stay readable to owners
restore  serve the most recently retired version again

  --tenant TENANT  only this tenant's
  --json           print them as JSON
  --data DIR       data directory (default: $CHARTER_DATA, else ./data); it must exist
`;

export default async function contracts(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "--help" || sub === "-h" || sub === "help") {
    process.stdout.write(HELP);
    return 0;
  }
  if (sub === "retire" || sub === "restore") {
    const q = parse(`contracts ${sub}`, rest, { tenant: { type: "string" } }, 1, HELP);
    if (typeof q === "number") return q;
    const tenant = q.values.tenant as string | undefined;
    if (tenant === undefined) return usageError(`contracts ${sub}`, "--tenant is required");
    const namespace = q.positionals[0] as string;
    const dataDir = existingDataDir(q.values.data as string | undefined);
    if (dataDir === null) return 1;
    const result = await runAdmin(dataDir, sub === "retire" ? "contract-retire" : "contract-restore", { tenant, namespace }, { create: false });
    return report(`contracts ${sub}`, result, (r) => `${sub === "retire" ? "retired" : "restored"} ${namespace} (${r.artifact}) for ${tenant}\n`);
  }
  if (sub !== "list") return usageError("contracts", sub === undefined ? "expected a subcommand: list, retire or restore" : `unknown subcommand '${sub}'`);
  const p = parse("contracts list", rest, { tenant: { type: "string" }, json: { type: "boolean" } }, 0, HELP);
  if (typeof p === "number") return p;
  const tenant = p.values.tenant as string | undefined;
  const dataDir = existingDataDir(p.values.data as string | undefined);
  if (dataDir === null) return 1;
  const result = await runAdmin(dataDir, "contracts-list", tenant === undefined ? {} : { tenant }, { create: false });
  return report("contracts list", result, (rows) => (p.values.json === true ? json(rows) : formatContracts(rows)));
}
