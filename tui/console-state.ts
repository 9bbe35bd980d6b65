/**
 * @module What the console's keys do, pure: the view shown, each view's scroll and filter, the
 * filter being typed. `step` applies one key to the state the previous key left, so a burst of
 * keys read at once ends where the same keys typed slowly would. The app holds the state and
 * carries out the effects (quitting, re-reading the activity with its filter).
 */
import type { ConsoleKey, NamedKey } from "./console-keys.ts";

export interface ConsoleState {
  /** The view shown, an index into the views. */
  readonly view: number;
  /** Each view's scroll offset (for a log tail, counted back from the newest line). */
  readonly scrolls: readonly number[];
  /** Each view's applied filter text. */
  readonly filters: readonly string[];
  /** The filter being typed after `/`, or null. */
  readonly editing: string | null;
}

export type ConsoleEffect = { readonly type: "quit" } | { readonly type: "filter"; readonly view: number; readonly text: string };

/** A key's outcome: the next state and what the app must do. */
export interface Step {
  readonly state: ConsoleState;
  readonly effects: readonly ConsoleEffect[];
}

/** How far a view can scroll, given its filter: what the key handling needs of a view's model. */
export interface ScrollBounds {
  /** Rows scroll from the bottom (a log tail). */
  readonly tail: boolean;
  /** The largest useful scroll offset. */
  readonly limit: number;
  /** Rows in one page. */
  readonly page: number;
}

export type MeasureView = (view: number, filterText: string) => ScrollBounds;

/** `count` views showing the first, unscrolled, with the filters given (missing ones empty). */
export function initialConsoleState(count: number, filters: readonly string[] = []): ConsoleState {
  return { view: 0, scrolls: Array.from({ length: count }, () => 0), filters: Array.from({ length: count }, (_, i) => filters[i] ?? ""), editing: null };
}

/** The state after `key`, and what the app must do. */
export function step(state: ConsoleState, key: ConsoleKey, measure: MeasureView): Step {
  return state.editing === null ? browse(state, key, measure) : edit(state, state.editing, key);
}

const none = (state: ConsoleState): Step => ({ state, effects: [] });

function edit(state: ConsoleState, editing: string, key: ConsoleKey): Step {
  if (key.kind === "char") return none({ ...state, editing: editing + key.char });
  // A paste is one line of filter text whatever it holds: its line breaks and tabs become spaces.
  if (key.kind === "paste") return none({ ...state, editing: editing + [...key.text].map((ch) => (ch < " " || ch === "\u007f" ? " " : ch)).join("") });
  if (key.name === "enter") return applyFilter({ ...state, editing: null }, editing.trim());
  if (key.name === "escape") return none({ ...state, editing: null });
  if (key.name === "backspace") return none({ ...state, editing: [...editing].slice(0, -1).join("") });
  return none(state);
}

function browse(state: ConsoleState, key: ConsoleKey, measure: MeasureView): Step {
  const count = state.filters.length;
  const filter = state.filters[state.view] ?? "";
  if (key.kind === "paste") return none(state);
  if (key.kind === "char") {
    if (key.char === "q") return { state, effects: [{ type: "quit" }] };
    if (key.char === "/") return none({ ...state, editing: filter });
    const n = Number(key.char);
    if (key.char >= "1" && key.char <= "9" && n <= count) return none({ ...state, view: n - 1 });
    return none(state);
  }
  if (key.name === "tab") return none({ ...state, view: (state.view + 1) % count });
  if (key.name === "back-tab") return none({ ...state, view: (state.view + count - 1) % count });
  if (key.name === "escape") return filter === "" ? none(state) : applyFilter(state, "");
  const { tail, limit, page } = measure(state.view, filter);
  const scroll = Math.min(state.scrolls[state.view] ?? 0, limit);
  // A log tail counts its scroll from the bottom: "up" goes further back.
  const up = tail ? 1 : -1;
  const target: Partial<Record<NamedKey, number>> = {
    up: scroll + up,
    down: scroll - up,
    "page-up": scroll + up * page,
    "page-down": scroll - up * page,
    home: tail ? limit : 0,
    end: tail ? 0 : limit,
  };
  const to = target[key.name];
  return to === undefined ? none(state) : none(withScroll(state, Math.min(Math.max(0, to), limit)));
}

function applyFilter(state: ConsoleState, text: string): Step {
  const filters = state.filters.map((f, i) => (i === state.view ? text : f));
  return { state: { ...withScroll(state, 0), filters }, effects: [{ type: "filter", view: state.view, text }] };
}

function withScroll(state: ConsoleState, scroll: number): ConsoleState {
  return { ...state, scrolls: state.scrolls.map((s, i) => (i === state.view ? scroll : s)) };
}
