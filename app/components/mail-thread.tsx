/**
 * @module Mail: one thread (`GET /api/comms/threads/{id}`), its messages oldest first as the text
 * the node kept (never a message's HTML: it is shown as text, line breaks kept). Star it
 * (`…/star`), mark it read or unread (`…/seen`; opening a thread with unread mail marks it read),
 * let a held thread's senders in (`…/allow`), translate a message (`POST /api/comms/translate`, or
 * the node's refusal when no model can), and reply (`…/reply`: the node answers an approval to
 * decide, or the message queued). `changes` goes up on each live frame of the mail, reloading it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, withQuery } from "../lib/api.ts";
import { useBusy, useLoad } from "../lib/hooks.ts";
import { Button, ErrorNote, Field, Status, Time } from "./ui.tsx";
import { EffectState, type MailMessage, type SendAnswer, SendResult } from "./mail-send.tsx";

/** A thread as `/api/comms` answers it. */
export interface MailThread {
  readonly id: string;
  readonly account: string;
  readonly subject: string;
  readonly startedAt: string | null;
  readonly lastAt: string | null;
  readonly lastFrom: { readonly address: string; readonly name: string };
  readonly snippet: string;
  readonly held: boolean;
  readonly starred: boolean;
}

interface ThreadAnswer extends MailThread {
  readonly messages: readonly MailMessage[];
  readonly next: string | null;
}

/** Messages of a thread read at once. */
const PAGE = 100;

/** A person's name and address, as a line says it. */
export function who(person: { readonly address: string; readonly name: string }): string {
  if (person.name === "") return person.address === "" ? "(unknown sender)" : person.address;
  return person.address === "" ? person.name : `${person.name} <${person.address}>`;
}

export function ThreadView(props: { id: string; back: string; changes: number; onChanged: () => void }) {
  const thread = useLoad(() => api<ThreadAnswer>("GET", withQuery(`/api/comms/threads/${encodeURIComponent(props.id)}`, { limit: PAGE })), [props.id, props.changes]);
  const [more, setMore] = useState<{ messages: readonly MailMessage[]; next: string | null }>({ messages: [], next: null });
  const [run, busy, error] = useBusy();
  const [note, setNote] = useState<string | null>(null);
  const markedSeen = useRef<string | null>(null);
  useEffect(() => setMore({ messages: [], next: null }), [props.id, props.changes]);

  const data = thread.data?.id === props.id ? thread.data : null;
  // Opened, a thread's unread mail is read: marked seen once per opening.
  useEffect(() => {
    if (data === null || markedSeen.current === props.id) return;
    markedSeen.current = props.id;
    if (!data.messages.some((m) => m.direction === "received" && !m.seen && !m.held)) return;
    void run(() => api("POST", `/api/comms/threads/${encodeURIComponent(props.id)}/seen`, { seen: true })).then(props.onChanged);
  }, [data, props.id]);

  if (data === null) {
    return (
      <>
        <p>
          <a href={props.back}>← All mail</a>
        </p>
        <ErrorNote error={thread.error} />
        {thread.error === null ? <p class="boot">Loading…</p> : null}
      </>
    );
  }
  const messages = [...data.messages, ...more.messages];
  const next = more.next ?? (more.messages.length === 0 ? data.next : null);
  const unseen = messages.some((m) => m.direction === "received" && !m.seen && !m.held);
  const title = data.subject === "" ? "(no subject)" : data.subject;

  const act = (path: string, body: unknown, done: (answer: Record<string, unknown>) => string) =>
    void run(async () => {
      const answer = await api<Record<string, unknown>>("POST", `/api/comms/threads/${encodeURIComponent(data.id)}/${path}`, body);
      setNote(done(answer));
      thread.reload();
      props.onChanged();
    });

  const loadMore = () =>
    void run(async () => {
      const page = await api<ThreadAnswer>("GET", withQuery(`/api/comms/threads/${encodeURIComponent(data.id)}`, { limit: PAGE, after: next }));
      setMore((m) => ({ messages: [...m.messages, ...page.messages], next: page.next }));
    });

  return (
    <article class="mail-thread" aria-labelledby="mail-thread-title">
      <p>
        <a href={props.back}>← All mail</a>
      </p>
      <h2 id="mail-thread-title" class="wrap">
        {title}
      </h2>
      <p class="muted">
        {messages.length} {messages.length === 1 ? "message" : "messages"} in <span class="badge">{data.account}</span>
        {data.starred ? <span class="badge mail-star-badge">starred</span> : null}
        {data.held ? <span class="badge mail-held-badge">held</span> : null}
      </p>
      <div class="buttons">
        <Button busy={busy} aria-pressed={data.starred ? "true" : "false"} onClick={() => act("star", { starred: !data.starred }, (a) => (a["starred"] === true ? "Starred." : "No longer starred."))}>
          {data.starred ? "★ Starred" : "☆ Star"}
        </Button>
        <Button busy={busy} onClick={() => act("seen", { seen: unseen }, (a) => `${String(a["changed"] ?? 0)} ${unseen ? "marked read" : "marked unread"}.`)}>
          {unseen ? "Mark as read" : "Mark as unread"}
        </Button>
      </div>
      {data.held ? <HeldNote thread={data} busy={busy} onAllow={() => act("allow", {}, allowedText)} /> : null}
      {note === null ? null : <Status>{note}</Status>}
      <ErrorNote error={thread.error ?? error} />
      <ol class="mail-messages">
        {messages.map((message) => (
          <li key={message.id}>
            <Message message={message} />
          </li>
        ))}
      </ol>
      {next === null ? null : (
        <Button busy={busy} onClick={loadMore}>
          Show later messages
        </Button>
      )}
      <Reply thread={data} onSent={() => (thread.reload(), props.onChanged())} />
    </article>
  );
}

function allowedText(answer: Record<string, unknown>): string {
  const allowed = Array.isArray(answer["allowed"]) ? (answer["allowed"] as unknown[]).map(String) : [];
  const released = Number(answer["released"] ?? 0);
  if (allowed.length === 0) return "Nobody new to allow: the senders are on your list already.";
  return `Allowed ${allowed.join(", ")}; ${released} ${released === 1 ? "message" : "messages"} let into the inbox.`;
}

function HeldNote(props: { thread: MailThread; busy: boolean; onAllow: () => void }) {
  return (
    <div class="mail-held card">
      <p>This thread is held: its sender is not on your allow-list, so it stays out of the inbox and away from the assistant.</p>
      <Button kind="primary" busy={props.busy} onClick={props.onAllow}>
        Allow the sender and move it to the inbox
      </Button>
    </div>
  );
}

/** One message: who, to whom, when, its text; translation on request. */
function Message(props: { message: MailMessage }) {
  const m = props.message;
  const titleId = `mail-msg-${m.id}`;
  return (
    <section class={`mail-message card ${m.direction}${m.seen || m.direction === "sent" ? "" : " unread"}`} aria-labelledby={titleId} data-message={m.id}>
      <header class="mail-message-head">
        <h3 id={titleId} class="wrap">
          {m.direction === "sent" ? `You (${who(m.from)})` : who(m.from)}
        </h3>
        <span class="muted">
          <Time when={m.date} />
        </span>
      </header>
      <dl class="mail-fields">
        {m.to.length === 0 ? null : (
          <>
            <dt>To</dt>
            <dd class="wrap">{m.to.join(", ")}</dd>
          </>
        )}
        {m.cc.length === 0 ? null : (
          <>
            <dt>Cc</dt>
            <dd class="wrap">{m.cc.join(", ")}</dd>
          </>
        )}
        {m.subject === "" ? null : (
          <>
            <dt>Subject</dt>
            <dd class="wrap">{m.subject}</dd>
          </>
        )}
      </dl>
      <p class="mail-marks">
        {m.direction === "sent" ? <span class="badge">sent</span> : null}
        {m.held ? <span class="badge mail-held-badge">held</span> : null}
        {m.direction === "received" && !m.seen && !m.held ? <span class="badge mail-unread-badge">unread</span> : null}
      </p>
      <div class="mail-text">{m.text === "" ? <span class="muted">(no text)</span> : m.text}</div>
      {m.truncated ? <p class="muted">This message was longer: only its beginning was kept.</p> : null}
      {m.effect === null ? null : <EffectState effect={m.effect} />}
      {m.text === "" ? null : <Translate text={m.text} label={who(m.from)} />}
    </section>
  );
}

/** The language translations go into: the browser's, by name. */
function defaultLanguage(): string {
  try {
    const tag = navigator.language || "en";
    return new Intl.DisplayNames(["en"], { type: "language" }).of(tag.split("-")[0] ?? "en") ?? "English";
  } catch {
    return "English";
  }
}

function Translate(props: { text: string; label: string }) {
  const [open, setOpen] = useState(false);
  const [to, setTo] = useState(defaultLanguage);
  const [result, setResult] = useState<{ text: string; to: string; model: string } | null>(null);
  const [run, busy, error] = useBusy();
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => setResult(await api<{ text: string; to: string; model: string }>("POST", "/api/comms/translate", { text: props.text.slice(0, 20_000), to: to.trim() })));
  };
  if (!open)
    return (
      <div class="buttons">
        <Button aria-label={`Translate the message from ${props.label}`} onClick={() => setOpen(true)}>
          Translate
        </Button>
      </div>
    );
  return (
    <div class="mail-translate">
      <form class="inline-form" onSubmit={submit}>
        <Field label="Translate into">{(id) => <input id={id} value={to} maxLength={40} onInput={(e) => setTo(e.currentTarget.value)} />}</Field>
        <Button type="submit" busy={busy}>
          Translate
        </Button>
        <Button onClick={() => (setOpen(false), setResult(null))}>Close</Button>
      </form>
      <ErrorNote error={error} />
      {result === null ? null : (
        <div class="mail-translation">
          <p class="muted">
            In {result.to}, by {result.model}:
          </p>
          <div class="mail-text" tabIndex={0} role="region" aria-label={`Translation into ${result.to}`}>
            {result.text}
          </div>
        </div>
      )}
    </div>
  );
}

/** The reply form: the node answers an approval or the queued message. */
function Reply(props: { thread: MailThread; onSent: () => void }) {
  const [text, setText] = useState("");
  const [answer, setAnswer] = useState<SendAnswer | null>(null);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [run, busy, error] = useBusy();
  useEffect(() => {
    setAnswer(null);
    setText("");
  }, [props.thread.id]);
  const submit = (event: Event) => {
    event.preventDefault();
    setFieldError(null);
    void run(async () => {
      try {
        const sent = await api<SendAnswer>("POST", `/api/comms/threads/${encodeURIComponent(props.thread.id)}/reply`, { text });
        setAnswer(sent);
        setText("");
        props.onSent();
      } catch (failure) {
        const errors = (failure as { body?: { errors?: { pointer?: string; detail?: string }[] } | null }).body?.errors ?? [];
        const onText = errors.find((e) => e.pointer === "#/text");
        if (onText !== undefined) setFieldError(onText.detail ?? null);
        throw failure;
      }
    });
  };
  return (
    <section class="mail-reply" aria-labelledby="mail-reply-title">
      <h3 id="mail-reply-title">Reply</h3>
      <form class="stack" onSubmit={submit}>
        <Field label="Your reply" error={fieldError} hint="Plain text; any signature you set for the account is added.">
          {(id, describedBy) => <textarea id={id} aria-describedby={describedBy} rows={5} value={text} onInput={(e) => setText(e.currentTarget.value)} />}
        </Field>
        <div class="buttons">
          <Button type="submit" kind="primary" busy={busy}>
            Send the reply
          </Button>
        </div>
      </form>
      <ErrorNote error={error} />
      {answer === null ? null : <SendResult answer={answer} level={4} onDecided={props.onSent} />}
    </section>
  );
}
