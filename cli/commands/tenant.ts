/**
 * @module `charter tenant …`: create tenants, manage their owners, members and delegations, rotate
 * their keys, show and list them. Through the running node's admin socket, or on the store itself
 * when none runs.
 */
import { runAdmin } from "../admin-client.ts";
import { existingDataDir } from "../options.ts";
import { json, parse, report, usageError } from "./admin-command.ts";
import { formatTenant, formatTenantList } from "./tenant-format.ts";

const DATA = "  --data DIR  data directory (default: $CHARTER_DATA, else ./data); it must exist";

/** The data directory must exist: `charter node`, `serve` or `identity` creates it. */
const OPERATOR = { create: false } as const;

const HELP = [
  "Usage: charter tenant <subcommand> [options]",
  "",
  "  create HANDLE --owner DID [--owner DID…]      create a tenant and print its own did:key",
  "  member add|remove TENANT DID                 give or take a member's role",
  "  owner add|remove TENANT DID                  give or take an owner's role (the last owner stays)",
  "  delegate TENANT DID --scope SCOPE [--until DATE]  grant a delegation (DATE: YYYY-MM-DD or RFC 3339)",
  "  rotate-key TENANT                            give the tenant a new key pair; print its new did:key",
  "  show TENANT [--json]                         identity, owners, members, delegations, namespaces, retired dids",
  "  list [--json]                                every tenant",
  "",
  "A handle is 2–63 characters of a–z, 0–9 and '-'. While a node runs on the data directory the",
  "change goes through its admin socket (DATA/admin.sock); otherwise it is made on the store directly.",
  "",
  DATA,
  "",
].join("\n");

const help = (usage: string, what: string, extra: string[] = []) => [`Usage: charter tenant ${usage}`, "", what, "", ...extra, DATA, ""].join("\n");

type Sub = (args: string[]) => Promise<number>;

const create: Sub = async (args) => {
  const p = parse("tenant create", args, { owner: { type: "string", multiple: true } }, 1, help("create HANDLE --owner DID [--owner DID…] [--data DIR]", "Creates a tenant with its own identity and prints its did:key.", ["  --owner DID  an owner (repeat for more; at least one)"]));
  if (typeof p === "number") return p;
  const owners = (p.values.owner as string[] | undefined) ?? [];
  if (owners.length === 0) return usageError("tenant create", "at least one --owner did:key:… is required");
  const dataDir = existingDataDir(p.values.data as string | undefined);
  if (dataDir === null) return 1;
  const result = await runAdmin(dataDir, "tenant-create", { handle: p.positionals[0] as string, owners, by: null }, OPERATOR);
  return report("tenant create", result, (t) => `${t.did}\n`);
};

function role(which: "member" | "owner"): Sub {
  return async ([action, ...args]) => {
    const name = `tenant ${which} ${action ?? ""}`.trim();
    const usage = help(`${which} add|remove TENANT DID [--data DIR]`, `Gives (add) or takes (remove) the ${which} role in TENANT.`);
    if (action === "--help" || action === "-h") return (process.stdout.write(usage), 0);
    if (action !== "add" && action !== "remove") return usageError(`tenant ${which}`, `expected 'add' or 'remove', got '${action ?? ""}'`);
    const p = parse(name, args, {}, 2, usage);
    if (typeof p === "number") return p;
    const [tenant, did] = p.positionals as [string, string];
    const dataDir = existingDataDir(p.values.data as string | undefined);
    if (dataDir === null) return 1;
    if (action === "add") {
      const result = await runAdmin(dataDir, which === "member" ? "tenant-member-add" : "tenant-owner-add", { tenant, did }, OPERATOR);
      return report(name, result, (r) => (r.added ? `${did} is now ${which === "owner" ? "an owner" : "a member"} of ${tenant}\n` : `${did} already was ${which === "owner" ? "an owner" : "a member"} of ${tenant}\n`));
    }
    const result = await runAdmin(dataDir, which === "member" ? "tenant-member-remove" : "tenant-owner-remove", { tenant, did }, OPERATOR);
    return report(name, result, (r) => (r.removed ? `${did} is no longer ${which === "owner" ? "an owner" : "a member"} of ${tenant}\n` : `${did} was not ${which === "owner" ? "an owner" : "a member"} of ${tenant}\n`));
  };
}

const delegateCommand: Sub = async (args) => {
  const usage = help("delegate TENANT DID --scope SCOPE [--until DATE] [--data DIR]", "Grants DID the delegation SCOPE in TENANT (`authorize delegate SCOPE`); granting it again sets its end anew.", [
    "  --scope SCOPE  the scope a contract names (required)",
    "  --until DATE   when it ends: YYYY-MM-DD (midnight UTC) or an RFC 3339 date-time; default: no end",
  ]);
  const p = parse("tenant delegate", args, { scope: { type: "string" }, until: { type: "string" } }, 2, usage);
  if (typeof p === "number") return p;
  const scope = p.values.scope as string | undefined;
  if (scope === undefined) return usageError("tenant delegate", "--scope SCOPE is required");
  const [tenant, did] = p.positionals as [string, string];
  const until = p.values.until as string | undefined;
  const dataDir = existingDataDir(p.values.data as string | undefined);
  if (dataDir === null) return 1;
  const result = await runAdmin(dataDir, "tenant-delegate", { tenant, did, scope, ...(until === undefined ? {} : { until }) }, OPERATOR);
  return report("tenant delegate", result, (d) => `${d.did} holds '${d.scope}' in ${tenant} ${d.until === null ? "with no end" : `until ${d.until}`}\n`);
};

const rotateKey: Sub = async (args) => {
  const usage = help("rotate-key TENANT [--data DIR]", "Gives TENANT a new key pair, and so a new did:key, and prints it. The old key is kept as\nDATA/keys/tenant-TENANT.retired-N.jwk and its did listed as retired (`tenant show`).");
  const p = parse("tenant rotate-key", args, {}, 1, usage);
  if (typeof p === "number") return p;
  const dataDir = existingDataDir(p.values.data as string | undefined);
  if (dataDir === null) return 1;
  const result = await runAdmin(dataDir, "tenant-key-rotate", { tenant: p.positionals[0] as string, by: null }, OPERATOR);
  return report("tenant rotate-key", result, (r) => `${r.did}\n`);
};

const show: Sub = async (args) => {
  const p = parse("tenant show", args, { json: { type: "boolean" } }, 1, help("show TENANT [--json] [--data DIR]", "Shows a tenant: identity, owners, members, delegations, installed namespaces and the dids key rotations retired.", ["  --json      print it as JSON"]));
  if (typeof p === "number") return p;
  const dataDir = existingDataDir(p.values.data as string | undefined);
  if (dataDir === null) return 1;
  const result = await runAdmin(dataDir, "tenant-describe", { tenant: p.positionals[0] as string }, OPERATOR);
  return report("tenant show", result, (t) => (p.values.json === true ? json(t) : formatTenant(t, Date.now())));
};

const list: Sub = async (args) => {
  const p = parse("tenant list", args, { json: { type: "boolean" } }, 0, help("list [--json] [--data DIR]", "Lists every tenant with its counts of owners, members and installed namespaces.", ["  --json      print them as JSON"]));
  if (typeof p === "number") return p;
  const dataDir = existingDataDir(p.values.data as string | undefined);
  if (dataDir === null) return 1;
  const result = await runAdmin(dataDir, "tenant-list", {}, OPERATOR);
  return report("tenant list", result, (ts) => (p.values.json === true ? json(ts) : formatTenantList(ts)));
};

const subcommands: Record<string, Sub> = { create, member: role("member"), owner: role("owner"), delegate: delegateCommand, "rotate-key": rotateKey, show, list };

export default async function tenant(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined) {
    process.stderr.write(HELP);
    return 2;
  }
  if (sub === "--help" || sub === "-h" || sub === "help") {
    process.stdout.write(HELP);
    return 0;
  }
  const run = subcommands[sub];
  if (run === undefined) return usageError("tenant", `unknown subcommand '${sub}'`);
  return run(rest);
}
