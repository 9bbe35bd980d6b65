/**
 * @module Records: the person's records of every installed contract. `#/records` lists the
 * contracts (`GET /api/bootstrap`'s `tenant.contracts`) with their aggregates and how many records
 * each holds (`GET /api/data`); `#/records/<namespace>` one contract; `#/records/<namespace>/<Aggregate>`
 * its records (`GET /api/personal/{ns}/{Aggregate}`, a page at a time) and a form for each action,
 * generated from the contract's description (`/v1/{tenant}/{ns}/openapi.json`), with a preview
 * before sending; `#/records/<namespace>/<Aggregate>/<subject>` one record: its state, its actions,
 * and its history with each entry's receipt and every refusal's reason. Live commits reload what
 * they touch.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api, type Page } from "../lib/api.ts";
import type { Bootstrap } from "../lib/account.ts";
import type { EventFrame } from "../lib/events.ts";
import { useFrames, useLoad } from "../lib/hooks.ts";
import { href } from "../lib/router.ts";
import type { PageProps } from "../routes.ts";
import { Button, Empty, ErrorNote, PageHead, Time } from "../components/ui.tsx";
import { ActionPanel, ReasonView, type Reason, ReceiptDetails, showValue, StateList } from "../components/records-form.tsx";
import { type ContractSpec, loadContract } from "../components/records-schema.tsx";
import "./records.css";

interface Overview {
  readonly tenant: string;
  readonly personal: boolean;
  readonly contracts: readonly { readonly namespace: string; readonly version: string; readonly artifact: string; readonly aggregates: readonly { readonly name: string; readonly records: number }[] }[];
}

interface RecordRead {
  readonly subject: string;
  readonly aggregate: string;
  readonly artifact: string;
  readonly seq: number;
  readonly state: Record<string, unknown>;
}

interface HistoryEntry {
  readonly seq: number;
  readonly action: string;
  readonly signer: string;
  readonly outcome: string;
  readonly reason: Reason | null;
  readonly artifact: string;
  readonly committedAt: string;
  readonly receipt: unknown;
}

/** What the records pages read once: the tenant's contracts and their aggregates. */
interface Installed {
  readonly handle: string;
  readonly contracts: readonly { readonly namespace: string; readonly version: string; readonly artifact: string; readonly installedAt: string; readonly aggregates: readonly { readonly name: string; readonly records: number }[] }[];
}

async function loadInstalled(): Promise<Installed> {
  const [boot, data] = await Promise.all([api<Bootstrap>("GET", "/api/bootstrap"), api<Page<Overview>>("GET", "/api/data?limit=100")]);
  const personal = data.items.find((t) => t.personal);
  const counts = new Map((personal?.contracts ?? []).map((c) => [c.namespace, c.aggregates]));
  return {
    handle: boot.tenant?.handle ?? personal?.tenant ?? "",
    contracts: (boot.tenant?.contracts ?? []).map((c) => ({ ...c, aggregates: counts.get(c.namespace) ?? [] })),
  };
}

export default function RecordsPage(props: PageProps) {
  const [namespace, aggregate, subject] = props.rest;
  const installed = useLoad(loadInstalled, []);
  useFrames(installed.reload, (frame) => frame.kind === "commit" && aggregate === undefined && (namespace === undefined || frame["namespace"] === namespace));
  const contract = installed.data?.contracts.find((c) => c.namespace === namespace);
  const title = namespace === undefined ? "Records" : aggregate === undefined ? namespace : subject === undefined ? `${aggregate} records` : `${aggregate} ${subject}`;
  return (
    <>
      <PageHead title={title}>
        {namespace === undefined ? <p>Every record of the contracts installed on this node, and what you can do with them.</p> : <Crumbs parts={props.rest} />}
      </PageHead>
      <ErrorNote error={installed.error} />
      {installed.data === null ? (
        installed.loading ? <p class="muted">Loading…</p> : null
      ) : namespace === undefined ? (
        <ContractList installed={installed.data} />
      ) : contract === undefined ? (
        <Empty>No contract {namespace} is installed.</Empty>
      ) : aggregate === undefined ? (
        <ContractView namespace={namespace} aggregates={contract.aggregates} version={contract.version} />
      ) : (
        <WithSpec handle={installed.data.handle} namespace={namespace} artifact={contract.artifact}>
          {(spec) => (subject === undefined ? <AggregateView spec={spec} aggregate={aggregate} /> : <RecordView spec={spec} aggregate={aggregate} subject={subject} />)}
        </WithSpec>
      )}
    </>
  );
}

function Crumbs(props: { parts: readonly string[] }) {
  return (
    <nav aria-label="Breadcrumb" class="records-crumbs">
      <ol>
        <li>
          <a href={href("records")}>Records</a>
        </li>
        {props.parts.map((part, i) => (
          <li key={i}>{i === props.parts.length - 1 ? <span aria-current="page">{part}</span> : <a href={href("records", ...props.parts.slice(0, i + 1))}>{part}</a>}</li>
        ))}
      </ol>
    </nav>
  );
}

function ContractList(props: { installed: Installed }) {
  const { contracts } = props.installed;
  if (contracts.length === 0) return <Empty>No contract is installed yet.</Empty>;
  return (
    <ul class="records-contracts" aria-label="Installed contracts">
      {contracts.map((c) => (
        <li key={c.namespace} class="card">
          <h2>
            <a href={href("records", c.namespace)}>{c.namespace}</a>
            <span class="badge">{c.version}</span>
          </h2>
          {c.aggregates.length === 0 ? (
            <p class="muted">No aggregates.</p>
          ) : (
            <ul class="records-aggregates">
              {c.aggregates.map((a) => (
                <li key={a.name}>
                  <a href={href("records", c.namespace, a.name)}>{a.name}</a> <span class="muted">{plural(a.records, "record")}</span>
                </li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}

function ContractView(props: { namespace: string; version: string; aggregates: readonly { readonly name: string; readonly records: number }[] }) {
  return (
    <section aria-labelledby="records-aggregates-title">
      <h2 id="records-aggregates-title">
        Aggregates <span class="badge">version {props.version}</span>
      </h2>
      {props.aggregates.length === 0 ? (
        <Empty>This contract keeps no records.</Empty>
      ) : (
        <ul class="cards">
          {props.aggregates.map((a) => (
            <li key={a.name} class="card row">
              <a href={href("records", props.namespace, a.name)}>{a.name}</a>
              <span class="muted">{plural(a.records, "record")}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Loads the contract's description, then renders `children` with it. */
function WithSpec(props: { handle: string; namespace: string; artifact: string; children: (spec: ContractSpec) => ComponentChildren }) {
  const spec = useLoad(() => loadContract(props.handle, props.namespace, props.artifact), [props.handle, props.namespace, props.artifact]);
  if (spec.error !== null) return <ErrorNote error={`The contract's description could not be read: ${spec.error}`} />;
  if (spec.data === null) return <p class="muted">Loading…</p>;
  return <>{props.children(spec.data)}</>;
}

const PAGE = 20;

function AggregateView(props: { spec: ContractSpec; aggregate: string }) {
  const { spec, aggregate } = props;
  const base = `/api/personal/${encodeURIComponent(spec.namespace)}/${encodeURIComponent(aggregate)}`;
  const [more, setMore] = useState<{ items: readonly RecordRead[]; next: string | null } | null>(null);
  const first = useLoad(() => api<Page<RecordRead>>("GET", `${base}?limit=${PAGE}`), [base]);
  useFrames(
    () => {
      setMore(null);
      first.reload();
    },
    (frame) => isCommitOn(frame, spec.namespace, aggregate),
  );
  const items = [...(first.data?.items ?? []), ...(more?.items ?? [])];
  const next = more === null ? (first.data?.next ?? null) : more.next;
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<string | null>(null);
  const showMore = async () => {
    if (next === null) return;
    setLoadingMore(true);
    try {
      const page = await api<Page<RecordRead>>("GET", `${base}?limit=${PAGE}&after=${encodeURIComponent(next)}`);
      setMore({ items: [...(more?.items ?? []), ...page.items], next: page.next });
      setMoreError(null);
    } catch (error) {
      setMoreError(String((error as Error).message));
    } finally {
      setLoadingMore(false);
    }
  };
  return (
    <div class="records-layout">
      <section aria-labelledby="records-list-title">
        <h2 id="records-list-title">Records</h2>
        <ErrorNote error={first.error ?? moreError} />
        {first.data === null ? null : items.length === 0 ? (
          <Empty>No {aggregate} record yet.</Empty>
        ) : (
          <ul class="cards records-list" aria-label={`${aggregate} records`}>
            {items.map((r) => (
              <li key={r.subject} class="card">
                <a href={href("records", spec.namespace, aggregate, r.subject)}>{r.subject}</a>
                <span class="badge">#{r.seq}</span>
                <p class="muted records-summary">{summary(r.state)}</p>
              </li>
            ))}
          </ul>
        )}
        {next === null ? null : (
          <Button busy={loadingMore} onClick={() => void showMore()}>
            Show more
          </Button>
        )}
      </section>
      <section aria-labelledby="records-act-title">
        <h2 id="records-act-title">Do something</h2>
        <ActionPanel contract={spec} aggregate={aggregate} onSent={() => first.reload()} />
      </section>
    </div>
  );
}

function RecordView(props: { spec: ContractSpec; aggregate: string; subject: string }) {
  const { spec, aggregate, subject } = props;
  const path = `/api/personal/${encodeURIComponent(spec.namespace)}/${encodeURIComponent(aggregate)}/${encodeURIComponent(subject)}`;
  const [older, setOlder] = useState<{ items: readonly HistoryEntry[]; next: string | null } | null>(null);
  const read = useLoad(() => api<{ record: RecordRead | null; history: Page<HistoryEntry> }>("GET", `${path}?limit=${PAGE}`), [path]);
  const reload = () => {
    setOlder(null);
    read.reload();
  };
  useFrames(reload, (frame) => isCommitOn(frame, spec.namespace, aggregate) && frame["subject"] === subject);
  const history = [...(read.data?.history.items ?? []), ...(older?.items ?? [])];
  const next = older === null ? (read.data?.history.next ?? null) : older.next;
  const [moreError, setMoreError] = useState<string | null>(null);
  const showMore = async () => {
    if (next === null) return;
    try {
      const page = await api<{ history: Page<HistoryEntry> }>("GET", `${path}?limit=${PAGE}&after=${encodeURIComponent(next)}`);
      setOlder({ items: [...(older?.items ?? []), ...page.history.items], next: page.history.next });
      setMoreError(null);
    } catch (error) {
      setMoreError(String((error as Error).message));
    }
  };
  const notFound = read.error !== null && read.data === null;
  return (
    <div class="records-layout">
      <section aria-labelledby="records-state-title">
        <h2 id="records-state-title">State</h2>
        {notFound ? (
          <ErrorNote error={read.error} />
        ) : read.data === null ? (
          <p class="muted">Loading…</p>
        ) : read.data.record === null ? (
          <Empty>No record: every command on this subject was refused.</Empty>
        ) : (
          <>
            <p class="muted">
              Last changed by #{read.data.record.seq}; artifact <code class="wrap">{read.data.record.artifact}</code>
            </p>
            <StateList state={read.data.record.state} label={`State of ${subject}`} />
          </>
        )}
      </section>
      <section aria-labelledby="records-act-title">
        <h2 id="records-act-title">Do something</h2>
        <ActionPanel contract={spec} aggregate={aggregate} subject={subject} onSent={reload} />
      </section>
      <section aria-labelledby="records-history-title" class="records-wide">
        <h2 id="records-history-title">History</h2>
        <ErrorNote error={notFound ? null : (read.error ?? moreError)} />
        {history.length === 0 ? (
          read.data === null ? null : <Empty>No history yet.</Empty>
        ) : (
          <ol class="records-history" aria-label={`History of ${subject}`}>
            {history.map((entry) => (
              <li key={entry.seq} class="card" data-outcome={entry.outcome}>
                <div class="records-entry-head">
                  <strong>#{entry.seq}</strong> {entry.action} <span class={`badge ${entry.outcome}`}>{entry.outcome}</span> <Time when={entry.committedAt} />
                </div>
                <p class="muted wrap">signed by {entry.signer}</p>
                {entry.outcome === "refused" ? <ReasonView reason={entry.reason} /> : null}
                <ReceiptDetails receipt={entry.receipt} />
              </li>
            ))}
          </ol>
        )}
        {next === null ? null : <Button onClick={() => void showMore()}>Show older entries</Button>}
      </section>
    </div>
  );
}

function isCommitOn(frame: EventFrame, namespace: string, aggregate: string): boolean {
  return frame.kind === "commit" && frame["namespace"] === namespace && frame["aggregate"] === aggregate;
}

/** A record's first few fields, for the list. */
function summary(state: Record<string, unknown>): string {
  const text = Object.entries(state)
    .slice(0, 4)
    .map(([k, v]) => `${k}: ${showValue(v)}`)
    .join(" · ");
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

