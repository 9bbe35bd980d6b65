/**
 * @module The Activity view: certified commands as they commit, newest first, each refusal followed
 * by its reason (code, the condition and its line, or the message). Filtering happens in the store
 * (`tenant:`, `namespace:`/`ns:`, `outcome:`, `action:`, `subject:`, `signer:`, `code:`, words).
 */
import type { ReactElement } from "react";
import { createElement as h } from "react";
import { type Column, cell, clockTime, heading, row } from "../format.ts";
import type { Refusal } from "../read-activity.ts";
import type { Snapshot } from "../snapshot.ts";
import type { Glyphs } from "../terminal.ts";
import { type Line, type ViewModel, type ViewProps, ViewBody } from "./view-body.ts";

const columns: readonly Column[] = [
  { title: "SEQ", width: 6, align: "right" },
  { title: "TIME (UTC)", width: 12 },
  { title: "OUTCOME", width: 10 },
  { title: "TENANT", width: 8 },
  { title: "NAMESPACE", width: 12, flex: true },
  { title: "ACTION", width: 12 },
  { title: "SUBJECT", width: 10, flex: true },
];

/** Where a refusal's reason starts under its command: below the outcome column. */
const REASON_INDENT = 20;

/** `text` in lines of at most `width`, broken at spaces where possible, at most `max` lines. */
export function wrap(text: string, width: number, max: number): string[] {
  const lines: string[] = [];
  let rest = text;
  while (rest.length > width && lines.length < max - 1) {
    const space = rest.lastIndexOf(" ", width);
    const cut = space > width / 2 ? space : width;
    lines.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  lines.push(rest);
  return lines;
}

/** A refusal in one line: `condition_failed at line 14: units > 0`. */
export function reasonText(reason: Refusal): string {
  const where = reason.line === null ? "" : ` at line ${reason.line}`;
  return `${reason.code}${where}: ${reason.condition ?? reason.message}`;
}

export function activityModel(snapshot: Snapshot, width: number, glyphs: Glyphs): ViewModel {
  const { entries, latestSeq } = snapshot.activity;
  const filter = snapshot.activityFilter;
  const rows: Line[] = [];
  for (const e of entries) {
    const outcome = `${e.outcome === "accepted" ? glyphs.accepted : glyphs.refused} ${e.outcome}`;
    rows.push({ text: row(columns, [String(e.seq), clockTime(e.committedAt), outcome, e.tenant, e.namespace, e.action, e.subject], width, glyphs), tone: e.outcome });
    if (e.reason === null) continue;
    const indent = " ".repeat(REASON_INDENT);
    wrap(reasonText(e.reason), width - REASON_INDENT - 2, 3).forEach((part, i) => {
      rows.push({ text: cell(`${indent}${i === 0 ? (glyphs.unicode ? "└" : "\\") : " "} ${part}`, width, glyphs), tone: "refused" });
    });
  }
  const refused = entries.filter((e) => e.outcome === "refused").length;
  const commands = `${entries.length} command${entries.length === 1 ? "" : "s"}`;
  const summary = `Activity: ${commands}, ${refused} refused, newest first; history to #${latestSeq}${filter.text === "" ? "" : " (filtered)"}`;
  return {
    headings: [
      { text: cell(summary, width, glyphs), tone: "title" },
      { text: heading(columns, width, glyphs), tone: "dim" },
    ],
    rows,
    empty: snapshot.store.ready ? (filter.text === "" ? "  no command yet" : "  no command matches the filter") : "  no store in this data directory yet",
  };
}

export function ActivityView(props: ViewProps): ReactElement {
  return h(ViewBody, { model: activityModel(props.snapshot, props.width, props.glyphs), height: props.height, scroll: props.scroll, width: props.width });
}
