/**
 * @module The Contracts view: every installed artifact per tenant — namespace, version, artifact
 * id, status, installed when and by whom — active first within a namespace. Filter with
 * `tenant:`, `namespace:`, `status:` or words.
 */
import type { ReactElement } from "react";
import { createElement as h } from "react";
import { fieldAllows, type Filter, wordsMatch } from "../filter.ts";
import { type Column, dateTime, heading, layout, row, shortDid } from "../format.ts";
import type { Snapshot } from "../snapshot.ts";
import type { Glyphs } from "../terminal.ts";
import { type Line, type ViewModel, type ViewProps, ViewBody } from "./view-body.ts";

const columns: readonly Column[] = [
  { title: "TENANT", width: 8 },
  { title: "NAMESPACE", width: 14, flex: true },
  { title: "VERSION", width: 7 },
  { title: "ARTIFACT", width: 12 },
  { title: "STATUS", width: 8 },
  { title: "INSTALLED (UTC)", width: 16 },
  { title: "BY", width: 8, flex: true },
];

export function contractsModel(snapshot: Snapshot, filter: Filter, width: number, glyphs: Glyphs): ViewModel {
  const shown = snapshot.contracts.filter(
    (c) =>
      fieldAllows(filter, "tenant", c.tenant) &&
      fieldAllows(filter, "namespace", c.namespace) &&
      fieldAllows(filter, "status", c.status) &&
      wordsMatch(filter, `${c.tenant} ${c.namespace} ${c.version} ${c.artifact} ${c.status} ${c.installedBy ?? ""}`),
  );
  const byWidth = layout(columns, width)[6] ?? 8;
  const active = shown.filter((c) => c.status === "active").length;
  const rows: Line[] = shown.map((c) => ({
    text: row(columns, [c.tenant, c.namespace, c.version, c.artifact, c.status, dateTime(c.installedAt).slice(0, 16), shortDid(c.installedBy, byWidth, glyphs)], width, glyphs),
    tone: c.status === "active" ? "plain" : "dim",
  }));
  return {
    headings: [
      { text: `Installed contracts: ${shown.length} shown, ${active} active${filter.text === "" ? "" : `  (filter: ${filter.text})`}`, tone: "title" },
      { text: heading(columns, width, glyphs), tone: "dim" },
    ],
    rows,
    empty: snapshot.store.ready ? "  no contract installed (charter install FILE --tenant T)" : "  no store in this data directory yet",
  };
}

export function ContractsView(props: ViewProps): ReactElement {
  return h(ViewBody, { model: contractsModel(props.snapshot, props.filter, props.width, props.glyphs), height: props.height, scroll: props.scroll, width: props.width });
}
