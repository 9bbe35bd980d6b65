/**
 * @module The Tenants view: each tenant's identity, owners and members, and delegations with scope
 * and expiry. Filter with `tenant:` or words (a did, a scope).
 */
import type { ReactElement } from "react";
import { createElement as h } from "react";
import { fieldAllows, type Filter, wordsMatch } from "../filter.ts";
import { cell, dateTime, shortDid } from "../format.ts";
import type { TenantDetail } from "../read-tenants.ts";
import type { Snapshot } from "../snapshot.ts";
import type { Glyphs } from "../terminal.ts";
import { type Line, type ViewModel, type ViewProps, ViewBody } from "./view-body.ts";

function searchable(t: TenantDetail): string {
  return [t.handle, t.did, ...t.owners, ...t.members, ...t.delegations.flatMap((d) => [d.did, d.scope])].join(" ");
}

export function tenantsModel(snapshot: Snapshot, filter: Filter, width: number, glyphs: Glyphs): ViewModel {
  // Expiry is judged at the snapshot's time, so a delegation running out while watching shows it.
  const expired = (until: number | null) => until !== null && until <= snapshot.at;
  const shown = snapshot.tenants.filter((t) => fieldAllows(filter, "tenant", t.handle) && wordsMatch(filter, searchable(t)));
  const rows: Line[] = [];
  const text = (s: string, tone?: Line["tone"]): Line => ({ text: cell(s, width, glyphs), tone });
  for (const t of shown) {
    rows.push(text(`${t.handle}  ${t.did}`, "heading"));
    rows.push(text(`    created ${dateTime(t.createdAt)} UTC${t.createdBy === null ? "" : ` by ${t.createdBy}`}`, "dim"));
    for (const did of t.owners) rows.push(text(`    owner     ${did}`));
    for (const did of t.members) rows.push(text(`    member    ${did}`));
    for (const d of t.delegations) {
      const until = d.until === null ? "no expiry" : `${expired(d.until) ? "expired" : "until"} ${dateTime(d.until).slice(0, 16)} UTC`;
      const rest = `  scope ${d.scope}  ${until}`;
      // The did gives way first, so scope and expiry stay readable at 80 columns.
      const did = shortDid(d.did, Math.max(10, width - 14 - rest.length), glyphs);
      rows.push(text(`    delegate  ${did}${rest}`, expired(d.until) ? "dim" : "plain"));
    }
    if (t.owners.length + t.members.length + t.delegations.length === 0) rows.push(text("    no owners, members or delegations", "dim"));
  }
  const roles = shown.reduce((n, t) => n + t.owners.length + t.members.length, 0);
  const delegations = shown.reduce((n, t) => n + t.delegations.length, 0);
  return {
    headings: [{ text: cell(`Tenants: ${shown.length} shown, ${roles} owners and members, ${delegations} delegations${filter.text === "" ? "" : `  (filter: ${filter.text})`}`, width, glyphs), tone: "title" }],
    rows,
    empty: snapshot.store.ready ? "  no tenant yet (charter tenant create HANDLE --owner DID)" : "  no store in this data directory yet",
  };
}

export function TenantsView(props: ViewProps): ReactElement {
  return h(ViewBody, { model: tenantsModel(props.snapshot, props.filter, props.width, props.glyphs), height: props.height, scroll: props.scroll, width: props.width });
}
