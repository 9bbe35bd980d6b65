/**
 * @module The Connect view: this node and the other voters, whether each answers `GET /health`
 * and the round-trip time (checked every 2 s); the devices paired with this node (the home node a
 * device dials is checked too) with their last contact and the commands pending each way; and the
 * exchange relationships with other people's nodes.
 */
import type { ReactElement } from "react";
import { createElement as h } from "react";
import { fieldAllows, type Filter, wordsMatch } from "../filter.ts";
import type { ConnectTarget } from "../cluster.ts";
import { type Column, ago, cell, clockTime, dateTime, duration, heading, layout, row, shortDid } from "../format.ts";
import type { Snapshot } from "../snapshot.ts";
import type { Glyphs } from "../terminal.ts";
import { type Line, type ViewModel, type ViewProps, ViewBody } from "./view-body.ts";

const columns: readonly Column[] = [
  { title: "KIND", width: 12 },
  { title: "NODE", width: 20, flex: true },
  { title: "ADDRESS", width: 22, flex: true },
  { title: "ANSWERS", width: 7 },
  { title: "RTT", width: 8, align: "right" },
];

/** The words a bare filter word is matched against: kind, did, address and, for a peer, its name and role. */
function haystack(target: ConnectTarget): string {
  const extra = target.kind === "device" ? `${target.device.name} ${target.device.role}` : target.kind === "relationship" ? target.relationship.name : "";
  return `${target.kind} ${target.id ?? ""} ${target.url ?? ""} ${extra}`;
}

/** A paired device's or relationship's lines under its row: name, pairing, last contact, pending commands. */
function peerLines(target: ConnectTarget, now: number): string[] {
  const contact = (at: number | null) => (at === null ? "no contact yet" : `last contact ${ago(at, now)}`);
  if (target.kind === "device") {
    const d = target.device;
    const state = d.revokedAt === null ? `paired ${dateTime(d.pairedAt).slice(0, 10)}` : `revoked ${dateTime(d.revokedAt).slice(0, 10)}`;
    const pending = d.pendingIn === null || d.pendingOut === null ? "pending unknown until a first exchange" : `pending in ${d.pendingIn}, out ${d.pendingOut}`;
    return [`${d.name} (${d.role}), ${state}, ${contact(d.lastContact)}`, pending];
  }
  if (target.kind === "relationship") {
    const r = target.relationship;
    return [`${r.name}, added ${dateTime(r.addedAt).slice(0, 10)}, ${contact(r.lastContact)}`];
  }
  return [];
}

const indent = " ".repeat(13);

export function connectModel(snapshot: Snapshot, filter: Filter, width: number, glyphs: Glyphs): ViewModel {
  const shown = snapshot.connect.filter((c) => fieldAllows(filter, "kind", c.target.kind) && wordsMatch(filter, haystack(c.target)));
  const rows: Line[] = [];
  const nodeWidth = layout(columns, width)[1] ?? 20;
  for (const { target, probe } of shown) {
    const answers = probe === null ? glyphs.dash : probe.answers ? "yes" : "no";
    const rtt = probe?.rttMs === null || probe === null ? glyphs.dash : duration(probe.rttMs);
    const address = target.url ?? (target.kind === "device" ? "dials this node" : "address unknown");
    const revoked = target.kind === "device" && target.device.revokedAt !== null;
    rows.push({ text: row(columns, [target.kind, shortDid(target.id, nodeWidth, glyphs), address, answers, rtt], width, glyphs), tone: probe === null || revoked ? "dim" : probe.answers ? "accepted" : "refused" });
    for (const line of peerLines(target, snapshot.at)) rows.push({ text: cell(`${indent}${line}`, width, glyphs), tone: revoked ? "dim" : "plain" });
    const lastError = target.kind === "device" ? target.device.lastError : target.kind === "relationship" ? target.relationship.lastError : null;
    if (lastError !== null) rows.push({ text: cell(`${indent}last error: ${lastError}`, width, glyphs), tone: "warn" });
    if (probe !== null && !probe.answers && probe.error !== null) rows.push({ text: cell(`${indent}${probe.error}`, width, glyphs), tone: "refused" });
    else if (probe?.answers && probe.status !== 200) rows.push({ text: cell(`${indent}answers, but /health says ${probe.status}`, width, glyphs), tone: "warn" });
  }
  const last = snapshot.connect.map((c) => c.probe?.at ?? 0).reduce((a, b) => Math.max(a, b), 0);
  const why = snapshot.nodeUrl === null ? (snapshot.node.running ? "the node has not said where it listens yet" : "the node is stopped") : `checked every 2 s${last > 0 ? `, last at ${clockTime(last).slice(0, 8)} UTC` : ""}`;
  return {
    headings: [
      { text: cell(`Connect: ${shown.length} node${shown.length === 1 ? "" : "s"}${devicesNote(snapshot)}; ${why}${filter.text === "" ? "" : `  (filter: ${filter.text})`}`, width, glyphs), tone: "title" },
      { text: heading(columns, width, glyphs), tone: "dim" },
    ],
    rows,
    empty: "  no node known yet",
  };
}

/** `, 2 paired devices` when any are paired (revoked ones not counted), so the title says it at a glance. */
function devicesNote(snapshot: Snapshot): string {
  const n = snapshot.connect.filter((c) => c.target.kind === "device" && c.target.device.revokedAt === null).length;
  return n === 0 ? "" : ` (${n} paired device${n === 1 ? "" : "s"})`;
}

export function ConnectView(props: ViewProps): ReactElement {
  return h(ViewBody, { model: connectModel(props.snapshot, props.filter, props.width, props.glyphs), height: props.height, scroll: props.scroll, width: props.width });
}
