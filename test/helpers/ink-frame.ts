/**
 * @module Reading what an ink component draws, for the console's tests: render it with
 * ink-testing-library, take the last frame, drop SGR styling (present under FORCE_COLOR) and the
 * padding that styled text keeps, and split it into lines.
 */
import { render } from "ink-testing-library";
import type { ReactElement } from "react";

/** The text without SGR styling. */
export function stripAnsi(text: string): string {
  return text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "");
}

/** The lines of `frame` as a terminal shows them. */
export function linesOf(frame: string | undefined): string[] {
  return stripAnsi(frame ?? "")
    .split("\n")
    .map((l) => l.trimEnd());
}

/** The lines `element` draws once rendered. */
export function frameOf(element: ReactElement): string[] {
  const r = render(element);
  const lines = linesOf(r.lastFrame());
  r.unmount();
  return lines;
}
