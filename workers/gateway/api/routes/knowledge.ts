/**
 * @module The person's knowledge vaults: `POST /api/knowledge {operation, args, vault}` (`vault`:
 * `personal` when left out). Each operation names its own arguments; an unknown one is `400`
 * naming it, an unknown operation is `400` listing the operations.
 *
 * ```
 * list      {folder?, after?, limit?}     → {items: [{path, title, revision, size, updatedAt}], next}   (next: the last path, for after)
 * read      {path, revision?}             → {path, text, revision, sha256, updatedAt}                 (revision: an earlier one, from history)
 * write     {path, text, revision?}       → {path, revision, sha256}   (no revision: a new note; a stale one, or a note there already: 409 stale-revision)
 * append    {path, text}                  → {path, revision, sha256}   (a new line between; the note is made if missing)
 * move      {path, to, revision?}         → {path, from, revision}     (a note at `to` already: 409 note-exists)
 * delete    {path, revision?}             → {path, deleted: true}
 * search    {q, limit?}                   → {items: [{path, title, snippet, score}]}   (every word; the last as a prefix; best first)
 * links     {path}                        → {items: [{kind: "wiki"|"md", target, path|null}]}
 * backlinks {path, limit?}                → {items: [{path}]}
 * tags      {tag?, after?, limit?}        → {items: [{tag, count}]}, or with tag: {items: [{path, title, …}], next}
 * history   {path, after?, limit?}        → {items: [{seq, revision, action, origin, sha256, size, path, by, at}], next}   (newest first)
 * vaults    {}                            → {items: [{name, notes, updatedAt}]}   (every vault there is)
 * ```
 *
 * Live co-editing of a note (knowledge/collab.ts):
 *
 * ```
 * POST /api/collab {vault?, path}   → {id, vault, path, revision, clients, socket}   (socket: the WebSocket to open)
 * GET  /api/collab/{id}             → the same; with a WebSocket upgrade: the Yjs socket itself
 * ```
 *
 * A path is relative to the vault and names a Markdown file (`.md` added when left out); one that
 * could reach outside the vault is `400` (knowledge/note-path.ts). Every change is a `std.knowledge`
 * command signed as the person (knowledge/vault.ts); `history` shows them, changes made in the
 * vault's folder with an editor too (`origin: disk`).
 */
import type { Hono } from "hono";
import { HttpProblem, type Problem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { type CollabServer, collabNote } from "../knowledge/collab.ts";
import type { Knowledge } from "../knowledge/knowledge.ts";
import { folderPath, notePath, vaultName } from "../knowledge/note-path.ts";
import type { Vault } from "../knowledge/vault.ts";
import { jsonBody } from "../request-body.ts";

export interface KnowledgeRouteDeps {
  readonly knowledge: Knowledge;
  /** The co-editing sockets: how many devices are on a note. */
  readonly collab?: Pick<CollabServer, "clients">;
}

type Args = Readonly<Record<string, unknown>>;
type Operation = (vault: Vault, args: Args, knowledge: Knowledge) => Promise<unknown> | unknown;

const MAX_LIMIT = 200;

/** Throws `400` naming `#/args/NAME` with `detail`. */
function bad(name: string, detail: string): never {
  throw new HttpProblem(problem(400, "bad-parameters", `args.${name}: ${detail}`, [{ pointer: `#/args/${name}`, detail }]));
}

function path(args: Args, name = "path"): string {
  const checked = notePath(args[name]);
  return checked.ok ? checked.value : bad(name, checked.error);
}

function text(args: Args): string {
  return typeof args.text === "string" ? args.text : bad("text", "a string");
}

function revision(args: Args): number | null {
  const r = args.revision;
  if (r === undefined || r === null) return null;
  return Number.isSafeInteger(r) && (r as number) >= 1 ? (r as number) : bad("revision", "a revision is a whole number from 1");
}

function limit(args: Args, fallback: number): number {
  const l = args.limit;
  if (l === undefined) return fallback;
  return Number.isInteger(l) && (l as number) >= 1 && (l as number) <= MAX_LIMIT ? (l as number) : bad("limit", `a whole number from 1 to ${MAX_LIMIT}`);
}

function after(args: Args): string {
  const a = args.after;
  if (a === undefined || a === null) return "";
  return typeof a === "string" && a.length <= 1024 ? a : bad("after", "the next of the page before");
}

const noteView = (n: { path: string; title: string; revision: number; size: number; updatedAt: number }) => ({
  path: n.path,
  title: n.title,
  revision: n.revision,
  size: n.size,
  updatedAt: n.updatedAt > 0 ? new Date(n.updatedAt).toISOString() : null,
});

/** Each operation: the arguments it takes, and what it does. */
const OPERATIONS: ReadonlyMap<string, { readonly args: readonly string[]; readonly run: Operation }> = new Map<string, { args: readonly string[]; run: Operation }>([
  [
    "list",
    {
      args: ["folder", "after", "limit"],
      run: async (vault, args, k) => {
        const folder = folderPath(args.folder);
        if (!folder.ok) bad("folder", folder.error);
        const n = limit(args, 50);
        await vault.run(() => undefined);
        const rows = k.index.list(vault.name, folder.value, after(args), n + 1);
        const items = rows.slice(0, n).map(noteView);
        return { items, next: rows.length > n ? (items.at(-1)?.path ?? null) : null };
      },
    },
  ],
  [
    "read",
    {
      args: ["path", "revision"],
      run: async (vault, args, k) => {
        const p = path(args);
        const wanted = revision(args);
        const note = await vault.read(p);
        if (wanted === null || wanted === note.revision) return note;
        const record = await vault.record(p);
        const sha256 = wanted < note.revision ? k.revisionSha(record.id, wanted) : null;
        const old = sha256 === null ? null : vault.revisionText(sha256);
        if (sha256 === null || old === null) throw new HttpProblem(problem(404, "not-found", `note ${JSON.stringify(p)} has no revision ${wanted} (it is at ${note.revision})`, [{ pointer: "#/args/revision", detail: "no such revision" }]));
        return { path: p, text: old, revision: wanted, sha256, updatedAt: null, current: note.revision };
      },
    },
  ],
  [
    "write",
    {
      args: ["path", "text", "revision"],
      run: async (vault, args) => {
        const p = path(args);
        const note = await vault.write(p, text(args), revision(args), "node");
        return { path: p, revision: note.revision, sha256: note.sha256 };
      },
    },
  ],
  [
    "append",
    {
      args: ["path", "text"],
      run: async (vault, args) => {
        const p = path(args);
        const note = await vault.append(p, text(args), "node");
        return { path: p, revision: note.revision, sha256: note.sha256 };
      },
    },
  ],
  [
    "move",
    {
      args: ["path", "to", "revision"],
      run: async (vault, args) => {
        const from = path(args);
        const to = path(args, "to");
        const note = await vault.move(from, to, revision(args), "node");
        return { path: to, from, revision: note.revision };
      },
    },
  ],
  [
    "delete",
    {
      args: ["path", "revision"],
      run: async (vault, args) => {
        const p = path(args);
        await vault.delete(p, revision(args), "node");
        return { path: p, deleted: true };
      },
    },
  ],
  [
    "search",
    {
      args: ["q", "limit"],
      run: async (vault, args, k) => {
        const q = args.q;
        if (typeof q !== "string" || q.trim() === "" || q.length > 400) bad("q", "the words to find: a non-empty string of at most 400 characters");
        const n = limit(args, 20);
        await vault.run(() => undefined);
        return { items: k.index.search(vault.name, q, n) };
      },
    },
  ],
  [
    "links",
    {
      args: ["path"],
      run: async (vault, args, k) => {
        const p = path(args);
        await vault.record(p);
        return { items: k.index.links(vault.name, p) };
      },
    },
  ],
  [
    "backlinks",
    {
      args: ["path", "limit"],
      run: async (vault, args, k) => {
        const p = path(args);
        const n = limit(args, 100);
        await vault.run(() => undefined);
        return { items: k.index.backlinks(vault.name, p, n).map((from) => ({ path: from })) };
      },
    },
  ],
  [
    "tags",
    {
      args: ["tag", "after", "limit"],
      run: async (vault, args, k) => {
        await vault.run(() => undefined);
        const tag = args.tag;
        if (tag === undefined) return { items: k.index.tags(vault.name, limit(args, 100)) };
        if (typeof tag !== "string" || tag === "" || tag.length > 100) bad("tag", "a tag (without #), at most 100 characters");
        const n = limit(args, 50);
        const rows = k.index.tagged(vault.name, tag.replace(/^#/u, ""), after(args), n + 1);
        const items = rows.slice(0, n).map(noteView);
        return { items, next: rows.length > n ? (items.at(-1)?.path ?? null) : null };
      },
    },
  ],
  [
    "history",
    {
      args: ["path", "after", "limit"],
      run: async (vault, args, k) => {
        const p = path(args);
        const before = args.after === undefined || args.after === null ? 0 : Number.isSafeInteger(args.after) && (args.after as number) > 0 ? (args.after as number) : bad("after", "the next of the page before (a number)");
        const record = await vault.record(p);
        return k.history(record.id, before, limit(args, 50));
      },
    },
  ],
  [
    "vaults",
    {
      args: [],
      run: (_vault, _args, k) => ({ items: k.vaults() }),
    },
  ],
]);

/** Mounts `POST /api/knowledge`. */
export function mountKnowledgeRoutes(api: Hono<ApiEnv>, deps: KnowledgeRouteDeps): void {
  api.post("/api/knowledge", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["operation", "args", "vault"]);
    const name = typeof body.operation === "string" ? body.operation : "";
    const operation = OPERATIONS.get(name);
    if (operation === undefined) {
      const known = [...OPERATIONS.keys()];
      const unknownOperation: Problem & { readonly operations: readonly string[] } = {
        ...problem(400, "unknown-operation", `${body.operation === undefined ? "no operation" : `no operation ${JSON.stringify(String(body.operation).slice(0, 64))}`}: the operations are ${known.join(", ")}`, [{ pointer: "#/operation", detail: `one of ${known.join(", ")}` }]),
        operations: known,
      };
      throw new HttpProblem(unknownOperation);
    }
    const vault = vaultName(body.vault ?? "personal");
    if (!vault.ok) throw new HttpProblem(problem(400, "bad-parameters", vault.error, [{ pointer: "#/vault", detail: vault.error }]));
    const args = body.args ?? {};
    if (typeof args !== "object" || args === null || Array.isArray(args)) throw new HttpProblem(problem(400, "bad-parameters", "args is an object", [{ pointer: "#/args", detail: "an object" }]));
    const unknown = Object.keys(args).filter((key) => !operation.args.includes(key));
    if (unknown.length > 0) {
      const named = unknown.slice(0, 20).map((k) => k.slice(0, 64));
      throw new HttpProblem(problem(400, "bad-parameters", `${name} takes ${operation.args.join(", ")}; not ${named.join(", ")}`, named.map((k) => ({ pointer: `#/args/${k.replaceAll("~", "~0").replaceAll("/", "~1")}`, detail: "unknown argument" }))));
    }
    return c.json(await operation.run(deps.knowledge.vault(vault.value), args as Args, deps.knowledge));
  });

  // Co-editing: which socket a note is co-edited on, and who is on it. The socket itself is the
  // gateway's upgrade (knowledge/collab.ts).
  const collabView = (id: string, path: string, revision: number, vault: string) => ({ id, vault, path, revision, clients: deps.collab?.clients(id) ?? 0, socket: `/api/collab/${id}` });
  api.post("/api/collab", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["vault", "path"]);
    const vault = vaultName(body.vault ?? "personal");
    if (!vault.ok) throw new HttpProblem(problem(400, "bad-parameters", vault.error, [{ pointer: "#/vault", detail: vault.error }]));
    const checked = notePath(body.path);
    if (!checked.ok) throw new HttpProblem(problem(400, "bad-parameters", `path: ${checked.error}`, [{ pointer: "#/path", detail: checked.error }]));
    const record = await deps.knowledge.vault(vault.value).record(checked.value);
    return c.json(collabView(record.id, record.path, record.revision, vault.value));
  });
  api.get("/api/collab/:id", (c) => {
    sessionOf(c);
    const id = c.req.param("id");
    if (collabNote(`/api/collab/${id}`) === null) throw new HttpProblem(problem(400, "bad-parameters", "a note's id as POST /api/collab answers it", [{ pointer: "#/id", detail: "not a note id" }]));
    const found = deps.knowledge.note(id);
    if (found === null) throw new HttpProblem(problem(404, "not-found", `no kept note ${id}`));
    return c.json(collabView(id, found.record.path, found.record.revision, found.vault.name));
  });
}
