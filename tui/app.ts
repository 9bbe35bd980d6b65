/**
 * @module The console's shell: a tab bar of the six views, the current view in the space left, a
 * status line (where the `/` filter is typed) and a help line with the keys. Keyboard only: 1–6
 * and Tab/Shift+Tab switch views, arrows, PgUp/PgDn, Home/End scroll, `/` filters (Enter applies,
 * Esc cancels; Esc clears an applied filter), `q` quits. Keys read together count one by one, in
 * order; pasted text only ever goes into the filter being typed. Sized to the terminal and redrawn
 * on resize.
 */
import { Box, Text, useApp, useInput, usePaste, useWindowSize } from "ink";
import { createElement as h, type ReactElement, useEffect, useRef, useState } from "react";
import { type ConsoleKey, keysOf } from "./console-keys.ts";
import { initialConsoleState, type ScrollBounds, step } from "./console-state.ts";
import { type Filter, parseFilter } from "./filter.ts";
import { cell } from "./format.ts";
import type { Snapshot, SnapshotSource } from "./snapshot.ts";
import type { Glyphs } from "./terminal.ts";
import { ActivityView, activityModel } from "./views/activity.ts";
import { ConnectView, connectModel } from "./views/connect.ts";
import { ContractsView, contractsModel } from "./views/contracts.ts";
import { LogsView, logsModel } from "./views/logs.ts";
import { OverviewView, overviewModel } from "./views/overview.ts";
import { TenantsView, tenantsModel } from "./views/tenants.ts";
import { line, maxScroll, pageSize, type ViewModel, type ViewProps, visibleRange } from "./views/view-body.ts";

interface ViewEntry {
  readonly name: string;
  /** What `/` takes in this view, shown while typing. */
  readonly filterHint: string;
  readonly model: (s: Snapshot, f: Filter, width: number, g: Glyphs) => ViewModel;
  readonly component: (props: ViewProps) => ReactElement;
}

export const views: readonly ViewEntry[] = [
  { name: "Overview", filterHint: "errors: words", model: (s, _f, w, g) => overviewModel(s, w, g), component: OverviewView },
  { name: "Contracts", filterHint: "tenant:T namespace:N status:active|replaced|retired words", model: contractsModel, component: ContractsView },
  { name: "Tenants", filterHint: "tenant:T words (a did, a scope)", model: tenantsModel, component: TenantsView },
  { name: "Activity", filterHint: "tenant:T ns:N outcome:accepted|refused action:A code:C words", model: (s, _f, w, g) => activityModel(s, w, g), component: ActivityView },
  { name: "Logs", filterHint: "level:debug|info|warn|error component:C words", model: logsModel, component: LogsView },
  { name: "Connect", filterHint: "kind:voter|device|relationship words", model: connectModel, component: ConnectView },
];

const ACTIVITY = 3;

export interface AppProps {
  readonly source: SnapshotSource;
  readonly glyphs: Glyphs;
  /** A fixed size (tests); otherwise the terminal's, following resizes. */
  readonly size?: { readonly columns: number; readonly rows: number };
}

export function App(props: AppProps): ReactElement {
  const { source, glyphs } = props;
  const terminal = useWindowSize();
  const columns = Math.max(40, props.size?.columns ?? terminal.columns);
  const rows = Math.max(6, props.size?.rows ?? terminal.rows);
  const { exit } = useApp();
  const [snapshot, setSnapshot] = useState<Snapshot>(() => source.current());
  // Activity's filter lives in the source (it filters in SQL): start from the one it reads with.
  const [state, setState] = useState(() => initialConsoleState(views.length, views.map((_, i) => (i === ACTIVITY ? source.current().activityFilter.text : ""))));
  // Keys read together all arrive before React draws again: each must see the state the one
  // before it left, which is kept here rather than in the last render's closure.
  const latest = useRef(state);
  useEffect(() => source.subscribe(setSnapshot), [source]);

  const bodyHeight = rows - 3;
  const { view, filters, editing } = state;
  const entry = views[view] as ViewEntry;
  const filter = parseFilter(filters[view] ?? "");
  const model = entry.model(snapshot, filter, columns, glyphs);
  const scroll = Math.min(state.scrolls[view] ?? 0, maxScroll(model, bodyHeight));

  const measure = (v: number, text: string): ScrollBounds => {
    const m = (views[v] as ViewEntry).model(snapshot, parseFilter(text), columns, glyphs);
    return { tail: m.tail === true, limit: maxScroll(m, bodyHeight), page: pageSize(m, bodyHeight) };
  };
  const press = (keys: readonly ConsoleKey[]) => {
    for (const key of keys) {
      const next = step(latest.current, key, measure);
      latest.current = next.state;
      for (const effect of next.effects) {
        if (effect.type === "quit") {
          exit();
          return;
        }
        if (effect.view === ACTIVITY) source.setActivityFilter(parseFilter(effect.text));
      }
    }
    setState(latest.current);
  };
  useInput((input, key) => press(keysOf(input, key)));
  usePaste((text) => press([{ kind: "paste", text }]));

  const tabs = views.map((v, i) => h(Text, { key: v.name, inverse: i === view, bold: i === view }, ` ${i + 1} ${v.name} `));
  const [first, end] = visibleRange(model, bodyHeight, scroll);
  const position = model.rows.length === 0 ? "" : `rows ${first + 1}-${end} of ${model.rows.length}`;
  const node = snapshot.node.running ? `node running (pid ${snapshot.node.pid})` : "node stopped";
  const separator = glyphs.unicode ? " · " : " | ";
  const facts = [node, position, filters[view] ? `filter: ${filters[view]}` : "", snapshot.dataDir].filter((f) => f !== "");
  const status =
    editing !== null
      ? { text: cell(`/${editing}_   ${entry.filterHint}; Enter applies, Esc cancels`, columns, glyphs), tone: "title" as const }
      : { text: cell(facts.join(separator), columns, glyphs), tone: "dim" as const };
  const arrows = glyphs.unicode ? "↑↓" : "Up/Down";
  const help = `1-6/Tab views  ${arrows} PgUp/PgDn Home/End scroll  / filter  Esc clear  q quit`;
  return h(
    Box,
    { flexDirection: "column", width: columns, height: rows },
    h(Box, { height: 1, overflow: "hidden" }, h(Text, { bold: true }, " charter "), ...tabs),
    h(entry.component, { snapshot, filter, width: columns, height: bodyHeight, scroll, glyphs }),
    line(status, "status"),
    line({ text: cell(help, columns, glyphs), tone: "dim" }, "help"),
  );
}
