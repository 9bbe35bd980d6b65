/**
 * @module The Connect view: this node, the other voters and the trusted nodes it names, whether
 * each answers `GET /health`, and the round-trip time. Checked every 2 s.
 */
import type { ReactElement } from "react";
import { createElement as h } from "react";
import { fieldAllows, type Filter, wordsMatch } from "../filter.ts";
import { type Column, cell, clockTime, duration, heading, layout, row, shortDid } from "../format.ts";
import type { Snapshot } from "../snapshot.ts";
import type { Glyphs } from "../terminal.ts";
import { type Line, type ViewModel, type ViewProps, ViewBody } from "./view-body.ts";

const columns: readonly Column[] = [
  { title: "KIND", width: 9 },
  { title: "NODE", width: 20, flex: true },
  { title: "ADDRESS", width: 22, flex: true },
  { title: "ANSWERS", width: 7 },
  { title: "RTT", width: 8, align: "right" },
];

export function connectModel(snapshot: Snapshot, filter: Filter, width: number, glyphs: Glyphs): ViewModel {
  const shown = snapshot.connect.filter((c) => fieldAllows(filter, "kind", c.target.kind) && wordsMatch(filter, `${c.target.kind} ${c.target.id ?? ""} ${c.target.url ?? ""}`));
  const rows: Line[] = [];
  const nodeWidth = layout(columns, width)[1] ?? 20;
  for (const { target, probe } of shown) {
    const answers = probe === null ? glyphs.dash : probe.answers ? "yes" : "no";
    const rtt = probe?.rttMs === null || probe === null ? glyphs.dash : duration(probe.rttMs);
    rows.push({ text: row(columns, [target.kind, shortDid(target.id, nodeWidth, glyphs), target.url ?? "address unknown", answers, rtt], width, glyphs), tone: probe === null ? "dim" : probe.answers ? "accepted" : "refused" });
    if (probe !== null && !probe.answers && probe.error !== null) rows.push({ text: cell(`          ${probe.error}`, width, glyphs), tone: "refused" });
    else if (probe?.answers && probe.status !== 200) rows.push({ text: cell(`          answers, but /health says ${probe.status}`, width, glyphs), tone: "warn" });
  }
  const last = snapshot.connect.map((c) => c.probe?.at ?? 0).reduce((a, b) => Math.max(a, b), 0);
  const why = snapshot.nodeUrl === null ? (snapshot.node.running ? "the node has not said where it listens yet" : "the node is stopped") : `checked every 2 s${last > 0 ? `, last at ${clockTime(last).slice(0, 8)} UTC` : ""}`;
  return {
    headings: [
      { text: cell(`Connect: ${shown.length} node${shown.length === 1 ? "" : "s"}; ${why}${filter.text === "" ? "" : `  (filter: ${filter.text})`}`, width, glyphs), tone: "title" },
      { text: heading(columns, width, glyphs), tone: "dim" },
    ],
    rows,
    empty: "  no node known yet",
  };
}

export function ConnectView(props: ViewProps): ReactElement {
  return h(ViewBody, { model: connectModel(props.snapshot, props.filter, props.width, props.glyphs), height: props.height, scroll: props.scroll, width: props.width });
}
