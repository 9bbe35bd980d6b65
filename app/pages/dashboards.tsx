/**
 * @module Dashboards: the person's dashboards (records of `std.dashboards`, listed through
 * `/api/personal/std.dashboards/Dashboard`), one opened at `#/dashboards/<id>` (`/api/artifacts/{id}`):
 * each panel's rows as a table, and as bars (plain SVG) when the rows have a name and a number;
 * refresh now, a refresh schedule, delete. A new one is a title and panels, each a declared query
 * of the personal tenant with its parameters; the node names each wrong field. Live commit frames
 * of `std.dashboards` reload what is shown (a scheduled refresh appears by itself).
 */
import { useState } from "preact/hooks";
import { api, type Page } from "../lib/api.ts";
import { useFrames, useLoad } from "../lib/hooks.ts";
import { href, navigate } from "../lib/router.ts";
import type { PageProps } from "../routes.ts";
import { Button, Empty, ErrorNote, Field, PageHead, Time } from "../components/ui.tsx";
import { invalid, SaveNote, useSave } from "../components/settings-form.tsx";
import "./dashboards.css";

interface PanelSpec {
  readonly namespace: string;
  readonly query: string;
  readonly params: Readonly<Record<string, unknown>>;
}

type Row = Readonly<Record<string, unknown>>;

interface Dashboard {
  readonly id: string;
  readonly title: string;
  readonly panels: readonly PanelSpec[];
  readonly result: { readonly panels: readonly { readonly rows: readonly Row[]; readonly truncated: boolean }[] } | null;
  readonly refreshedAt: string | null;
  readonly schedule: { readonly everyMinutes: number; readonly nextAt: string | null };
  readonly error: { readonly message: string; readonly at: string } | null;
  readonly createdAt: string | null;
}

/** A `std.dashboards` record as the generic record list answers it. */
interface DashboardRecord {
  readonly subject: string;
  readonly state: { readonly title?: string; readonly deleted?: boolean; readonly refreshed_at?: number; readonly every_minutes?: number; readonly last_error?: string; readonly panel_queries?: readonly string[] };
}

const isDashboardFrame = (frame: { kind: string; [field: string]: unknown }) => frame.kind === "commit" && frame["namespace"] === "std.dashboards";

export default function DashboardsPage(props: PageProps) {
  const id = props.rest[0];
  return (
    <>
      <PageHead title="Dashboards">
        <p>Saved queries of your records, with their last answer, refreshed when you ask or on a schedule.</p>
      </PageHead>
      {id === undefined ? (
        <>
          <DashboardList />
          <NewDashboard />
        </>
      ) : (
        <DashboardView key={id} id={id} />
      )}
    </>
  );
}

function DashboardList() {
  const list = useLoad(() => api<Page<DashboardRecord>>("GET", "/api/personal/std.dashboards/Dashboard?limit=100"));
  useFrames(list.reload, isDashboardFrame);
  const items = (list.data?.items ?? []).filter((d) => d.state.deleted !== true);
  return (
    <section aria-labelledby="dashboards-list-title">
      <h2 id="dashboards-list-title">Your dashboards</h2>
      <ErrorNote error={list.error} />
      {list.data === null ? null : items.length === 0 ? (
        <Empty>No dashboard yet: make one below, or ask the assistant for one.</Empty>
      ) : (
        <ul class="cards">
          {items.map((d) => (
            <li key={d.subject} class="card row">
              <div class="dash-grow">
                <a href={href("dashboards", d.subject)}>
                  <strong>{d.state.title ?? d.subject}</strong>
                </a>
                <div class="muted">
                  {(d.state.panel_queries ?? []).length === 1 ? "1 panel" : `${(d.state.panel_queries ?? []).length} panels`}; refreshed {d.state.refreshed_at ? <Time when={d.state.refreshed_at} /> : "never"}
                  {d.state.every_minutes ? `; every ${everyText(d.state.every_minutes)}` : ""}
                </div>
                {d.state.last_error ? <div class="refused">Last refresh failed: {d.state.last_error}</div> : null}
              </div>
            </li>
          ))}
        </ul>
      )}
      {list.data?.next ? <p class="muted">Only the first 100 are listed.</p> : null}
    </section>
  );
}

function everyText(minutes: number): string {
  if (minutes % 1440 === 0) return minutes === 1440 ? "day" : `${minutes / 1440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? "hour" : `${minutes / 60} hours`;
  return `${minutes} minutes`;
}

function DashboardView(props: { id: string }) {
  const path = `/api/artifacts/${encodeURIComponent(props.id)}`;
  const dashboard = useLoad(() => api<Dashboard>("GET", path), [path]);
  useFrames(dashboard.reload, (frame) => isDashboardFrame(frame) && frame["subject"] === props.id);
  const refresh = useSave();
  const schedule = useSave();
  const remove = useSave();
  const [every, setEvery] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const d = dashboard.data;
  const everyValue = every ?? String(d?.schedule.everyMinutes ?? 0);
  const setSchedule = (event: Event) => {
    event.preventDefault();
    const n = /^\d+$/.test(everyValue.trim()) ? Number(everyValue.trim()) : everyValue;
    void schedule.run(async () => {
      dashboard.set(await api<Dashboard>("POST", `${path}/schedule`, { everyMinutes: n }));
      setEvery(null);
    }, "The schedule is saved.");
  };
  return (
    <>
      <p>
        <a href={href("dashboards")}>All dashboards</a>
      </p>
      <ErrorNote error={dashboard.error} />
      {d === null ? null : (
        <section aria-labelledby="dashboard-title">
          <h2 id="dashboard-title">{d.title}</h2>
          <p class="muted">
            Refreshed {d.refreshedAt === null ? "never" : <Time when={d.refreshedAt} />}
            {d.schedule.everyMinutes > 0 ? (
              <>
                ; every {everyText(d.schedule.everyMinutes)}, next <Time when={d.schedule.nextAt} />
              </>
            ) : (
              "; no schedule"
            )}
            .
          </p>
          {d.error === null ? null : (
            <p class="refused">
              The last refresh failed (<Time when={d.error.at} />): {d.error.message}
            </p>
          )}
          <div class="buttons">
            <Button kind="primary" busy={refresh.busy} onClick={() => void refresh.run(async () => dashboard.set(await api<Dashboard>("POST", `${path}/refresh`, {})), "Refreshed.")}>
              Refresh now
            </Button>
          </div>
          <SaveNote save={refresh} />
          {d.panels.map((panel, i) => (
            <PanelView key={i} index={i} panel={panel} result={d.result?.panels[i] ?? null} error={refresh.at(`#/panels/${i}`)} />
          ))}
          <form class="inline-form dash-schedule" onSubmit={setSchedule}>
            <Field label="Refresh every (minutes, 0 for never)" error={schedule.at("#/everyMinutes")}>
              {(fid, describedBy) => <input id={fid} inputMode="numeric" value={everyValue} aria-describedby={describedBy} aria-invalid={invalid(schedule.at("#/everyMinutes"))} onInput={(e) => setEvery(e.currentTarget.value)} />}
            </Field>
            <Button type="submit" busy={schedule.busy}>
              Save the schedule
            </Button>
          </form>
          <SaveNote save={schedule} />
          <h3>Delete</h3>
          {confirmDelete ? (
            <div class="buttons">
              <Button kind="danger" busy={remove.busy} onClick={() => void remove.run(() => api("DELETE", path)).then((ok) => ok && navigate("dashboards"))}>
                Delete {d.title} for good
              </Button>
              <Button onClick={() => setConfirmDelete(false)}>Keep it</Button>
            </div>
          ) : (
            <Button kind="danger" onClick={() => setConfirmDelete(true)}>
              Delete this dashboard
            </Button>
          )}
          <SaveNote save={remove} />
        </section>
      )}
    </>
  );
}

function PanelView(props: { index: number; panel: PanelSpec; result: { rows: readonly Row[]; truncated: boolean } | null; error: string | null }) {
  const { panel, result } = props;
  const params = Object.entries(panel.params);
  const titleId = `panel-${props.index}-title`;
  return (
    <section aria-labelledby={titleId} class="dash-panel card">
      <h3 id={titleId}>
        {panel.namespace}.{panel.query}
      </h3>
      {params.length === 0 ? null : <p class="muted wrap">{params.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ")}</p>}
      {props.error === null ? null : <p class="refused">{props.error}</p>}
      {result === null ? (
        <Empty>Not refreshed yet.</Empty>
      ) : result.rows.length === 0 ? (
        <Empty>No rows.</Empty>
      ) : (
        <>
          <Bars rows={result.rows} label={`${panel.namespace}.${panel.query}`} />
          <RowsTable rows={result.rows} caption={`${panel.namespace}.${panel.query}: ${result.rows.length} rows`} />
        </>
      )}
      {result?.truncated ? <p class="muted">Only the first rows are kept: the answer was longer than a dashboard holds.</p> : null}
    </section>
  );
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

function columnsOf(rows: readonly Row[]): string[] {
  const columns: string[] = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  return columns;
}

function RowsTable(props: { rows: readonly Row[]; caption: string }) {
  const columns = columnsOf(props.rows);
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={`Table: ${props.caption}`}>
      <table>
        <caption class="dash-caption">{props.caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c} class={typeof row[c] === "number" ? "dash-number" : undefined}>
                  {cell(row[c])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const MAX_BARS = 30;

/**
 * The rows as horizontal bars, when they have a text column to name each and a numeric column
 * (the first of each; an `id` names a row only when no other text does); nothing otherwise.
 */
function Bars(props: { rows: readonly Row[]; label: string }) {
  const rows = props.rows.slice(0, MAX_BARS);
  const columns = columnsOf(rows);
  const numeric = columns.find((c) => rows.every((r) => typeof r[c] === "number" && Number.isFinite(r[c])));
  const texts = columns.filter((c) => rows.every((r) => typeof r[c] === "string"));
  const name = texts.find((c) => c !== "id") ?? texts[0];
  if (numeric === undefined || name === undefined || rows.length < 2) return null;
  const values = rows.map((r) => r[numeric] as number);
  const max = Math.max(...values.map(Math.abs), 1);
  const rowHeight = 24;
  const labelWidth = 110;
  const width = 340;
  const barSpace = width - labelWidth - 64;
  const height = rows.length * rowHeight + 4;
  return (
    <figure class="dash-figure">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${numeric} by ${name} (${props.label}); the table below has the figures`} class="dash-bars">
        {rows.map((r, i) => {
          const value = values[i] as number;
          const w = Math.max(1, (Math.abs(value) / max) * barSpace);
          const y = i * rowHeight + 2;
          const label = cell(r[name]);
          return (
            <g key={i}>
              <text x={labelWidth - 6} y={y + rowHeight / 2 + 4} text-anchor="end" class="dash-bar-label">
                {label.length > 16 ? `${label.slice(0, 15)}…` : label}
              </text>
              <rect x={labelWidth} y={y + 3} width={w} height={rowHeight - 8} rx={2} class={value < 0 ? "dash-bar negative" : "dash-bar"} />
              <text x={labelWidth + w + 4} y={y + rowHeight / 2 + 4} class="dash-bar-value">
                {value.toLocaleString()}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption class="muted">
        {numeric} by {name}
        {props.rows.length > MAX_BARS ? ` (the first ${MAX_BARS})` : ""}
      </figcaption>
    </figure>
  );
}

interface Bootstrap {
  readonly tenant: { readonly contracts: readonly { readonly namespace: string }[] };
}

interface DraftPanel {
  namespace: string;
  query: string;
  params: string;
}

function NewDashboard() {
  const boot = useLoad(() => api<Bootstrap>("GET", "/api/bootstrap"));
  const [title, setTitle] = useState("");
  const [every, setEvery] = useState("0");
  const [panels, setPanels] = useState<DraftPanel[]>([{ namespace: "", query: "", params: "{}" }]);
  const save = useSave();
  const namespaces = (boot.data?.tenant.contracts ?? []).map((c) => c.namespace);
  const change = (i: number, value: Partial<DraftPanel> | null) => setPanels((was) => (value === null ? was.filter((_, j) => j !== i) : was.map((p, j) => (j === i ? { ...p, ...value } : p))));
  const submit = (event: Event) => {
    event.preventDefault();
    const body = {
      title,
      everyMinutes: /^\d+$/.test(every.trim()) ? Number(every.trim()) : every,
      panels: panels.map((p) => {
        let params: unknown = p.params;
        try {
          params = p.params.trim() === "" ? {} : JSON.parse(p.params);
        } catch {
          // Sent as typed: the node says what it takes.
        }
        return { namespace: p.namespace || (namespaces[0] ?? ""), query: p.query.trim(), params };
      }),
    };
    void save.run(async () => {
      const made = await api<Dashboard>("POST", "/api/artifacts", body);
      navigate("dashboards", made.id);
    });
  };
  return (
    <section aria-labelledby="new-dashboard-title">
      <h2 id="new-dashboard-title">New dashboard</h2>
      <ErrorNote error={boot.error} />
      <form class="stack dash-form" onSubmit={submit}>
        <Field label="Title" error={save.at("#/title")}>
          {(id, describedBy) => <input id={id} required maxLength={200} value={title} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/title"))} onInput={(e) => setTitle(e.currentTarget.value)} />}
        </Field>
        {panels.map((p, i) => (
          <fieldset key={i} class="dash-fieldset">
            <legend>Panel {i + 1}</legend>
            <Field label="Contract" error={save.at(`#/panels/${i}/namespace`)}>
              {(id, describedBy) => (
                <select id={id} value={p.namespace || namespaces[0]} aria-describedby={describedBy} aria-invalid={invalid(save.at(`#/panels/${i}/namespace`))} onChange={(e) => change(i, { namespace: e.currentTarget.value })}>
                  {namespaces.map((n) => (
                    <option key={n} value={n}>
                      {n}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Query" hint="A declared query of the contract, e.g. Due." error={save.at(`#/panels/${i}/query`)}>
              {(id, describedBy) => <input id={id} required value={p.query} aria-describedby={describedBy} aria-invalid={invalid(save.at(`#/panels/${i}/query`))} onInput={(e) => change(i, { query: e.currentTarget.value })} />}
            </Field>
            <Field label="Parameters (JSON)" hint='e.g. {"on": "2026-12-31"}' error={save.within(`#/panels/${i}/params`)}>
              {(id, describedBy) => <textarea id={id} class="dash-code" spellcheck={false} value={p.params} aria-describedby={describedBy} aria-invalid={invalid(save.within(`#/panels/${i}/params`))} onInput={(e) => change(i, { params: e.currentTarget.value })} />}
            </Field>
            {save.at(`#/panels/${i}`) === null ? null : <small class="field-error">{save.at(`#/panels/${i}`)}</small>}
            {panels.length > 1 ? (
              <div class="buttons">
                <Button onClick={() => change(i, null)}>Remove panel {i + 1}</Button>
              </div>
            ) : null}
          </fieldset>
        ))}
        <div class="buttons">
          <Button onClick={() => setPanels((was) => [...was, { namespace: "", query: "", params: "{}" }])}>Add a panel</Button>
        </div>
        <Field label="Refresh every (minutes, 0 for never)" error={save.at("#/everyMinutes")}>
          {(id, describedBy) => <input id={id} inputMode="numeric" value={every} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/everyMinutes"))} onInput={(e) => setEvery(e.currentTarget.value)} />}
        </Field>
        <SaveNote save={save} />
        <div class="buttons">
          <Button type="submit" kind="primary" busy={save.busy}>
            Make the dashboard
          </Button>
        </div>
      </form>
    </section>
  );
}
