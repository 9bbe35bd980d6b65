/**
 * @module The console's keys as values, read from what ink's `useInput` hands over. Ink passes
 * one event per escape sequence but a run of plain characters read together (a fast typist, tmux
 * `send-keys 3 4 5`, a filter and Enter in one write) as one string: split here into one key per
 * character, so every key of a burst counts.
 */
import type { Key } from "ink";

export type NamedKey = "enter" | "escape" | "tab" | "back-tab" | "backspace" | "up" | "down" | "page-up" | "page-down" | "home" | "end";

export type ConsoleKey =
  | { readonly kind: "char"; readonly char: string }
  | { readonly kind: "named"; readonly name: NamedKey }
  /** Pasted text (bracketed paste): typed into the filter as it is, never read as commands. */
  | { readonly kind: "paste"; readonly text: string };

const named = (name: NamedKey): ConsoleKey => ({ kind: "named", name });

/** The keys in one `useInput` event, in order; keys the console has no use for are dropped. */
export function keysOf(input: string, key: Key): ConsoleKey[] {
  if (key.return) return [named("enter")];
  if (key.escape) return [named("escape")];
  if (key.tab) return [named(key.shift ? "back-tab" : "tab")];
  if (key.backspace || key.delete) return [named("backspace")];
  if (key.upArrow) return [named("up")];
  if (key.downArrow) return [named("down")];
  if (key.pageUp) return [named("page-up")];
  if (key.pageDown) return [named("page-down")];
  if (key.home) return [named("home")];
  if (key.end) return [named("end")];
  // Ctrl and Alt combinations are bound to nothing (ink handles Ctrl-C itself).
  if (key.ctrl || key.meta) return [];
  return [...input].flatMap((ch): ConsoleKey[] => {
    if (ch === "\r" || ch === "\n") return [named("enter")];
    if (ch === "\t") return [named("tab")];
    if (ch === "\u007f" || ch === "\b") return [named("backspace")];
    return ch < " " ? [] : [{ kind: "char", char: ch }];
  });
}
