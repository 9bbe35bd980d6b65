/**
 * Issue 9: the console's shell — the six views switched by number keys and Tab, scrolling,
 * the `/` filter (Activity's runs in the store), `q` to quit, exactly 80×24, plain ASCII.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { cleanup, sleep, tempDataDir, waitFor } from "../test/helpers/charter-process.ts";
import { prepareConsoleData } from "../test/helpers/console-data.ts";
import { linesOf } from "../test/helpers/ink-frame.ts";
import { App } from "./app.ts";
import { LiveSource } from "./live-source.ts";
import { asciiGlyphs, unicodeGlyphs } from "./terminal.ts";

let dataDir: string;
let source: LiveSource;

before(async () => {
  dataDir = tempDataDir("charter-tui-app-");
  await prepareConsoleData(dataDir);
  source = new LiveSource(dataDir);
  await source.refresh();
});
after(() => {
  source.close();
  cleanup(dataDir);
});

function app(size = { columns: 80, rows: 24 }, glyphs = unicodeGlyphs) {
  const r = render(h(App, { source, glyphs, size }));
  const screen = () => linesOf(r.lastFrame());
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      await sleep(20);
    }
  };
  const shows = async (pattern: RegExp, what = String(pattern)) => {
    try {
      await waitFor(what, () => (screen().some((l) => pattern.test(l)) ? true : undefined), 3000);
    } catch (error) {
      throw new Error(`${(error as Error).message}; the screen:\n${screen().join("\n")}`, { cause: error });
    }
  };
  return { r, screen, press, shows };
}

test("fills 80×24 exactly: tabs, the view, a status line and the keys", () => {
  const { r, screen } = app();
  const lines = screen();
  assert.equal(lines.length, 24);
  for (const l of lines) assert.ok([...l].length <= 80, l);
  assert.equal(lines[0], " charter  1 Overview  2 Contracts  3 Tenants  4 Activity  5 Logs  6 Connect");
  assert.match(lines[1] ?? "", /^Node {6}stopped$/);
  assert.match(lines[22] ?? "", /^node stopped · rows 1-2 of 2 · \/tmp\//);
  assert.equal(lines[23], "1-6/Tab views  ↑↓ PgUp/PgDn Home/End scroll  / filter  Esc clear  q quit");
  r.unmount();
});

test("number keys, Tab and Shift+Tab switch between the six views", async () => {
  const { r, press, shows } = app();
  const titles: [string, RegExp][] = [
    ["2", /^Installed contracts: 4 shown/],
    ["\t", /^Tenants: 1 shown/],
    ["\u001b[Z", /^Installed contracts: 4 shown/],
    ["4", /^Activity: 6 commands/],
    ["5", /^Logs: 6 of the last 6 lines/],
    ["6", /^Connect: 1 node/],
    ["\t", /^Node {6}stopped$/],
    ["3", /^Tenants: 1 shown/],
    ["1", /^Node {6}stopped$/],
  ];
  for (const [key, title] of titles) {
    await press(key);
    await shows(title, `${JSON.stringify(key)} shows ${title}`);
  }
  r.unmount();
});

test("`/` filters the Activity in the store; Esc clears it", async () => {
  const { r, press, shows, screen } = app();
  await press("4", "/");
  await shows(/^\/_ {3}tenant:T ns:N outcome:accepted\|refused/);
  await press(..."outcome:refusedX", "\u007f", "\r");
  await shows(/^Activity: 3 commands, 3 refused, newest first; history to #6 \(filtered\)$/);
  assert.ok(screen().some((l) => /· filter: outcome:refused ·/.test(l)), "the status line names the filter");
  assert.ok(!screen().some((l) => /✓ accepted/.test(l)));
  await press("/", ..."x", "\u001b");
  await shows(/· filter: outcome:refused ·/, "Esc while typing cancels the edit");
  await press("\u001b");
  await shows(/^Activity: 6 commands, 3 refused, newest first; history to #6$/);
  r.unmount();
});

test("keys read together in one chunk each count, in order", async () => {
  const { r, shows, screen } = app({ columns: 80, rows: 10 });
  r.stdin.write("345");
  await shows(/^Logs: 6 of the last 6 lines/, "3 4 5 in one chunk ends on Logs");
  r.stdin.write("4\u001b[B\u001b[B");
  await shows(/rows 3-7 of 10/, "4 then two Down arrows in one chunk scroll the Activity");
  r.stdin.write("/outcome:refused\r");
  await shows(/^Activity: 3 commands, 3 refused, newest first; history to #6 \(filtered\)$/, "a filter and Enter in one chunk apply it");
  assert.ok(screen().some((l) => /· filter: outcome:refused ·/.test(l)));
  r.stdin.write("\u001b[Z\t\t/words\u001b");
  await shows(/^Logs: 6 of the last 6 lines/, "Shift+Tab, Tab, Tab in one chunk end on Logs");
  assert.ok(!screen().some((l) => /filter: words/.test(l)), "Esc in the same chunk cancels the typed filter");
  r.stdin.write("4\u001b");
  await shows(/^Activity: 6 commands, 3 refused, newest first; history to #6$/, "4 then Esc in one chunk clear the Activity's filter");
  r.stdin.write("2q");
  await waitFor("2q in one chunk to quit", () => (r.stdin.listenerCount("readable") === 0 ? true : undefined), 2000);
});

test("a paste is typed into the filter, never read as keys", async () => {
  const { r, press, shows, screen } = app();
  r.stdin.write("\u001b[200~3q\u001b[201~");
  await press("2");
  await shows(/^Installed contracts: 4 shown/, "the pasted 3 and q did nothing");
  r.stdin.write("/\u001b[200~status:retired\r\u001b[201~\r");
  await shows(/^Installed contracts: 1 shown/);
  assert.ok(screen().some((l) => /· filter: status:retired ·/.test(l)), `the line break pasted did not apply the filter early:\n${screen().join("\n")}`);
  r.unmount();
});

test("arrows, PgUp/PgDn, Home/End scroll; a log tail scrolls back from its newest line", async () => {
  const { r, press, shows } = app({ columns: 80, rows: 10 });
  await press("4");
  await shows(/rows 1-5 of 10/);
  await press("\u001b[B");
  await shows(/rows 2-6 of 10/);
  await press("\u001b[6~");
  await shows(/rows 6-10 of 10/);
  await press("\u001b[5~", "\u001b[F");
  await shows(/rows 6-10 of 10/);
  await press("\u001b[H");
  await shows(/rows 1-5 of 10/);
  r.unmount();
  const logs = app({ columns: 80, rows: 8 });
  await logs.press("5");
  await logs.shows(/rows 3-6 of 6/);
  await logs.press("\u001b[A");
  await logs.shows(/rows 2-5 of 6/);
  await logs.press("\u001b[F");
  await logs.shows(/rows 3-6 of 6/);
  logs.r.unmount();
});

test("a smaller or larger terminal gets a frame of its size", () => {
  const { r, screen } = app({ columns: 120, rows: 30 });
  assert.equal(screen().length, 30);
  r.rerender(h(App, { source, glyphs: unicodeGlyphs, size: { columns: 80, rows: 24 } }));
  assert.equal(screen().length, 24);
  r.unmount();
});

test("q quits", async () => {
  const { r, press } = app();
  assert.ok(r.stdin.listenerCount("readable") > 0);
  await press("q");
  await waitFor("the app to exit", () => (r.stdin.listenerCount("readable") === 0 ? true : undefined), 2000);
});

test("plain ASCII throughout when the terminal is not UTF-8", async () => {
  const { r, press, screen } = app(undefined, asciiGlyphs);
  for (const key of ["1", "2", "3", "4", "5", "6"]) {
    await press(key);
    for (const l of screen()) assert.match(l, /^[\x20-\x7e]*$/, `view ${key}: ${l}`);
  }
  r.unmount();
});
