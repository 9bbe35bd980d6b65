/**
 * @module Text formatting shared by the views: fixed-width cells, times (UTC, as the log file
 * writes them), byte sizes and shortened identities. Every view lays out rows as plain strings of
 * known width, so a row never wraps and 80 columns always line up.
 */
import { type Glyphs, printable } from "./terminal.ts";

/** `text` cut to `width` (ending in the ellipsis when cut) and padded to exactly `width`. */
export function cell(text: string, width: number, glyphs: Glyphs, align: "left" | "right" = "left"): string {
  if (width <= 0) return "";
  const chars = [...printable(text, glyphs)];
  const ellipsis = [...glyphs.ellipsis];
  const fitted = chars.length <= width ? chars : [...chars.slice(0, Math.max(0, width - ellipsis.length)), ...ellipsis].slice(0, width);
  const pad = " ".repeat(width - fitted.length);
  return align === "left" ? fitted.join("") + pad : pad + fitted.join("");
}

/** One column of a table: its heading, its width, and where a flexible column takes the rest. */
export interface Column {
  readonly title: string;
  readonly width: number;
  readonly align?: "left" | "right";
  /** Takes whatever width the fixed columns leave (at least `width`). */
  readonly flex?: boolean;
}

/**
 * The widths of `columns` in `total` characters, one space between columns: fixed columns keep
 * their width, flexible ones get their minimum plus an equal share of what is left.
 */
export function layout(columns: readonly Column[], total: number): number[] {
  const gaps = Math.max(0, columns.length - 1);
  const used = columns.reduce((sum, c) => sum + c.width, 0) + gaps;
  const flexible = columns.filter((c) => c.flex).length;
  const spare = flexible === 0 ? 0 : Math.max(0, total - used);
  let given = 0;
  let seen = 0;
  return columns.map((c) => {
    if (!c.flex) return c.width;
    seen++;
    // The last flexible column takes the rounding remainder, so a row fills `total` exactly.
    const share = seen === flexible ? spare - given : Math.floor(spare / flexible);
    given += share;
    return c.width + share;
  });
}

/** One table row of `values` in `columns`, exactly `total` characters wide. */
export function row(columns: readonly Column[], values: readonly string[], total: number, glyphs: Glyphs): string {
  const widths = layout(columns, total);
  const line = columns.map((c, i) => cell(values[i] ?? "", widths[i] ?? 0, glyphs, c.align)).join(" ");
  return cell(line, total, glyphs);
}

/** The heading row of `columns`. */
export function heading(columns: readonly Column[], total: number, glyphs: Glyphs): string {
  return row(
    columns,
    columns.map((c) => c.title),
    total,
    glyphs,
  );
}

/** `2025-11-21 19:40:01` in UTC. */
export function dateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/** `19:40:01.123` in UTC. */
export function clockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

/** `12.3 MB`-style sizes in powers of 1024. */
export function bytes(n: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/**
 * A did:key in `width` characters: whole when it fits; else its start and end around an ellipsis
 * (`did:key:z6Mkvd71…8MNrEx`); in a narrow column without the `did:key:` prefix (`z6Mk…Edwj`).
 */
export function shortDid(did: string | null, width: number, glyphs: Glyphs): string {
  if (did === null) return glyphs.dash;
  if (did.length <= width) return did;
  const e = glyphs.ellipsis.length;
  if (width >= 24) return `${did.slice(0, width - 6 - e)}${glyphs.ellipsis}${did.slice(-6)}`;
  const id = did.startsWith("did:key:") ? did.slice(8) : did;
  if (id.length <= width) return id;
  const tail = Math.max(1, Math.floor((width - e) / 2));
  return `${id.slice(0, Math.max(1, width - e - tail))}${glyphs.ellipsis}${id.slice(-tail)}`;
}

/** Milliseconds as `850 ms` or `1.2 s`. */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** How long before `now` the moment `ms` was: `just now`, `42 s ago`, `5 min ago`, `3 h ago`, `2 d ago`. */
export function ago(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}
