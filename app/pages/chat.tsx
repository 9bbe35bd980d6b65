/**
 * @module Assistant: the person's conversation with their assistant. The thread (`GET
 * /api/messages`, every page, the latest shown first with earlier ones on request), sending (`POST
 * /api/messages`; Enter sends, Shift+Enter starts a new line), the reply streaming in from the
 * `/api/events` frames (`text` deltas, `turn` status changes), and inline in each turn what the
 * assistant did (`GET /api/turns/{id}`): its tool calls, an approval waiting for the person with the
 * exact command and the dry run's state (`POST /api/approvals/{id}`), what an approved command
 * committed, and questions it asked (`POST /api/asks/{id}/answer`). A running turn can be stopped
 * (`POST /api/cancel`), a failed one retried. Branches: one starts from any message, the conversation
 * picker switches (the route `#/chat/<branch>`), a branch merges back as a summary. Suggestions fill
 * the message box. A polite live region says when the assistant finished, not every word.
 */
import { Fragment } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, messageOf, type Page, Refusal, withQuery } from "../lib/api.ts";
import type { EventFrame } from "../lib/events.ts";
import { useBusy, useFrames, useLoad } from "../lib/hooks.ts";
import { href, navigate } from "../lib/router.ts";
import type { PageProps } from "../routes.ts";
import { Button, Empty, ErrorNote, Field, PageHead, Time } from "../components/ui.tsx";
import { type ApprovalItem, type Ask, type Decision, TurnBlock, type TurnDetail, type TurnStatus } from "../components/chat-turn.tsx";
import "./chat.css";

interface Message {
  readonly id: string;
  readonly role: "person" | "assistant";
  readonly status: "complete" | "partial";
  readonly conversation: string;
  readonly text: string;
  readonly attachments: readonly string[];
  readonly turn: string | null;
  readonly at: string | null;
  readonly reactions: readonly string[];
  readonly branch: string | null;
}

interface Branch {
  readonly id: string;
  readonly parent: string;
  readonly from: string;
  readonly title: string;
  readonly status: "open" | "merging" | "merged" | "closed";
  readonly createdAt: string | null;
  readonly mergeTurn: string | null;
  readonly summary: string | null;
}

interface Suggestion {
  readonly text: string;
  readonly kind: string;
  readonly ref: string;
}

interface BootModel {
  readonly model: { readonly configured: boolean; readonly connection?: string; readonly model?: string };
}

const MAIN = "main";
/** Messages shown at first, and how many more each "Show earlier" adds. */
const WINDOW = 60;
/** The most pages of messages read (200 each). */
const MAX_PAGES = 50;
const REACTIONS: readonly { readonly emoji: string; readonly name: string }[] = [
  { emoji: "👍", name: "thumbs up" },
  { emoji: "👎", name: "thumbs down" },
];
const TERMINAL: ReadonlySet<string> = new Set(["done", "failed", "cancelled"]);

/** Every message of `conversation`, oldest first. */
async function allMessages(conversation: string): Promise<Message[]> {
  const out: Message[] = [];
  let after: string | null = null;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page: Page<Message> = await api<Page<Message>>("GET", withQuery("/api/messages", { conversation, limit: 200, after }));
    out.push(...page.items);
    if (page.next === null) break;
    after = page.next;
  }
  return out;
}

export default function ChatPage(props: PageProps) {
  const conversation = props.rest[0] ?? MAIN;
  const boot = useLoad(() => api<BootModel>("GET", "/api/bootstrap"));
  const [messages, setMessages] = useState<readonly Message[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [details, setDetails] = useState<ReadonlyMap<string, TurnDetail>>(new Map());
  const [statuses, setStatuses] = useState<ReadonlyMap<string, TurnStatus>>(new Map());
  const [streams, setStreams] = useState<ReadonlyMap<string, string>>(new Map());
  const [approvals, setApprovals] = useState<readonly ApprovalItem[]>([]);
  const [asks, setAsks] = useState<readonly Ask[]>([]);
  const [branches, setBranches] = useState<readonly Branch[]>([]);
  const [decisions, setDecisions] = useState<ReadonlyMap<string, Decision>>(new Map());
  const [answered, setAnswered] = useState<ReadonlyMap<string, Ask>>(new Map());
  const [suggestions, setSuggestions] = useState<readonly Suggestion[]>([]);
  const [announce, setAnnounce] = useState("");
  const [shown, setShown] = useState(WINDOW);
  const [draft, setDraft] = useState("");
  const [sendError, setSendError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [run, busy, actionError] = useBusy();
  const input = useRef<HTMLTextAreaElement>(null);
  const latestLoad = useRef(0);
  /** The turns of this conversation's thread (and those just sent), for the frames. */
  const ourTurns = useRef(new Set<string>());
  /** The last status a frame gave each recent turn, ours or not yet known to be: a turn's frames can
   * come before the answer to the POST that started it (a model that fails at once). */
  const frameStatus = useRef(new Map<string, string>());
  const streamsRef = useRef(streams);
  streamsRef.current = streams;
  const reloadTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const nearBottom = useRef(true);
  /** The message to focus once "Show earlier messages" rendered it. */
  const focusAfter = useRef<string | null>(null);
  /** How many times each turn was read, so that only the latest read counts. */
  const turnReads = useRef(new Map<string, number>());

  const loadMessages = () => {
    const mine = ++latestLoad.current;
    allMessages(conversation).then(
      (items) => {
        if (latestLoad.current !== mine) return;
        setMessages(items);
        setLoadError(null);
        for (const m of items) if (m.turn !== null) ourTurns.current.add(m.turn);
      },
      (failure: unknown) => {
        if (latestLoad.current === mine) setLoadError(messageOf(failure));
      },
    );
  };
  const fetchTurn = (id: string) => {
    const mine = (turnReads.current.get(id) ?? 0) + 1;
    turnReads.current.set(id, mine);
    api<TurnDetail>("GET", `/api/turns/${encodeURIComponent(id)}`).then(
      (detail) => {
        if (turnReads.current.get(id) !== mine) return;
        setDetails((map) => new Map(map).set(id, detail));
        // Read after the frame that asked for it, the detail's status is the latest: a frame can come
        // late (the node says "queued" once the turn is handed over, which may be after it ran).
        setStatuses((map) => (map.has(id) ? new Map(map).set(id, detail.status) : map));
      },
      () => undefined,
    );
  };
  const loadApprovals = () => api<Page<ApprovalItem>>("GET", "/api/approvals?status=waiting&limit=200").then((page) => setApprovals(page.items), () => undefined);
  const loadAsks = () => api<Page<Ask>>("GET", "/api/asks?status=open&limit=200").then((page) => setAsks(page.items), () => undefined);
  const loadBranches = () => api<Page<Branch>>("GET", "/api/branches?status=all&limit=200").then((page) => setBranches(page.items), () => undefined);
  const loadSuggestions = () => api<{ items: Suggestion[] }>("GET", "/api/suggestions").then((answer) => setSuggestions(answer.items), () => undefined);
  /** Reads the thread and the branches again a moment after a burst of commits. */
  const reloadSoon = () => {
    clearTimeout(reloadTimer.current);
    reloadTimer.current = setTimeout(() => {
      loadMessages();
      void loadBranches();
    }, 150);
  };

  useEffect(() => {
    setMessages(null);
    setShown(WINDOW);
    ourTurns.current = new Set();
    loadMessages();
    return () => clearTimeout(reloadTimer.current);
  }, [conversation]);
  useEffect(() => {
    void loadApprovals();
    void loadAsks();
    void loadBranches();
    void loadSuggestions();
  }, []);

  // Each turn of the thread shown is read once (and again when a frame says it changed).
  const visible = messages === null ? [] : messages.slice(Math.max(0, messages.length - shown));
  const visibleTurns = [...new Set(visible.flatMap((m) => (m.turn === null ? [] : [m.turn])))];
  useEffect(() => {
    for (const turn of visibleTurns) if (!details.has(turn)) fetchTurn(turn);
  }, [visibleTurns.join(" ")]);

  // The page follows the conversation as it grows, unless the person scrolled up to read.
  useEffect(() => {
    const onScroll = () => {
      nearBottom.current = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 160;
    };
    addEventListener("scroll", onScroll, { passive: true });
    return () => removeEventListener("scroll", onScroll);
  }, []);
  useEffect(() => {
    if (nearBottom.current && messages !== null) window.scrollTo({ top: document.documentElement.scrollHeight });
  }, [messages, streams]);

  useFrames((frame: EventFrame) => {
    const turn = typeof frame["turn"] === "string" ? frame["turn"] : null;
    switch (frame.kind) {
      case "text": {
        const delta = frame["delta"];
        if (turn !== null && typeof delta === "string") setStreams((map) => new Map(map).set(turn, (map.get(turn) ?? "") + delta));
        return;
      }
      case "turn": {
        const status = frame["status"];
        if (turn === null || typeof status !== "string") return;
        setStatuses((map) => new Map(map).set(turn, status as TurnStatus));
        frameStatus.current.delete(turn);
        frameStatus.current.set(turn, status);
        if (frameStatus.current.size > 64) frameStatus.current.delete(frameStatus.current.keys().next().value as string);
        const ours = ourTurns.current.has(turn);
        if (ours) fetchTurn(turn);
        if (status === "waiting-approval") void loadApprovals();
        if (status === "waiting-ask") void loadAsks();
        if (TERMINAL.has(status)) {
          reloadSoon();
          void loadApprovals();
          void loadAsks();
          void loadSuggestions();
        }
        if (ours) setAnnounce(announcement(status, streamsRef.current.get(turn) ?? ""));
        return;
      }
      case "approval": {
        // `{approval, approvalKind, status, turn, …}`: the frame's own `kind` is "approval".
        const id = frame["approval"];
        if (typeof id === "string" && frame["status"] !== "waiting") setApprovals((list) => list.filter((a) => a.id !== id));
        void loadApprovals();
        if (turn !== null && ourTurns.current.has(turn)) fetchTurn(turn);
        return;
      }
      case "ask":
        void loadAsks();
        return;
      case "commit":
        if (frame["namespace"] === "std.conversation") reloadSoon();
        return;
    }
  });

  const send = async (text: string) => {
    if (text.trim() === "" || sending) return;
    setSending(true);
    setSendError(null);
    try {
      const sent = await api<{ id: string; turn: string }>("POST", "/api/messages", { text, conversation });
      ourTurns.current.add(sent.turn);
      setStatuses((map) => (map.has(sent.turn) ? map : new Map(map).set(sent.turn, "queued")));
      // Frames that came before this answer found the turn not yet ours: catch up on them.
      const early = frameStatus.current.get(sent.turn);
      if (early !== undefined) {
        fetchTurn(sent.turn);
        setAnnounce(announcement(early, streamsRef.current.get(sent.turn) ?? ""));
      }
      setDraft("");
      nearBottom.current = true;
      loadMessages();
    } catch (failure) {
      setSendError(messageOf(failure));
      // The node says no model is configured: the note says so too.
      if (failure instanceof Refusal && failure.code === "no-model") boot.reload();
    } finally {
      setSending(false);
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void send(draft);
    }
  };

  const branch = conversation === MAIN ? null : (branches.find((b) => b.id === conversation) ?? null);
  const branchTitle = (id: string) => branches.find((b) => b.id === id)?.title ?? id;
  const startBranch = (from: Message) =>
    void run(async () => {
      const opened = await api<Branch>("POST", "/api/branches", { from: from.id });
      await loadBranches();
      navigate("chat", opened.id);
    });
  const merge = (b: Branch) =>
    void run(async () => {
      await api("POST", `/api/branches/${encodeURIComponent(b.id)}/merge`, {});
      await loadBranches();
      setAnnounce(`Merging “${b.title}”: its summary will appear in the conversation it came from.`);
      navigate(...(b.parent === MAIN ? ["chat"] : ["chat", b.parent]));
    });
  const close = (b: Branch) =>
    void run(async () => {
      await api("POST", `/api/branches/${encodeURIComponent(b.id)}/close`, {});
      await loadBranches();
    });
  const react = (m: Message, reaction: string) =>
    void run(async () => {
      const updated = await api<Message>("POST", `/api/messages/${encodeURIComponent(m.id)}/reactions`, { reaction });
      setMessages((list) => (list === null ? list : list.map((x) => (x.id === m.id ? { ...x, reactions: updated.reactions } : x))));
    });
  const onDecided = (approval: string, decision: Decision) => {
    setDecisions((map) => new Map(map).set(approval, decision));
    setApprovals((list) => list.filter((a) => a.id !== approval));
    if (decision.turn !== null) fetchTurn(decision.turn);
    setAnnounce(decision.approved ? (decision.receipt?.outcome === "refused" ? "Approved, but the node refused the command." : "Approved and committed.") : "Denied: nothing was done.");
  };
  const onAnswered = (ask: Ask) => {
    setAnswered((map) => new Map(map).set(ask.id, ask));
    setAsks((list) => list.filter((a) => a.id !== ask.id));
    setAnnounce("Answered.");
  };
  const retried = (turn: string) => {
    // The turn runs again from the start: what streamed in the failed run is not its reply.
    setStreams((map) => {
      const next = new Map(map);
      next.delete(turn);
      return next;
    });
    fetchTurn(turn);
    changed();
  };
  const showEarlier = () => {
    if (messages === null) return;
    // Focus goes to the earliest of the messages now shown (the button may go away): one reads on down from there.
    focusAfter.current = messages[Math.max(0, messages.length - shown - WINDOW)]?.id ?? null;
    nearBottom.current = false;
    setShown(shown + WINDOW);
  };
  useEffect(() => {
    const id = focusAfter.current;
    if (id === null) return;
    focusAfter.current = null;
    document.querySelector<HTMLElement>(`.chat-msg[data-message="${CSS.escape(id)}"]`)?.focus();
  }, [shown]);
  const changed = () => {
    loadMessages();
    void loadApprovals();
    void loadAsks();
  };

  // The turn blocks, each right after the message that started it (or before a reply with none).
  const placed = new Set<string>();
  const turnBlock = (turn: string) => {
    if (placed.has(turn)) return null;
    placed.add(turn);
    const hasReply = visible.some((m) => m.role === "assistant" && m.turn === turn);
    const stream = streams.get(turn);
    return (
      <TurnBlock
        key={`turn-${turn}`}
        turn={turn}
        detail={details.get(turn) ?? null}
        status={statuses.get(turn) ?? null}
        streaming={hasReply || stream === undefined || stream === "" ? null : stream}
        approvals={approvals}
        asks={asks}
        decisions={decisions}
        answered={answered}
        onDecided={onDecided}
        onAnswered={onAnswered}
        onChanged={changed}
        onRetried={() => retried(turn)}
      />
    );
  };
  const threadTurns = new Set(visibleTurns);
  const elsewhere = approvals.filter((a) => a.turn === null || !threadTurns.has(a.turn));
  const configured = boot.data?.model.configured;

  return (
    <>
      <PageHead title="Assistant">
        <p>Ask for anything; changes the assistant proposes wait for your approval.</p>
      </PageHead>
      {configured === false ? (
        <p class="chat-note" role="note">
          No model is configured yet, so the assistant cannot answer. <a href={href("settings")}>Choose a model in Settings</a>.
        </p>
      ) : null}

      <div class="chat-bar">
        <div class="field inline">
          <label for="chat-conversation">Conversation</label>
          <select id="chat-conversation" value={conversation} onChange={(e) => (e.currentTarget.value === MAIN ? navigate("chat") : navigate("chat", e.currentTarget.value))}>
            <option value={MAIN}>Main conversation</option>
            {branches.map((b) => (
              <option key={b.id} value={b.id}>
                Branch: {b.title} ({b.status})
              </option>
            ))}
            {conversation !== MAIN && branch === null ? <option value={conversation}>{conversation}</option> : null}
          </select>
        </div>
        {branch === null ? null : (
          <div class="buttons">
            {branch.status === "open" ? (
              <>
                <Button kind="primary" busy={busy} onClick={() => merge(branch)}>
                  Merge into {branch.parent === MAIN ? "the main conversation" : branchTitle(branch.parent)}
                </Button>
                <Button busy={busy} onClick={() => close(branch)}>
                  Close the branch
                </Button>
              </>
            ) : null}
            <a class="btn plain" href={branch.parent === MAIN ? href("chat") : href("chat", branch.parent)}>
              Back to {branch.parent === MAIN ? "the main conversation" : branchTitle(branch.parent)}
            </a>
          </div>
        )}
      </div>
      <ErrorNote error={actionError} />

      <section aria-labelledby="chat-thread-title" class="chat-thread-wrap">
        <h2 id="chat-thread-title">
          {branch === null ? (conversation === MAIN ? "Main conversation" : conversation) : `Branch: ${branch.title}`}
          {branch === null ? null : <span class="badge">{branch.status}</span>}
        </h2>
        {branch !== null && branch.status !== "open" ? (
          <p class="muted">
            {branch.status === "merged" ? "This branch is merged: its summary is in the conversation it came from." : branch.status === "merging" ? "This branch is being summarised into the conversation it came from." : "This branch is closed."}
          </p>
        ) : null}
        <ErrorNote error={loadError} />
        {messages === null ? (
          loadError === null ? (
            <p class="muted">Loading the conversation…</p>
          ) : null
        ) : messages.length === 0 ? (
          <Empty>{branch !== null && branch.status !== "open" ? "Nothing was said in this branch." : "Nothing said yet. Write below to start."}</Empty>
        ) : (
          <div class="chat-thread">
            {messages.length > visible.length ? (
              <Button onClick={showEarlier}>Show earlier messages ({messages.length - visible.length})</Button>
            ) : null}
            {visible.map((m) => (
              <Fragment key={m.id}>
                {m.role === "assistant" && m.turn !== null ? turnBlock(m.turn) : null}
                <MessageView message={m} busy={busy} branchTitle={m.branch === null ? null : branchTitle(m.branch)} onBranch={() => startBranch(m)} onReact={(r) => react(m, r)} />
                {m.role === "person" && m.turn !== null ? turnBlock(m.turn) : null}
              </Fragment>
            ))}
          </div>
        )}
      </section>

      {elsewhere.length === 0 ? null : (
        <section aria-labelledby="chat-elsewhere-title">
          <h2 id="chat-elsewhere-title">Also waiting for you</h2>
          <ul class="cards">
            {elsewhere.map((a) => (
              <li key={a.id} class="card">
                <strong>{a.summary}</strong> <span class="badge">{a.kind}</span>
                {a.requestedAt === null ? null : (
                  <span class="muted">
                    {" "}
                    asked <Time when={a.requestedAt} />
                  </span>
                )}
                {a.turn === null ? null : <span class="muted"> (from a turn outside this conversation)</span>}
              </li>
            ))}
          </ul>
        </section>
      )}

      {suggestions.length === 0 ? null : (
        <div class="chat-suggestions" role="group" aria-label="Suggestions">
          {suggestions.map((s) => (
            <button
              key={`${s.kind}:${s.ref}:${s.text}`}
              type="button"
              class="btn plain chat-suggestion"
              onClick={() => {
                setDraft(s.text);
                input.current?.focus();
              }}
            >
              {s.text}
            </button>
          ))}
        </div>
      )}

      <form
        class="chat-composer"
        onSubmit={(e) => {
          e.preventDefault();
          void send(draft);
        }}
      >
        <Field label={branch === null ? "Message" : `Message in the branch “${branch.title}”`} hint="Enter sends; Shift+Enter starts a new line." error={sendError}>
          {(id, describedBy) => <textarea id={id} ref={input} rows={3} aria-describedby={describedBy} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} onKeyDown={onKeyDown} />}
        </Field>
        <div class="buttons">
          <Button kind="primary" type="submit" busy={sending}>
            Send
          </Button>
        </div>
      </form>
      <div class="chat-sr" role="status" aria-live="polite" aria-atomic="true">
        {announce}
      </div>
    </>
  );
}

/** What the live region says when a turn of the thread changes. */
function announcement(status: string, text: string): string {
  const clipped = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  switch (status) {
    case "done":
      return clipped === "" ? "The assistant finished." : `The assistant replied: ${clipped}`;
    case "failed":
      return "The assistant's turn failed.";
    case "cancelled":
      return "Stopped.";
    case "waiting-approval":
      return "The assistant needs your approval to go on.";
    case "waiting-ask":
      return "The assistant asked you a question.";
    default:
      return "";
  }
}

function MessageView(props: { message: Message; busy: boolean; branchTitle: string | null; onBranch: () => void; onReact: (reaction: string) => void }) {
  const m = props.message;
  const counts = new Map<string, number>();
  for (const r of m.reactions) counts.set(r, (counts.get(r) ?? 0) + 1);
  const snippet = m.text.length > 40 ? `${m.text.slice(0, 40)}…` : m.text;
  return (
    <div class={`chat-msg ${m.role}`} data-message={m.id} tabIndex={-1}>
      <div class="chat-who">
        {m.role === "person" ? "You" : m.branch !== null ? "Summary of a branch" : "Assistant"} <Time when={m.at} />
        {m.status === "partial" ? <span class="badge">partial</span> : null}
      </div>
      {m.branch === null ? null : (
        <p class="chat-summary-of">
          From the branch <a href={href("chat", m.branch)}>{props.branchTitle ?? m.branch}</a>:
        </p>
      )}
      <div class="chat-text">{m.text}</div>
      {m.attachments.length === 0 ? null : <p class="muted">Attached: {m.attachments.join(", ")}</p>}
      <div class="chat-actions">
        {[...counts.entries()].map(([r, n]) => (
          <span key={r} class="chat-reaction" aria-label={`Reaction ${r} ×${n}`}>
            {r} {n}
          </span>
        ))}
        {m.role === "assistant"
          ? REACTIONS.map((r) => (
              <button key={r.emoji} type="button" class="btn plain chat-mini" disabled={props.busy} aria-label={`React ${r.name} to “${snippet}”`} title={`React ${r.name}`} onClick={() => props.onReact(r.emoji)}>
                {r.emoji}
              </button>
            ))
          : null}
        <button type="button" class="btn plain chat-mini" disabled={props.busy} aria-label={`Branch from here: “${snippet}”`} onClick={props.onBranch}>
          Branch from here
        </button>
      </div>
    </div>
  );
}
