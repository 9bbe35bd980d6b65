/**
 * @module What every view renders: fixed heading lines above a scrolled window of rows, each a
 * plain string of the view's width with a tone that picks its colour. A view is a model function
 * (snapshot → lines, so the app can clamp scrolling and tests can read it) and a component.
 */
import { Box, Text } from "ink";
import { createElement as h, type ReactElement } from "react";
import type { Filter } from "../filter.ts";
import type { Snapshot } from "../snapshot.ts";
import type { Glyphs } from "../terminal.ts";

export type Tone = "plain" | "heading" | "dim" | "accepted" | "refused" | "error" | "warn" | "title";

export interface Line {
  readonly text: string;
  readonly tone?: Tone;
}

/** A view's content at one size: headings that stay, rows that scroll. */
export interface ViewModel {
  readonly headings: readonly Line[];
  readonly rows: readonly Line[];
  /** Rows scroll from the bottom (a log tail): scroll 0 shows the newest at the bottom. */
  readonly tail?: boolean;
  /** Shown when there are no rows. */
  readonly empty: string;
}

/** What a view is given: the snapshot, its own filter, its size, its scroll offset, the glyphs. */
export interface ViewProps {
  readonly snapshot: Snapshot;
  readonly filter: Filter;
  readonly width: number;
  readonly height: number;
  readonly scroll: number;
  readonly glyphs: Glyphs;
}

/** How many rows fit under the headings. */
export function pageSize(model: ViewModel, height: number): number {
  return Math.max(1, height - model.headings.length);
}

/** The largest useful scroll offset for `model` at `height`. */
export function maxScroll(model: ViewModel, height: number): number {
  return Math.max(0, model.rows.length - pageSize(model, height));
}

/** The rows visible at `scroll`, as [first index, end index). */
export function visibleRange(model: ViewModel, height: number, scroll: number): [number, number] {
  const page = pageSize(model, height);
  const offset = Math.min(Math.max(0, scroll), maxScroll(model, height));
  const first = model.tail ? Math.max(0, model.rows.length - page - offset) : offset;
  return [first, Math.min(model.rows.length, first + page)];
}

const colours: Record<Tone, { color?: string; bold?: boolean; dimColor?: boolean }> = {
  plain: {},
  title: { bold: true },
  heading: { bold: true },
  dim: { dimColor: true },
  accepted: { color: "green" },
  refused: { color: "red" },
  error: { color: "red", bold: true },
  warn: { color: "yellow" },
};

/** One line of text in its tone, never wrapped; an empty line still takes its row. */
export function line(l: Line, key: string | number): ReactElement {
  if (l.text.trim() === "") return h(Box, { key, height: 1 });
  return h(Text, { key, wrap: "truncate", ...colours[l.tone ?? "plain"] }, l.text);
}

/** Renders `model` in `height` lines at `scroll`. */
export function ViewBody(props: { readonly model: ViewModel; readonly height: number; readonly scroll: number; readonly width: number }): ReactElement {
  const { model, height, scroll, width } = props;
  const [first, end] = visibleRange(model, height, scroll);
  const rows = model.rows.length === 0 ? [{ text: model.empty, tone: "dim" as const }] : model.rows.slice(first, end);
  return h(
    Box,
    { flexDirection: "column", width, height, overflow: "hidden" },
    ...model.headings.map((l, i) => line(l, `h${i}`)),
    ...rows.map((l, i) => line(l, `r${first + i}`)),
  );
}
