/** @module `charter contracts list [--tenant T] [--json]`: the installed contracts, active first per namespace. */
import { runAdmin } from "../admin-client.ts";
import { dataDirFrom } from "../options.ts";
import { json, parse, report, usageError } from "./admin-command.ts";
import { formatContracts } from "./tenant-format.ts";

const HELP = `Usage: charter contracts list [--tenant TENANT] [--json] [--data DIR]

Lists installed contracts: tenant, namespace, version, artifact, status, when and by whom.

  --tenant TENANT  only this tenant's
  --json           print them as JSON
  --data DIR       data directory (default: $CHARTER_DATA, else ./data)
`;

export default async function contracts(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "--help" || sub === "-h" || sub === "help") {
    process.stdout.write(HELP);
    return 0;
  }
  if (sub !== "list") return usageError("contracts", sub === undefined ? "expected a subcommand: list" : `unknown subcommand '${sub}'`);
  const p = parse("contracts list", rest, { tenant: { type: "string" }, json: { type: "boolean" } }, 0, HELP);
  if (typeof p === "number") return p;
  const tenant = p.values.tenant as string | undefined;
  const result = await runAdmin(dataDirFrom(p.values.data as string | undefined), "contracts-list", tenant === undefined ? {} : { tenant });
  return report("contracts list", result, (rows) => (p.values.json === true ? json(rows) : formatContracts(rows)));
}
