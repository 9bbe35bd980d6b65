/**
 * @module Knowledge: a vault's Markdown notes (`#/vaults/<vault>`; `personal` by default), found by
 * their words, made new; and one note (`#/vaults/<vault>/<path>`) in an editor co-edited live with
 * every other device that has it open (`/api/collab/{note}`, Yjs; the node saves the merged text as
 * the note's next revision), its preview rendered as elements, its backlinks (the notes whose links
 * name it, as the node indexes them). Everything comes from `POST /api/knowledge`.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, Refusal } from "../lib/api.ts";
import type { EventFrame } from "../lib/events.ts";
import { useBusy, useFrames, useLoad } from "../lib/hooks.ts";
import { href, navigate } from "../lib/router.ts";
import type { PageProps } from "../routes.ts";
import { Button, Empty, ErrorNote, Field, PageHead, Status, Time } from "../components/ui.tsx";
import { LiveNote, type LiveState, mapSelection } from "../components/library-collab.tsx";
import { inline, Markdown, type MarkdownLinks } from "../components/library-markdown.tsx";
import "./vaults.css";

interface NoteSummary {
  readonly path: string;
  readonly title: string;
  readonly revision: number;
  readonly size: number;
  readonly updatedAt: string | null;
}

interface NotePage {
  readonly items: readonly NoteSummary[];
  readonly next: string | null;
}

interface Found {
  readonly path: string;
  readonly title: string;
  readonly snippet: string;
  readonly score: number;
}

interface Note {
  readonly path: string;
  readonly text: string;
  readonly revision: number;
  readonly sha256: string;
  readonly updatedAt: string | null;
}

interface Link {
  readonly kind: "wiki" | "md";
  readonly target: string;
  readonly path: string | null;
}

interface Collab {
  readonly id: string;
  readonly vault: string;
  readonly path: string;
  readonly revision: number;
  readonly clients: number;
  readonly socket: string;
}

/** A vault as `vaults` lists it. */
interface VaultItem {
  readonly name: string;
  readonly notes: number;
  readonly updatedAt: string | null;
}

/** What the page says of the one vault there is. */
function vaultLine(v: VaultItem | undefined): string {
  if (v === undefined) return "";
  return v.notes === 0 ? "Your own vault, empty so far." : `Your own vault: ${v.notes === 1 ? "1 note" : `${v.notes} notes`}.`;
}

/** One operation of `POST /api/knowledge` on `vault`. */
function knowledge<T>(vault: string, operation: string, args: Record<string, unknown>): Promise<T> {
  return api<T>("POST", "/api/knowledge", { operation, args, vault });
}

/** The app's link to note `path` of `vault` (its folders as the route's parts). */
function noteLink(vault: string, path: string): string {
  return href("vaults", vault, ...path.split("/"));
}

const isKnowledge = (frame: EventFrame) => frame.kind === "commit" && frame["namespace"] === "std.knowledge";

export default function VaultsPage(props: PageProps) {
  const vault = props.rest[0] || "personal";
  const path = props.rest.slice(1).join("/");
  return (
    <>
      <PageHead title="Knowledge">
        <p>Your vaults of Markdown notes: plain files any editor can open, every change signed and kept.</p>
      </PageHead>
      {path === "" ? <VaultNotes vault={vault} /> : <NoteView key={`${vault}/${path}`} vault={vault} path={path} />}
    </>
  );
}

function VaultNotes(props: { vault: string }) {
  const { vault } = props;
  const [q, setQ] = useState("");
  const [more, setMore] = useState<readonly NoteSummary[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const list = useLoad(async () => {
    const page = await knowledge<NotePage>(vault, "list", { limit: 50 });
    setMore([]);
    setNext(page.next);
    return page;
  }, [vault]);
  const search = useLoad(() => (q.trim() === "" ? Promise.resolve(null) : knowledge<{ items: readonly Found[] }>(vault, "search", { q: q.trim(), limit: 20 })), [vault, q]);
  const [run, busy, error] = useBusy();
  const [newPath, setNewPath] = useState("");
  const vaults = useLoad(() => knowledge<{ items: readonly VaultItem[] }>("personal", "vaults", {}));
  useFrames(() => {
    list.reload();
    vaults.reload();
  }, isKnowledge);

  const loadMore = () =>
    void run(async () => {
      const page = await knowledge<NotePage>(vault, "list", { limit: 50, after: next });
      setMore([...more, ...page.items]);
      setNext(page.next);
    });
  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const name = newPath.trim();
      const title = (name.split("/").pop() ?? name).replace(/\.md$/i, "");
      const made = await knowledge<{ path: string }>(vault, "write", { path: name, text: `# ${title}\n\n` });
      setNewPath("");
      location.hash = noteLink(vault, made.path);
    });
  };
  const notes = [...(list.data?.items ?? []), ...more];

  return (
    <>
      <section aria-labelledby="vault-title">
        <h2 id="vault-title">
          Vault <code>{vault}</code>
        </h2>
        <ErrorNote error={vaults.error} />
        {vaults.data === null ? null : vaults.data.items.length > 1 ? (
          <Field label="Vault" hint="Your own is personal.">
            {(id, describedBy) => (
              <select id={id} aria-describedby={describedBy} value={vault} onChange={(e) => navigate("vaults", e.currentTarget.value)}>
                {vaults.data?.items.map((v) => (
                  <option key={v.name} value={v.name}>
                    {v.name} ({v.notes === 1 ? "1 note" : `${v.notes} notes`})
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : (
          <p class="muted">{vaultLine(vaults.data.items.find((v) => v.name === vault))}</p>
        )}
      </section>
      <section aria-labelledby="new-note-title">
        <h2 id="new-note-title">New note</h2>
        <form class="inline-form" onSubmit={create}>
          <Field label="Path of the new note" hint="Folders with /; .md is added.">
            {(id, describedBy) => <input id={id} aria-describedby={describedBy} required value={newPath} maxLength={1024} placeholder="Projects/Garden" onInput={(e) => setNewPath(e.currentTarget.value)} />}
          </Field>
          <Button type="submit" kind="primary" busy={busy}>
            Create the note
          </Button>
        </form>
        <ErrorNote error={error} />
      </section>
      <section aria-labelledby="notes-title">
        <h2 id="notes-title">Notes</h2>
        <Field label="Search the notes" hint="Every word must occur; the last may be the start of a word.">
          {(id, describedBy) => <input id={id} type="search" aria-describedby={describedBy} value={q} maxLength={400} onInput={(e) => setQ(e.currentTarget.value)} />}
        </Field>
        <ErrorNote error={q.trim() === "" ? list.error : search.error} />
        {q.trim() !== "" ? (
          search.data === null ? null : search.data.items.length === 0 ? (
            <Empty>No note has these words.</Empty>
          ) : (
            <ul class="cards" aria-label="Notes found">
              {search.data.items.map((found) => (
                <li key={found.path} class="card">
                  <a href={noteLink(vault, found.path)}>{found.title}</a> <span class="muted">{found.path}</span>
                  <p class="snippet">{inline(found.snippet, { noteHref: (target) => noteLink(vault, target) })}</p>
                </li>
              ))}
            </ul>
          )
        ) : list.data === null ? null : notes.length === 0 ? (
          <Empty>No note yet: make one above, or put Markdown files in the vault's folder.</Empty>
        ) : (
          <ul class="cards" aria-label={`Notes of ${vault}`}>
            {notes.map((note) => (
              <li key={note.path} class="card row">
                <div>
                  <a href={noteLink(vault, note.path)}>{note.title}</a>
                  <div class="muted">
                    {note.path} · revision {note.revision} · <Time when={note.updatedAt} />
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}
        {q.trim() === "" && next !== null ? (
          <Button busy={busy} onClick={loadMore}>
            Show more notes
          </Button>
        ) : null}
      </section>
    </>
  );
}

function NoteView(props: { vault: string; path: string }) {
  const { vault, path } = props;
  // A note that is not there (a wiki link to a note not written yet) is offered to be made.
  const note = useLoad(() => knowledge<Note>(vault, "read", { path }).catch((failure: unknown) => (failure instanceof Refusal && failure.code === "not-found" && failure.body?.errors?.[0]?.pointer === "#/args/path" ? null : Promise.reject(failure))), [vault, path]);
  const backlinks = useLoad(() => knowledge<{ items: readonly { path: string }[] }>(vault, "backlinks", { path }), [vault, path]);
  const links = useLoad(() => knowledge<{ items: readonly Link[] }>(vault, "links", { path }).catch(() => ({ items: [] as Link[] })), [vault, path]);
  useFrames(() => {
    note.reload();
    backlinks.reload();
    links.reload();
  }, isKnowledge);
  const [run, busy, error] = useBusy();
  const missing = !note.loading && note.data === null && note.error === null;

  const create = () =>
    void run(async () => {
      const title = (path.split("/").pop() ?? path).replace(/\.md$/i, "");
      await knowledge(vault, "write", { path, text: `# ${title}\n\n` });
      note.reload();
    });

  const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
  const resolve: MarkdownLinks = {
    noteHref: (target, kind) => {
      const bare = target.replace(/#.*$/, "");
      const known = links.data?.items.find((l) => l.kind === kind && (l.target === target || l.target === bare) && l.path !== null);
      if (known?.path) return noteLink(vault, known.path);
      if (bare === "") return noteLink(vault, path);
      const full = kind === "md" ? joinPath(folder, bare) : bare;
      return noteLink(vault, /\.md$/i.test(full) ? full : `${full}.md`);
    },
  };

  return (
    <>
      <p>
        <a href={href("vaults", vault)}>← All notes of {vault}</a>
      </p>
      <h2 class="note-title">{path}</h2>
      <ErrorNote error={note.error ?? error} />
      {missing ? (
        <>
          <p>There is no note at this path yet.</p>
          <Button kind="primary" busy={busy} onClick={create}>
            Create this note
          </Button>
        </>
      ) : null}
      {note.data === null ? null : (
        <>
          <p class="muted">
            Revision {note.data.revision}, saved <Time when={note.data.updatedAt} />.
          </p>
          <Editor vault={vault} path={path} initial={note.data.text} links={resolve} />
          <DeleteNote vault={vault} path={path} revision={note.data.revision} />
        </>
      )}
      <section aria-labelledby="backlinks-title">
        <h3 id="backlinks-title">Backlinks</h3>
        <ErrorNote error={backlinks.error} />
        {backlinks.data === null ? null : backlinks.data.items.length === 0 ? (
          <Empty>No note links here yet.</Empty>
        ) : (
          <ul class="backlinks" aria-label={`Notes that link to ${path}`}>
            {backlinks.data.items.map((b) => (
              <li key={b.path}>
                <a href={noteLink(vault, b.path)}>{b.path}</a>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

/** `relative` (a Markdown link's target) from the folder `folder` (ending in `/`, or empty). */
function joinPath(folder: string, relative: string): string {
  const parts = relative.startsWith("/") ? [] : folder.split("/").filter(Boolean);
  for (const part of relative.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/");
}

/** The note's text, co-edited live, and its preview. */
function Editor(props: { vault: string; path: string; initial: string; links: MarkdownLinks }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const live = useRef<LiveNote | null>(null);
  const [text, setText] = useState(props.initial);
  const [state, setState] = useState<LiveState>({ phase: "connecting", devices: 0, reason: null });
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (area.current !== null) area.current.value = props.initial;
    let stopped = false;
    api<Collab>("POST", "/api/collab", { vault: props.vault, path: props.path }).then(
      (collab) => {
        if (stopped) return;
        live.current = new LiveNote(collab.socket, {
          synced: (shared) => {
            if (area.current !== null) area.current.value = shared;
            setText(shared);
          },
          remote: (shared, delta) => {
            const el = area.current;
            if (el !== null) {
              const focused = document.activeElement === el;
              const [start, end] = mapSelection(delta, el.selectionStart, el.selectionEnd);
              el.value = shared;
              if (focused) el.setSelectionRange(start, end);
            }
            setText(shared);
          },
          state: setState,
        });
      },
      (failure: unknown) => setError(`Live editing could not start: ${failure instanceof Error ? failure.message : String(failure)}`),
    );
    return () => {
      stopped = true;
      live.current?.stop();
      live.current = null;
    };
  }, [props.vault, props.path]);

  const others = Math.max(0, state.devices - 1);
  const status =
    state.phase === "live"
      ? `Live: your changes are saved as you type${others > 0 ? `, and ${others} other ${others === 1 ? "device edits" : "devices edit"} with you` : ""}.`
      : state.phase === "connecting"
        ? "Connecting to live editing…"
        : state.phase === "ended"
          ? `Live editing stopped: ${state.reason ?? "the connection closed"}.`
          : `Live editing is offline${state.reason === null ? "" : ` (${state.reason})`}: trying again. The text cannot be changed meanwhile.`;

  return (
    <div class="note-editor">
      <div class="note-pane">
        <Field label={`Text of ${props.path}`} hint="Markdown: # headings, **strong**, *emphasis*, `code`, - lists, [links](https://…) and [[wiki links]] to other notes.">
          {(id, describedBy) => (
            <textarea
              id={id}
              ref={area}
              class="note-text"
              aria-describedby={describedBy}
              readOnly={state.phase !== "live"}
              spellcheck
              onInput={(e) => {
                live.current?.edit(e.currentTarget.value);
                setText(e.currentTarget.value);
              }}
            />
          )}
        </Field>
        <p class="live-state" data-phase={state.phase} role="status">
          {status}
        </p>
        <ErrorNote error={error} />
      </div>
      <section class="note-pane" aria-labelledby="preview-title">
        <h3 id="preview-title">Preview</h3>
        <div class="md-preview" data-testid="preview">
          <Markdown source={text} links={props.links} />
        </div>
      </section>
    </div>
  );
}

function DeleteNote(props: { vault: string; path: string; revision: number }) {
  const [asked, setAsked] = useState(false);
  const [run, busy, error] = useBusy();
  return (
    <div class="buttons">
      {asked ? (
        <>
          <Status>Delete {props.path}? Its history keeps every revision.</Status>
          <Button
            kind="danger"
            busy={busy}
            onClick={() =>
              void run(async () => {
                await knowledge(props.vault, "delete", { path: props.path, revision: props.revision });
                navigate("vaults", props.vault);
              })
            }
          >
            Delete it
          </Button>
          <Button onClick={() => setAsked(false)}>Keep it</Button>
        </>
      ) : (
        <Button kind="danger" onClick={() => setAsked(true)}>
          Delete the note
        </Button>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
