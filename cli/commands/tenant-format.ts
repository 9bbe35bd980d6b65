/** @module The human-readable forms of `charter tenant show`, `tenant list` and `contracts list`. */
import type { ContractRow, NamespaceInstall, TenantDescription, TenantSummary } from "../../shared/protocol/admin.ts";

function section(title: string, lines: readonly string[]): string[] {
  return [title, ...(lines.length === 0 ? ["  (none)"] : lines.map((l) => `  ${l}`))];
}

/** Space-separated columns padded to the widest cell of each. */
export function columns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  "));
}

const by = (installedBy: string | null) => installedBy ?? "operator";

function installCells(n: NamespaceInstall): string[] {
  return [n.namespace, n.version, n.artifact, n.status, n.installedAt, `by ${by(n.installedBy)}`];
}

/** `tenant show`: identity, then one section each for owners, members, delegations, namespaces and the dids key rotations retired. */
export function formatTenant(t: TenantDescription, now: number): string {
  const delegations = columns(
    t.delegations.map((d) => {
      const until = d.until === null ? "no end" : `until ${d.until}`;
      return [d.did, d.scope, Date.parse(d.until ?? "") <= now ? `${until} (expired)` : until];
    }),
  );
  return [
    `tenant   ${t.handle}`,
    `did      ${t.did}`,
    `created  ${t.createdAt}`,
    ...section("owners", t.owners),
    ...section("members", t.members),
    ...section("delegations", delegations),
    ...section("namespaces", columns(t.namespaces.map(installCells))),
    ...section("retired dids", columns(t.retiredDids.map((r) => [r.did, `retired ${r.retiredAt}`]))),
    "",
  ].join("\n");
}

/** `tenant list`: one line per tenant. */
export function formatTenantList(tenants: readonly TenantSummary[]): string {
  if (tenants.length === 0) return "no tenants\n";
  const rows = tenants.map((t) => [t.handle, t.did, `owners ${t.owners}`, `members ${t.members}`, `namespaces ${t.namespaces}`]);
  return `${columns(rows).join("\n")}\n`;
}

/** `contracts list`: one line per install. */
export function formatContracts(rows: readonly ContractRow[]): string {
  if (rows.length === 0) return "no contracts installed\n";
  return `${columns(rows.map((r) => [r.tenant, ...installCells(r)])).join("\n")}\n`;
}
