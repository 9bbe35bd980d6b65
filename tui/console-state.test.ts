/**
 * What the console's keys do, one after another on the state each leaves: switching views,
 * typing and applying a filter, scrolling within bounds (a log tail from its newest line), a paste
 * typed into the filter and never read as keys, `q` quitting.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ConsoleKey } from "./console-keys.ts";
import { type ConsoleState, initialConsoleState, type MeasureView, type Step, step } from "./console-state.ts";

/** Six views of 10 rows, 4 to a page; view 4 is a log tail; a filter leaves 2 rows. */
const measure: MeasureView = (view, filter) => ({ tail: view === 4, limit: filter === "" ? 6 : 0, page: 4 });

function run(keys: readonly ConsoleKey[], from: ConsoleState = initialConsoleState(6)): Step {
  return keys.reduce<Step>(
    (acc, key) => {
      const next = step(acc.state, key, measure);
      return { state: next.state, effects: [...acc.effects, ...next.effects] };
    },
    { state: from, effects: [] },
  );
}
const type = (text: string): ConsoleKey[] => [...text].map((char) => ({ kind: "char", char }));
const k = (name: Extract<ConsoleKey, { kind: "named" }>["name"]): ConsoleKey => ({ kind: "named", name });

test("each key applies to the state the key before it left", () => {
  assert.equal(run(type("345")).state.view, 4);
  assert.equal(run([...type("2"), k("tab"), k("tab"), k("back-tab")]).state.view, 2);
  assert.equal(run([k("back-tab")]).state.view, 5, "Shift+Tab from the first view wraps to the last");
  assert.equal(run(type("7")).state.view, 0, "a number past the last view does nothing");
});

test("`/` types a filter, Enter applies it to the view shown, Esc cancels or clears", () => {
  const applied = run([...type("4/outcome:refusedX"), k("backspace"), k("enter")]);
  assert.deepEqual(applied.state.filters, ["", "", "", "outcome:refused", "", ""]);
  assert.equal(applied.state.editing, null);
  assert.deepEqual(applied.effects, [{ type: "filter", view: 3, text: "outcome:refused" }]);
  assert.deepEqual(run(type("/q5")).state.editing, "q5", "keys typed into the filter are text, not commands");
  const cancelled = run([...type("/x"), k("escape")], applied.state);
  assert.deepEqual(cancelled.state.filters, applied.state.filters);
  assert.deepEqual(cancelled.effects, []);
  const cleared = run([k("escape")], applied.state);
  assert.deepEqual(cleared.state.filters, ["", "", "", "", "", ""]);
  assert.deepEqual(cleared.effects, [{ type: "filter", view: 3, text: "" }]);
});

test("scrolling stays within the view's rows; a log tail scrolls back from its newest line", () => {
  assert.equal(run([k("down"), k("down"), k("up")]).state.scrolls[0], 1);
  assert.equal(run([k("page-down"), k("page-down"), k("down")]).state.scrolls[0], 6);
  assert.equal(run([k("end"), k("page-up"), k("up"), k("up"), k("up")]).state.scrolls[0], 0);
  assert.equal(run([...type("5"), k("up"), k("up")]).state.scrolls[4], 2);
  assert.equal(run([...type("5"), k("home")]).state.scrolls[4], 6);
  const scrolled = run([k("down"), k("down"), ...type("/x"), k("enter"), k("down")]).state;
  assert.equal(scrolled.scrolls[0], 0, "applying a filter scrolls to the top, within the filtered rows");
});

test("a paste goes into the filter being typed as one line, and means nothing otherwise", () => {
  const paste = (text: string): ConsoleKey => ({ kind: "paste", text });
  const pasted = run([...type("/"), paste("tenant:acme\r\noutcome:refused\n")]);
  assert.equal(pasted.state.editing, "tenant:acme  outcome:refused ");
  assert.equal(run([k("enter")], pasted.state).state.filters[0], "tenant:acme  outcome:refused", "applied without the spaces around it");
  const ignored = run([paste("5q")]);
  assert.deepEqual(ignored, { state: initialConsoleState(6), effects: [] });
});

test("q quits, except typed into a filter", () => {
  assert.deepEqual(run(type("q")).effects, [{ type: "quit" }]);
  assert.deepEqual(run(type("/q")).effects, []);
});
