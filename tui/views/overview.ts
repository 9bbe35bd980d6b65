/**
 * @module The Overview view: is the node running (its workers, each with its state and status line;
 * its address), the store as the console reads it, disk use of the data directory and free space,
 * the voters with role, leader and lag, and the most recent errors and warnings from the log.
 */
import type { ReactElement } from "react";
import { createElement as h } from "react";
import { bytes, cell, dateTime, duration, type Column, heading, layout, row, shortDid } from "../format.ts";
import { severity } from "../log-tail.ts";
import type { Snapshot } from "../snapshot.ts";
import type { Glyphs } from "../terminal.ts";
import { type Line, type ViewModel, type ViewProps, ViewBody } from "./view-body.ts";

const storeModes = {
  live: "live, read-only",
  immutable: "stopped, read as it is",
  snapshot: "stopped, read from a private copy with its WAL",
  absent: "no store yet",
};

const voterColumns: readonly Column[] = [
  { title: "VOTER", width: 24, flex: true },
  { title: "ROLE", width: 10 },
  { title: "LAG", width: 6, align: "right" },
  { title: "ANSWERS", width: 14 },
];

/** A JSON object's string values (`/health`'s `workers` and `statuses`); anything else is empty. */
function textsOf(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** Every line of the Overview for `snapshot` at `width`; the errors section scrolls. */
export function overviewModel(snapshot: Snapshot, width: number, glyphs: Glyphs): ViewModel {
  const s = snapshot;
  const label = (name: string, value: string, tone?: Line["tone"]): Line => ({ text: cell(`${name.padEnd(10)}${value}`, width, glyphs), tone });
  const self = s.connect[0]?.probe ?? null;
  const lines: Line[] = [];
  if (s.node.running) {
    lines.push(label("Node", `running, pid ${s.node.pid}, since ${s.node.startedAt === "" ? "?" : dateTime(Date.parse(s.node.startedAt))} UTC`, "accepted"));
    const states = textsOf(self?.health?.workers);
    const statuses = textsOf(self?.health?.statuses);
    // The lock lists the worker processes there are, in start order; /health also names one waiting to be restarted.
    const listed = s.node.workers;
    const workers = [...listed, ...Object.keys(states).filter((name) => !listed.some((w) => w.name === name)).map((name) => ({ name, pid: null, alive: false }))];
    if (workers.length === 0) lines.push(label("Workers", "starting"));
    // One line a worker: name, pid, state, and its status line.
    const nameWidth = Math.max(...workers.map((w) => w.name.length)) + 1;
    for (const [i, w] of workers.entries()) {
      const state = states[w.name] ?? (w.alive ? "alive" : "gone");
      const status = statuses[w.name];
      const text = `${w.name.padEnd(nameWidth)}${String(w.pid ?? glyphs.dash).padEnd(8)}${status === undefined ? state : `${state.padEnd(9)}${status}`}`;
      lines.push(label(i === 0 ? "Workers" : "", text, state === "running" || state === "alive" ? undefined : "warn"));
    }
  } else {
    lines.push(label("Node", s.node.stale === null ? "stopped" : `stopped (stale lock left by pid ${s.node.stale.pid})`, "warn"));
  }
  const address = s.nodeUrl === null ? glyphs.dash : self?.answers ? `${s.nodeUrl}  answers in ${duration(self.rttMs ?? 0)}${self.status === 200 ? "" : ` (health ${self.status})`}` : `${s.nodeUrl}  not answering${self?.error ? ` (${self.error})` : ""}`;
  lines.push(label("Address", address, self !== null && !self.answers ? "refused" : undefined));
  const active = s.contracts.filter((c) => c.status === "active").length;
  const counts = s.store.ready ? `; ${s.tenants.length} tenant${s.tenants.length === 1 ? "" : "s"}, ${active} active contract${active === 1 ? "" : "s"}, history to #${s.activity.latestSeq}` : "";
  lines.push(label("Store", `${storeModes[s.store.mode]}${counts}`));
  if (s.store.error !== null) lines.push(label("", `error: ${s.store.error}`, "error"));
  const free = s.disk.free === null ? "free space unknown" : `${bytes(s.disk.free)} free of ${bytes(s.disk.total ?? 0)}`;
  lines.push(label("Disk", `${bytes(s.disk.used)} in ${s.disk.files} files under ${s.dataDir}; ${free}`));
  lines.push({ text: "" });

  const c = s.cluster;
  const leader = c.leader === null ? "leader unknown" : `leader ${shortDid(c.leader, 30, glyphs)}${c.term === null ? "" : `, term ${c.term}`}`;
  lines.push({ text: cell(`Voters (${c.voters.length}; ${leader})`, width, glyphs), tone: "heading" });
  lines.push({ text: heading(voterColumns, width, glyphs), tone: "dim" });
  if (c.voters.length === 0) lines.push({ text: cell("  none known: the node has no identity yet", width, glyphs), tone: "dim" });
  for (const v of c.voters) {
    const probe = s.connect.find((x) => x.target.id === v.id)?.probe ?? (v.self ? self : null);
    const answers = probe === null ? glyphs.dash : probe.answers ? `yes, ${duration(probe.rttMs ?? 0)}` : "no";
    const room = (layout(voterColumns, width)[0] ?? 24) - (v.self ? 12 : 0);
    const name = `${shortDid(v.id, room, glyphs)}${v.self ? " (this node)" : ""}`;
    lines.push({ text: row(voterColumns, [name, v.role ?? glyphs.dash, v.lag === null ? glyphs.dash : String(v.lag), answers], width, glyphs) });
  }
  lines.push({ text: "" });

  const errors = s.logs.filter((e) => severity(e.level) >= severity("warn"));
  const rows: Line[] = errors
    .slice(-50)
    .reverse()
    .map((e) => ({ text: cell(`${e.t.slice(11, 19)} ${e.level.toUpperCase().padEnd(5)} ${e.component.padEnd(8)} ${e.msg}${e.fields === "" ? "" : `  ${e.fields}`}`, width, glyphs), tone: e.level === "error" ? "error" : "warn" }));
  lines.push({ text: cell(`Recent errors and warnings (${errors.length} in the log tail, newest first)`, width, glyphs), tone: "heading" });
  return { headings: lines, rows, empty: "  none" };
}

export function OverviewView(props: ViewProps): ReactElement {
  return h(ViewBody, { model: overviewModel(props.snapshot, props.width, props.glyphs), height: props.height, scroll: props.scroll, width: props.width });
}
