/**
 * @module The Logs view: a live tail of `logs/charter.log`, newest at the bottom, one record a line.
 * Filter with `level:warn` (that level and above), `component:engine`, or words.
 */
import type { ReactElement } from "react";
import { createElement as h } from "react";
import { fieldAllows, type Filter, wordsMatch } from "../filter.ts";
import { cell } from "../format.ts";
import { severity } from "../log-tail.ts";
import type { Snapshot } from "../snapshot.ts";
import type { Glyphs } from "../terminal.ts";
import { type Line, type ViewModel, type ViewProps, ViewBody } from "./view-body.ts";

const tones: Record<string, Line["tone"]> = { error: "error", warn: "warn", debug: "dim" };

export function logsModel(snapshot: Snapshot, filter: Filter, width: number, glyphs: Glyphs): ViewModel {
  const levels = filter.fields.get("level");
  const minimum = levels === undefined ? 0 : Math.min(...levels.map((l) => severity(l.toLowerCase())));
  const shown = snapshot.logs.filter(
    (e) => severity(e.level) >= minimum && fieldAllows(filter, "component", e.component) && wordsMatch(filter, `${e.level} ${e.component} ${e.msg} ${e.fields}`),
  );
  const rows: Line[] = shown.map((e) => ({
    text: cell(`${e.t.slice(11, 23).padEnd(12)} ${e.level.toUpperCase().padEnd(5)} ${e.component.padEnd(10)} ${e.msg}${e.fields === "" ? "" : `  ${e.fields}`}`, width, glyphs),
    tone: tones[e.level] ?? "plain",
  }));
  const level = levels === undefined ? "every level" : `level ${levels.join("/")} and above`;
  return {
    headings: [{ text: cell(`Logs: ${shown.length} of the last ${snapshot.logs.length} lines of logs/charter.log, ${level}${filter.text === "" ? "" : `  (filter: ${filter.text})`}`, width, glyphs), tone: "title" }],
    rows,
    tail: true,
    empty: snapshot.logs.length === 0 ? "  the log is empty (logs/charter.log appears when the node first runs)" : "  no line matches the filter",
  };
}

export function LogsView(props: ViewProps): ReactElement {
  return h(ViewBody, { model: logsModel(props.snapshot, props.filter, props.width, props.glyphs), height: props.height, scroll: props.scroll, width: props.width });
}
