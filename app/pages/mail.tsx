/**
 * @module Mail: the person's email as the node reads it (`/api/comms/*`). `#/mail` lists the
 * threads, the one that moved last first (`GET /api/comms/list`: inbox, starred, or held — mail from
 * senders not on the allow-list — for every account or one, a page at a time), with their unread
 * and starred marks and the counts (`GET /api/comms/counts`); the email approvals waiting for the
 * person; and the people written with (`GET /api/comms/people`: the list route takes no sender
 * filter, so a person leads to a new message to them). `#/mail/<thread>` is one thread
 * (mail-thread.tsx), `#/mail/new` a new message (mail-compose.tsx). With no email account connected
 * the page says so and leads to Settings → Email. Mail arriving, and any change to it, is a
 * `std.comms` commit on the live events (an approval's decision a `std.approvals` one): the page
 * reloads what it shows.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Page, withQuery } from "../lib/api.ts";
import type { EventFrame } from "../lib/events.ts";
import { useBusy, useFrames, useLoad } from "../lib/hooks.ts";
import { href, routeQuery } from "../lib/router.ts";
import type { PageProps } from "../routes.ts";
import { Button, Empty, ErrorNote, Field, PageHead, Time } from "../components/ui.tsx";
import { ApprovalCard, type MailApproval } from "../components/mail-send.tsx";
import { type MailThread, ThreadView, who } from "../components/mail-thread.tsx";
import { Compose, type MailAccount } from "../components/mail-compose.tsx";
import "./mail.css";

interface CommsSettings {
  readonly ask: boolean;
  readonly accounts: readonly MailAccount[];
}

interface Counts {
  readonly unread: number;
  readonly held: number;
  readonly starred: number;
  readonly accounts: Readonly<Record<string, { readonly unread: number; readonly held: number; readonly starred: number }>>;
}

interface ListedThread extends MailThread {
  readonly messages: number;
  readonly unread: number;
}

interface Person {
  readonly address: string;
  readonly name: string;
  readonly received: number;
  readonly sent: number;
  readonly lastAt: string | null;
  readonly allowed: boolean;
}

type Folder = "inbox" | "starred" | "held";
const FOLDERS: readonly { id: Folder; label: string }[] = [
  { id: "inbox", label: "Inbox" },
  { id: "starred", label: "Starred" },
  { id: "held", label: "Held" },
];

/** Threads per page of the list. */
const PAGE = 30;
/** How long live frames are gathered before the page reloads (mail arriving is several commits). */
const SETTLE_MS = 250;

/** The list's hash as last shown, so a thread leads back to the same folder. */
let lastList = href("mail");

/** Whether a live frame may change what the page shows: a commit of the mail or of an approval, or an approval frame. */
function isMailFrame(frame: EventFrame): boolean {
  if (frame.kind === "commit") return frame["namespace"] === "std.comms" || frame["namespace"] === "std.approvals";
  return frame.kind === "approval" || typeof frame["approval"] === "string";
}

function listHref(folder: Folder, account: string): string {
  return withQuery(href("mail"), { filter: folder === "inbox" ? null : folder, account: account === "" ? null : account });
}

export default function MailPage(props: PageProps) {
  const [changes, setChanges] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  useFrames(() => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      setChanges((n) => n + 1);
    }, SETTLE_MS);
  }, isMailFrame);
  const changed = () => setChanges((n) => n + 1);

  const settings = useLoad(() => api<CommsSettings>("GET", "/api/comms/settings"));
  const counts = useLoad(() => api<Counts>("GET", "/api/comms/counts"), [changes]);
  const view = props.rest[0];
  const query = routeQuery();
  const accounts = settings.data?.accounts ?? [];

  let body;
  if (settings.data === null) body = settings.error === null ? <p class="boot">Loading…</p> : null;
  else if (accounts.length === 0) body = <NoAccount />;
  else if (view === undefined || view === "") {
    const filter = query.get("filter");
    const folder: Folder = filter === "starred" || filter === "held" ? filter : "inbox";
    const account = accounts.some((a) => a.id === query.get("account")) ? (query.get("account") as string) : "";
    lastList = listHref(folder, account);
    body = <ListView folder={folder} account={account} accounts={accounts} counts={counts.data} changes={changes} onChanged={changed} />;
  } else if (view === "new") body = <Compose key={query.get("to") ?? ""} accounts={accounts} to={query.get("to") ?? ""} back={lastList} onSent={changed} />;
  else body = <ThreadView id={view} back={lastList} changes={changes} onChanged={changed} />;

  return (
    <>
      <PageHead title="Mail">
        {counts.data === null || accounts.length === 0 ? (
          <p>Your email, as this node reads it.</p>
        ) : (
          <p>
            {counts.data.unread} unread · {counts.data.starred} starred · {counts.data.held} held from unknown senders
          </p>
        )}
      </PageHead>
      <ErrorNote error={settings.error ?? counts.error} />
      {accounts.length === 0 || (view !== undefined && view !== "") ? null : (
        <p class="mail-write">
          <a class="btn primary" href={href("mail", "new")}>
            Write a message
          </a>
        </p>
      )}
      {body}
      {settings.data !== null && accounts.length > 0 && !accounts.some((a) => a.imap === true && a.reading) ? (
        <p class="muted">
          None of your email accounts is read by the node (no IMAP server, or reading turned off): <a href={href("settings", "email")}>Settings → Email</a>.
        </p>
      ) : null}
    </>
  );
}

function NoAccount() {
  return (
    <section class="card mail-none" aria-labelledby="mail-none-title">
      <h2 id="mail-none-title">No email account connected</h2>
      <p>This node reads and sends no mail yet. Connect an email account (its IMAP server to read, its SMTP server to send) and your mail appears here.</p>
      <p>
        <a class="btn primary" href={href("settings", "email")}>
          Connect an account in Settings → Email
        </a>
      </p>
    </section>
  );
}

function ListView(props: { folder: Folder; account: string; accounts: readonly MailAccount[]; counts: Counts | null; changes: number; onChanged: () => void }) {
  const { folder, account } = props;
  const counts = props.counts === null ? null : account === "" ? props.counts : (props.counts.accounts[account] ?? { unread: 0, held: 0, starred: 0 });
  const countOf = (f: Folder) => (counts === null ? "" : f === "inbox" ? (counts.unread > 0 ? ` (${counts.unread} unread)` : "") : ` (${f === "held" ? counts.held : counts.starred})`);
  return (
    <>
      <div class="mail-bar">
        <nav aria-label="Mail folders" class="mail-folders">
          <ul>
            {FOLDERS.map((f) => (
              <li key={f.id}>
                <a href={listHref(f.id, account)} aria-current={f.id === folder ? "page" : undefined}>
                  {f.label}
                  {countOf(f.id)}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {props.accounts.length < 2 ? null : (
          <Field label="Account">
            {(id) => (
              <select id={id} value={account} onChange={(e) => (location.hash = listHref(folder, e.currentTarget.value))}>
                <option value="">All accounts</option>
                {props.accounts.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.from === "" ? a.id : `${a.from} (${a.id})`}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
      </div>
      <Threads folder={folder} account={account} own={props.accounts.map((a) => a.from.toLowerCase())} changes={props.changes} onChanged={props.onChanged} />
      <WaitingApprovals changes={props.changes} />
      <People changes={props.changes} />
    </>
  );
}

const TITLES: Record<Folder, string> = { inbox: "Inbox", starred: "Starred", held: "Held from unknown senders" };
const EMPTY: Record<Folder, string> = {
  inbox: "Nothing in the inbox.",
  starred: "No starred thread.",
  held: "Nothing held: mail from a sender not on your allow-list would wait here.",
};

function Threads(props: { folder: Folder; account: string; own: readonly string[]; changes: number; onChanged: () => void }) {
  const { folder, account } = props;
  const first = useLoad(() => api<Page<ListedThread>>("GET", withQuery("/api/comms/list", { filter: folder, account, limit: PAGE })), [folder, account, props.changes]);
  const [more, setMore] = useState<{ items: readonly ListedThread[]; next: string | null } | null>(null);
  const [run, busy, error] = useBusy();
  useEffect(() => setMore(null), [folder, account, props.changes]);
  const items = [...(first.data?.items ?? []), ...(more?.items ?? [])];
  const next = more === null ? (first.data?.next ?? null) : more.next;

  const star = (thread: ListedThread) =>
    void run(async () => {
      await api("POST", `/api/comms/threads/${encodeURIComponent(thread.id)}/star`, { starred: !thread.starred });
      props.onChanged();
    });
  const loadMore = () =>
    void run(async () => {
      const page = await api<Page<ListedThread>>("GET", withQuery("/api/comms/list", { filter: folder, account, limit: PAGE, after: next }));
      setMore((m) => ({ items: [...(m?.items ?? []), ...page.items], next: page.next }));
    });

  return (
    <section aria-labelledby="mail-list-title">
      <h2 id="mail-list-title">{TITLES[folder]}</h2>
      {folder === "held" ? <p class="muted">Mail from senders not on your allow-list waits here, out of the inbox and away from the assistant, until you allow its sender.</p> : null}
      <ErrorNote error={first.error ?? error} />
      {first.data === null ? null : items.length === 0 ? (
        <Empty>{EMPTY[folder]}</Empty>
      ) : (
        <ul class="mail-list" aria-busy={first.loading ? "true" : "false"}>
          {items.map((t) => (
            <li key={t.id} class={`mail-item card${t.unread > 0 ? " unread" : ""}`} data-thread={t.id}>
              <div class="mail-item-main">
                <div class="mail-item-top">
                  <span class="mail-from wrap">{props.own.includes(t.lastFrom.address.toLowerCase()) ? "You" : t.lastFrom.name || t.lastFrom.address || "(unknown sender)"}</span>
                  <span class="muted mail-when">
                    <Time when={t.lastAt} />
                  </span>
                </div>
                <a class="mail-subject wrap" href={href("mail", t.id)}>
                  {t.subject === "" ? "(no subject)" : t.subject}
                </a>
                <p class="mail-snippet muted">{t.snippet}</p>
                <p class="mail-marks">
                  {t.unread > 0 ? <span class="badge mail-unread-badge">{t.unread} unread</span> : null}
                  {t.messages > 1 ? <span class="badge">{t.messages} messages</span> : null}
                  {t.held ? <span class="badge mail-held-badge">held</span> : null}
                  {account === "" ? <span class="badge">{t.account}</span> : null}
                </p>
              </div>
              <button type="button" class={`mail-star${t.starred ? " on" : ""}`} aria-pressed={t.starred ? "true" : "false"} aria-label={`Star “${t.subject || "(no subject)"}” from ${who(t.lastFrom)}`} disabled={busy} onClick={() => star(t)}>
                {t.starred ? "★" : "☆"}
              </button>
            </li>
          ))}
        </ul>
      )}
      {next === null ? null : (
        <Button busy={busy} onClick={loadMore}>
          Show older threads
        </Button>
      )}
    </section>
  );
}

/** Email approvals waiting for the person (a reply or a message sent while the settings ask first). */
function WaitingApprovals(props: { changes: number }) {
  const waiting = useLoad(() => api<Page<MailApproval>>("GET", "/api/approvals?status=waiting&limit=50"), [props.changes]);
  const [decided, setDecided] = useState<readonly MailApproval[]>([]);
  const items = [...(waiting.data?.items ?? []).filter((a) => a.kind === "email" && !decided.some((d) => d.id === a.id)), ...decided];
  if (items.length === 0 && waiting.error === null) return null;
  return (
    <section aria-labelledby="mail-waiting-title">
      <h2 id="mail-waiting-title">Waiting to be sent</h2>
      <ErrorNote error={waiting.error} />
      <ul class="cards">
        {items.map((a) => (
          <li key={a.id}>
            <ApprovalCard approval={a} level={3} onDecided={() => setDecided((d) => [...d, a])} />
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The people written with, most mail first; each leads to a new message. */
function People(props: { changes: number }) {
  const people = useLoad(() => api<{ items: readonly Person[] }>("GET", "/api/comms/people?limit=20"), [props.changes]);
  const items = people.data?.items ?? [];
  return (
    <section aria-labelledby="mail-people-title">
      <h2 id="mail-people-title">People</h2>
      <ErrorNote error={people.error} />
      {people.data === null ? null : items.length === 0 ? (
        <Empty>Nobody yet: the people you receive mail from and write to appear here.</Empty>
      ) : (
        <ul class="mail-people" aria-label="People you exchange mail with">
          {items.map((p) => (
            <li key={p.address} class="card">
              <div class="mail-person">
                <strong class="wrap">{who(p)}</strong>
                <span class="muted">
                  {p.received} received · {p.sent} sent · {p.allowed ? "allowed" : "not allowed (held)"} · last <Time when={p.lastAt} />
                </span>
              </div>
              <a href={withQuery(href("mail", "new"), { to: p.name === "" ? p.address : `"${p.name.replaceAll('"', "")}" <${p.address}>` })} aria-label={`Write to ${who(p)}`}>
                Write
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
