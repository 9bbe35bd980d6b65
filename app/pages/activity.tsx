/**
 * @module Activity: what happens on the node, live. Every frame of `/api/events` as it arrives
 * (commits with their outcome, the assistant's turns, sync, approvals), newest first, filterable by
 * kind; and the decisions on the assistant's tool calls (`GET /api/activity`), with who decided.
 *
 * Opened for the first time, it also shows the last commits made before (up to `EARLIER`): a
 * socket of its own asks `/api/events?after=<last seq − EARLIER>`, which the node replays from its
 * history, and is closed once the replay reaches the seq bootstrap named as the last.
 */
import { useEffect, useState } from "preact/hooks";
import { api, type Page, socketUrl } from "../lib/api.ts";
import { connection, type EventFrame, parseFrame } from "../lib/events.ts";
import { useFrames, useLoad } from "../lib/hooks.ts";
import { href } from "../lib/router.ts";
import { useStore } from "../lib/store.ts";
import { Empty, ErrorNote, PageHead, Time } from "../components/ui.tsx";

/** The most live rows kept (the newest first). */
const MAX_ROWS = 200;

interface Row {
  readonly at: number;
  readonly frame: EventFrame;
}

/** The frames seen since the app opened, kept across page visits. */
const seen: Row[] = [];
/** How many commits made before the page opened it shows. */
const EARLIER = 50;
/** When a frame's change happened: a commit frame says when it was committed; other frames, when they arrived. */
function timeOf(frame: EventFrame, arrived: number): number {
  const at = typeof frame["at"] === "string" ? Date.parse(frame["at"]) : Number.NaN;
  return Number.isFinite(at) ? at : arrived;
}
/** Commits replayed from before the page first opened (`at` 0 when a frame does not say when). */
let earlier: Row[] | null = null;

/** The last `EARLIER` commits up to bootstrap's last seq, replayed by the node on a socket of their own. */
async function loadEarlier(): Promise<Row[]> {
  const boot = await api<{ events: { after: string } }>("GET", "/api/bootstrap");
  const last = Number(boot.events.after);
  if (!Number.isSafeInteger(last) || last <= 0) return [];
  const rows: Row[] = [];
  await new Promise<void>((resolve) => {
    const ws = new WebSocket(socketUrl(`/api/events?after=${Math.max(0, last - EARLIER)}`));
    const done = () => {
      clearTimeout(timer);
      ws.close(1000, "replayed");
      resolve();
    };
    const timer = setTimeout(done, 5_000);
    ws.addEventListener("message", (message: MessageEvent) => {
      const frame = parseFrame(message.data);
      if (frame === null) return;
      const seq = Number(frame["seq"] ?? frame.id);
      if (frame.kind === "commit" && seq <= last) rows.unshift({ at: timeOf(frame, 0), frame });
      if (seq >= last) done();
    });
    ws.addEventListener("close", done);
    ws.addEventListener("error", done);
  });
  return rows;
}

export default function ActivityPage() {
  const [rows, setRows] = useState<readonly Row[]>(() => [...seen, ...(earlier ?? [])]);
  useEffect(() => {
    if (earlier !== null) return;
    loadEarlier().then(
      (found) => {
        // Whatever arrived live meanwhile is newer: the replayed ones go below it, without repeats.
        const live = new Set(seen.map((row) => row.frame.id));
        earlier = found.filter((row) => !live.has(row.frame.id));
        setRows([...seen, ...earlier]);
      },
      () => {
        earlier = [];
      },
    );
  }, []);
  const [kind, setKind] = useState("all");
  const live = useStore(connection);
  useFrames((frame) => {
    seen.unshift({ at: timeOf(frame, Date.now()), frame });
    if (seen.length > MAX_ROWS) seen.length = MAX_ROWS;
    setRows([...seen, ...(earlier ?? [])]);
  });
  const decisions = useLoad(() => api<Page<Record<string, unknown>>>("GET", "/api/activity?limit=20"));
  const kinds = ["all", ...new Set(rows.map((row) => row.frame.kind))];
  const shown = kind === "all" ? rows : rows.filter((row) => row.frame.kind === kind);

  return (
    <>
      <PageHead title="Activity">
        <p>
          Everything committed on this node appears here as it happens. Live updates: <strong>{live}</strong>.
        </p>
      </PageHead>
      <section aria-labelledby="live-title">
        <h2 id="live-title">Live</h2>
        <div class="field inline">
          <label for="activity-kind">Show</label>
          <select id="activity-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            {kinds.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </div>
        {shown.length === 0 ? (
          <Empty>Nothing yet: changes appear here the moment they are committed.</Empty>
        ) : (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Live events">
            <table class="activity">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Kind</th>
                  <th scope="col">What</th>
                  <th scope="col">Outcome</th>
                </tr>
              </thead>
              <tbody aria-live="polite">
                {shown.map((row) => (
                  <tr key={`${row.frame.kind}:${String(row.frame.id)}:${row.at}`} data-kind={row.frame.kind} data-seq={typeof row.frame["seq"] === "number" ? row.frame["seq"] : undefined}>
                    <td>{row.at === 0 ? <span class="muted">earlier</span> : <Time when={row.at} />}</td>
                    <td>{row.frame.kind}</td>
                    <td>{describe(row.frame)}</td>
                    <td class={`outcome ${String(row.frame["outcome"] ?? "")}`}>{String(row.frame["outcome"] ?? row.frame["state"] ?? "")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="decisions-title">
        <h2 id="decisions-title">Decisions on the assistant's actions</h2>
        <ErrorNote error={decisions.error} />
        {decisions.data === null ? null : decisions.data.items.length === 0 ? (
          <Empty>The assistant has not asked to do anything yet.</Empty>
        ) : (
          <ul class="cards">
            {decisions.data.items.map((item) => (
              <li key={String(item["id"])} class="card">
                <strong>{String(item["tool"] ?? item["kind"] ?? "")}</strong> — {String(item["state"] ?? "")} <Time when={(item["decidedAt"] ?? item["createdAt"]) as string | undefined} />
                {typeof item["decidedBy"] === "string" ? <span> by {item["decidedBy"]}</span> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

/** A frame in a few words: a commit's action on its record (linked to the record), else its fields. */
function describe(frame: EventFrame) {
  if (frame.kind === "commit") {
    const ns = String(frame["namespace"] ?? "");
    const aggregate = String(frame["aggregate"] ?? "");
    const subject = String(frame["subject"] ?? "");
    return (
      <>
        {String(frame["action"] ?? "")} on{" "}
        <a href={href("records", ns, aggregate, subject)}>
          {ns} {aggregate} {subject}
        </a>{" "}
        <span class="muted">#{String(frame["seq"] ?? "")}</span>
      </>
    );
  }
  const { id: _id, kind: _kind, ...rest } = frame;
  const text = JSON.stringify(rest);
  return <span class="muted">{text.length > 160 ? `${text.slice(0, 160)}…` : text}</span>;
}
