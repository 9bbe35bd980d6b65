/**
 * @module Memory: what the assistant remembers (`/api/memory`: the notes a page at a time, a
 * search, add one with its tags, forget one), the person's standing rules (`/api/rules`: add,
 * delete), the persona (`/api/persona`: the constitution and the sensitive instructions — changing
 * those asks for a step-up) and the content mode (`PUT /api/content-mode`). What the node refuses is
 * shown with its reason; a change made elsewhere (the assistant remembering something) reloads
 * the lists as it is committed.
 */
import { useState } from "preact/hooks";
import { api, type Page, withQuery } from "../lib/api.ts";
import { useBusy, useFrames, useLoad } from "../lib/hooks.ts";
import { withStepUp } from "../lib/stepup.ts";
import { Button, Empty, ErrorNote, Field, PageHead, Status, Time } from "../components/ui.tsx";
import "./memory.css";

interface Note {
  readonly id: string;
  readonly text: string;
  readonly tags: readonly string[];
  readonly createdAt: string | null;
  readonly createdBy: string | null;
  readonly score?: number;
}

interface Rule {
  readonly id: string;
  readonly text: string;
  readonly enabled: boolean;
  readonly createdAt: string | null;
  readonly createdBy: string | null;
}

interface Persona {
  readonly constitution: string;
  readonly sensitiveInstructions: string;
  readonly contentMode: string;
  readonly updatedAt?: string;
  readonly updatedBy?: string;
}

/** Notes and rules per page. */
const PAGE = 50;

/** `std.persona`'s content modes, with what each means (its contract's words). */
const MODES = [
  { value: "Standard", label: "Standard", meaning: "Ordinary care: declines what is plainly harmful." },
  { value: "Strict", label: "Strict", meaning: "Family-safe: no explicit, violent or crude content, even when asked." },
  { value: "Relaxed", label: "Relaxed", meaning: "Adult: frank language and mature themes when you ask for them." },
];

export default function MemoryPage() {
  return (
    <>
      <PageHead title="Memory">
        <p>What the assistant remembers about you, the rules it always follows, and who it is for you.</p>
      </PageHead>
      <Notes />
      <Rules />
      <PersonaSection />
    </>
  );
}

/** Every page of `path` up to `pages`, read again on each reload so the list keeps what it showed. */
async function pagesOf<T>(path: string, query: Record<string, string | number | undefined>, pages: number): Promise<{ items: T[]; next: string | null }> {
  const items: T[] = [];
  let next: string | null = null;
  for (let i = 0; i < pages; i++) {
    const page: Page<T> = await api<Page<T>>("GET", withQuery(path, { ...query, limit: PAGE, after: next }));
    items.push(...page.items);
    next = page.next;
    if (next === null) break;
  }
  return { items, next };
}

function Notes() {
  const [pages, setPages] = useState(1);
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  // The answer carries the search it answers, so a list is never labelled by a search still on its way.
  const notes = useLoad(async () => ({ ...(query === "" ? await pagesOf<Note>("/api/memory", {}, pages) : await pagesOf<Note>("/api/memory", { q: query }, 1)), query }), [pages, query]);
  const shown = notes.data?.query ?? "";
  useFrames(notes.reload, (frame) => frame.kind === "commit" && frame["namespace"] === "std.memory");
  const [text, setText] = useState("");
  const [tags, setTags] = useState("");
  const [run, busy, error] = useBusy();
  const [runForget, forgetting, forgetError] = useBusy();
  const [done, setDone] = useState<string | null>(null);
  const [forgotten, setForgotten] = useState<string | null>(null);

  const add = (event: Event) => {
    event.preventDefault();
    setDone(null);
    void run(async () => {
      const tagList = tags
        .split(",")
        .map((t) => t.trim())
        .filter((t) => t !== "");
      await api("POST", "/api/memory", { text, ...(tagList.length === 0 ? {} : { tags: tagList }) });
      setText("");
      setTags("");
      setDone("Remembered.");
      notes.reload();
    });
  };
  const forget = (note: Note) => {
    setForgotten(null);
    void runForget(async () => {
      await api("DELETE", `/api/memory/${encodeURIComponent(note.id)}`);
      setForgotten(`Forgotten: “${note.text.length > 60 ? `${note.text.slice(0, 60)}…` : note.text}”.`);
      notes.reload();
    });
  };

  return (
    <section aria-labelledby="notes-title">
      <h2 id="notes-title">What the assistant remembers</h2>
      <form
        class="memory-search"
        role="search"
        aria-label="Memory search"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery(search.trim());
        }}
      >
        <Field label="Search the memory" hint="Every word must occur; the best match first.">
          {(id, describedBy) => (
            <div class="memory-search-row">
              <input id={id} type="search" maxLength={400} aria-describedby={describedBy} value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
              <Button type="submit">Search</Button>
              {query === "" ? null : (
                <Button
                  onClick={() => {
                    setSearch("");
                    setQuery("");
                  }}
                >
                  Show all
                </Button>
              )}
            </div>
          )}
        </Field>
      </form>
      <ErrorNote error={notes.error ?? forgetError} />
      {forgotten === null ? null : <Status>{forgotten}</Status>}
      {notes.data === null ? null : notes.data.items.length === 0 ? (
        <Empty>{shown === "" ? "Nothing remembered yet." : `Nothing remembered matches “${shown}”.`}</Empty>
      ) : (
        <ul class="cards memory-list" aria-label={shown === "" ? "Memory notes" : `Memory notes matching ${shown}`}>
          {notes.data.items.map((note) => (
            <li key={note.id} class="card row memory-item">
              <div class="memory-text">
                <p>{note.text}</p>
                <div class="muted">
                  {note.tags.map((tag) => (
                    <span key={tag} class="badge memory-tag">
                      {tag}
                    </span>
                  ))}{" "}
                  remembered <Time when={note.createdAt} />
                </div>
              </div>
              <Button kind="danger" busy={forgetting} aria-label={`Forget: ${note.text.length > 60 ? `${note.text.slice(0, 60)}…` : note.text}`} onClick={() => forget(note)}>
                Forget
              </Button>
            </li>
          ))}
        </ul>
      )}
      {shown !== "" || notes.data?.next == null ? null : (
        <Button busy={notes.loading} onClick={() => setPages(pages + 1)}>
          Show more notes
        </Button>
      )}
      <h3 id="note-add-title">Remember something</h3>
      <form class="stack memory-form" aria-labelledby="note-add-title" onSubmit={add}>
        <Field label="What to remember" hint="Up to 4,000 characters.">
          {(id, describedBy) => <textarea id={id} maxLength={4000} aria-describedby={describedBy} value={text} onInput={(e) => setText(e.currentTarget.value)} />}
        </Field>
        <Field label="Tags" hint="Optional, separated by commas: up to 10, each up to 40 characters.">
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}
        </Field>
        <ErrorNote error={error} />
        {done === null ? null : <Status>{done}</Status>}
        <div class="buttons">
          <Button type="submit" kind="primary" busy={busy}>
            Remember it
          </Button>
        </div>
      </form>
    </section>
  );
}

function Rules() {
  const [pages, setPages] = useState(1);
  const rules = useLoad(() => pagesOf<Rule>("/api/rules", {}, pages), [pages]);
  useFrames(rules.reload, (frame) => frame.kind === "commit" && frame["namespace"] === "std.rules");
  const [text, setText] = useState("");
  const [run, busy, error] = useBusy();
  const [runDelete, deleting, deleteError] = useBusy();
  const [done, setDone] = useState<string | null>(null);
  const [deleted, setDeleted] = useState<string | null>(null);

  const add = (event: Event) => {
    event.preventDefault();
    setDone(null);
    void run(async () => {
      await api("POST", "/api/rules", { text });
      setText("");
      setDone("The rule is added.");
      rules.reload();
    });
  };
  const remove = (rule: Rule) => {
    setDeleted(null);
    void runDelete(async () => {
      await api("DELETE", `/api/rules/${encodeURIComponent(rule.id)}`);
      setDeleted(`Deleted the rule “${rule.text.length > 60 ? `${rule.text.slice(0, 60)}…` : rule.text}”.`);
      rules.reload();
    });
  };

  return (
    <section aria-labelledby="rules-title">
      <h2 id="rules-title">Standing rules</h2>
      <p class="muted">What the assistant always does, or never does, for you.</p>
      <ErrorNote error={rules.error ?? deleteError} />
      {deleted === null ? null : <Status>{deleted}</Status>}
      {rules.data === null ? null : rules.data.items.length === 0 ? (
        <Empty>No standing rule yet.</Empty>
      ) : (
        <ul class="cards memory-list" aria-label="Standing rules">
          {rules.data.items.map((rule) => (
            <li key={rule.id} class="card row memory-item">
              <div class="memory-text">
                <p>
                  {rule.text}
                  {rule.enabled ? null : <span class="badge">off</span>}
                </p>
                <div class="muted">
                  added <Time when={rule.createdAt} />
                </div>
              </div>
              <Button kind="danger" busy={deleting} aria-label={`Delete the rule: ${rule.text.length > 60 ? `${rule.text.slice(0, 60)}…` : rule.text}`} onClick={() => remove(rule)}>
                Delete
              </Button>
            </li>
          ))}
        </ul>
      )}
      {rules.data?.next == null ? null : (
        <Button busy={rules.loading} onClick={() => setPages(pages + 1)}>
          Show more rules
        </Button>
      )}
      <h3 id="rule-add-title">Add a rule</h3>
      <form class="stack memory-form" aria-labelledby="rule-add-title" onSubmit={add}>
        <Field label="The rule" hint="Up to 2,000 characters, e.g. “Answer in French on weekends”.">
          {(id, describedBy) => <textarea id={id} maxLength={2000} class="short" aria-describedby={describedBy} value={text} onInput={(e) => setText(e.currentTarget.value)} />}
        </Field>
        <ErrorNote error={error} />
        {done === null ? null : <Status>{done}</Status>}
        <div class="buttons">
          <Button type="submit" kind="primary" busy={busy}>
            Add the rule
          </Button>
        </div>
      </form>
    </section>
  );
}

function PersonaSection() {
  const persona = useLoad(() => api<Persona>("GET", "/api/persona"));
  // The person's edits, kept apart from what the node holds, so a live reload never overwrites them.
  const [constitution, setConstitution] = useState<string | null>(null);
  const [sensitive, setSensitive] = useState<string | null>(null);
  const [mode, setMode] = useState<string | null>(null);
  useFrames(persona.reload, (frame) => frame.kind === "commit" && frame["namespace"] === "std.persona");
  const [run, busy, error] = useBusy();
  const [runMode, modeBusy, modeError] = useBusy();
  const [saved, setSaved] = useState<string | null>(null);
  const [modeSaved, setModeSaved] = useState<string | null>(null);
  const data = persona.data;

  const save = (event: Event) => {
    event.preventDefault();
    setSaved(null);
    void run(async () => {
      const body = { ...(constitution === null ? {} : { constitution }), ...(sensitive === null ? {} : { sensitiveInstructions: sensitive }) };
      const answer = await withStepUp(() => api<Persona & { receipts: readonly unknown[] }>("PUT", "/api/persona", body));
      persona.set(answer);
      setConstitution(null);
      setSensitive(null);
      setSaved(answer.receipts.length === 0 ? "Nothing changed." : "The persona is saved.");
    });
  };
  const saveMode = (event: Event) => {
    event.preventDefault();
    setModeSaved(null);
    void runMode(async () => {
      const answer = await api<Persona>("PUT", "/api/content-mode", { mode: mode ?? data?.contentMode });
      persona.set(answer);
      setMode(null);
      setModeSaved(`The content mode is ${answer.contentMode}.`);
    });
  };
  const chosen = mode ?? data?.contentMode ?? "";

  return (
    <section aria-labelledby="persona-title">
      <h2 id="persona-title">Persona</h2>
      <p class="muted">
        Who the assistant is for you, in your words.{" "}
        {data?.updatedAt === undefined ? null : (
          <>
            Last changed <Time when={data.updatedAt} />.
          </>
        )}
      </p>
      <ErrorNote error={persona.error} />
      {data === null ? null : (
        <>
          <form class="stack memory-form" aria-labelledby="persona-title" onSubmit={save}>
            <Field label="Constitution" hint="Its standing character and values. Up to 8,000 characters.">
              {(id, describedBy) => <textarea id={id} maxLength={8000} class="tall" aria-describedby={describedBy} value={constitution ?? data.constitution} onInput={(e) => setConstitution(e.currentTarget.value)} />}
            </Field>
            <Field label="Sensitive instructions" hint="What it must know but handle with care (health, family matters, what not to mention). Changing them asks you to confirm it's you. Up to 8,000 characters.">
              {(id, describedBy) => <textarea id={id} maxLength={8000} class="tall" aria-describedby={describedBy} value={sensitive ?? data.sensitiveInstructions} onInput={(e) => setSensitive(e.currentTarget.value)} />}
            </Field>
            <ErrorNote error={error} />
            {saved === null ? null : <Status>{saved}</Status>}
            <div class="buttons">
              <Button type="submit" kind="primary" busy={busy}>
                Save the persona
              </Button>
              {constitution === null && sensitive === null ? null : (
                <Button
                  onClick={() => {
                    setConstitution(null);
                    setSensitive(null);
                  }}
                >
                  Undo my changes
                </Button>
              )}
            </div>
          </form>
          <form class="stack memory-form memory-mode-form" onSubmit={saveMode}>
            <fieldset class="memory-modes">
              <legend>Content mode</legend>
              {MODES.map((m) => (
                <label key={m.value} class="memory-mode">
                  <input type="radio" name="content-mode" value={m.value} checked={chosen === m.value} onChange={() => setMode(m.value)} />
                  <span>
                    <strong>{m.label}</strong>
                    {data.contentMode === m.value ? <span class="badge">current</span> : null}
                    <span class="muted memory-mode-meaning">{m.meaning}</span>
                  </span>
                </label>
              ))}
            </fieldset>
            <ErrorNote error={modeError} />
            {modeSaved === null ? null : <Status>{modeSaved}</Status>}
            <div class="buttons">
              <Button type="submit" busy={modeBusy}>
                Set the content mode
              </Button>
            </div>
          </form>
        </>
      )}
    </section>
  );
}
