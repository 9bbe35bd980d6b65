/**
 * @module The knowledge index: `DATA/knowledge/index.db`, what the node knows of the vaults' notes
 * on disk (path, size, time, digest, the record that is the note), their text for full-text search
 * (FTS5, ranked by BM25 with the title weighted, with snippets), their links and their tags, and
 * the digests of every revision kept as a blob (so the blob sweep keeps them). Everything in it
 * is derived from the vault folders and the `std.knowledge` records: deleted, it is made again by
 * the next scan. The gateway is its only user.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { openDatabase, transaction } from "../../../../shared/store/open.ts";
import { markdownFacts, type NoteLink } from "./markdown-facts.ts";
import { noteName } from "./note-path.ts";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY,
    vault TEXT NOT NULL,
    path TEXT NOT NULL,
    lpath TEXT NOT NULL,
    lname TEXT NOT NULL,
    note TEXT NOT NULL,
    revision INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms INTEGER NOT NULL,
    title TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (vault, path)
  );
  CREATE INDEX IF NOT EXISTS notes_lpath ON notes (vault, lpath);
  CREATE INDEX IF NOT EXISTS notes_lname ON notes (vault, lname);
  CREATE INDEX IF NOT EXISTS notes_note ON notes (note);
  CREATE INDEX IF NOT EXISTS notes_sha256 ON notes (vault, sha256);
  CREATE VIRTUAL TABLE IF NOT EXISTS notes_fts USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2');
  CREATE TABLE IF NOT EXISTS links (
    src INTEGER NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    PRIMARY KEY (src, kind, target)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS links_target ON links (target, kind);
  CREATE TABLE IF NOT EXISTS tags (
    note INTEGER NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (note, tag)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS tags_tag ON tags (tag);
  CREATE TABLE IF NOT EXISTS revision_blobs (sha256 TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** A note as the index has it. */
export interface IndexedNote {
  readonly id: number;
  readonly vault: string;
  readonly path: string;
  /** The `std.knowledge` record (its subject). */
  readonly note: string;
  readonly revision: number;
  readonly sha256: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly title: string;
  readonly updatedAt: number;
}

/** What is indexed of a note. */
export interface NoteEntry {
  readonly note: string;
  readonly revision: number;
  readonly sha256: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly updatedAt: number;
  readonly text: string;
}

/** A search hit. */
export interface SearchHit {
  readonly path: string;
  readonly title: string;
  readonly snippet: string;
  readonly score: number;
}

/** A link of a note, with the note it names now (null: none). */
export interface ResolvedLink extends NoteLink {
  readonly path: string | null;
}

const COLUMNS = "id, vault, path, note, revision, sha256, size, mtime_ms, title, updated_at";

interface NoteRow {
  id: number;
  vault: string;
  path: string;
  note: string;
  revision: number;
  sha256: string;
  size: number;
  mtime_ms: number;
  title: string;
  updated_at: number;
}

function noteOf(row: NoteRow): IndexedNote {
  return { id: Number(row.id), vault: row.vault, path: row.path, note: row.note, revision: Number(row.revision), sha256: row.sha256, size: Number(row.size), mtimeMs: Number(row.mtime_ms), title: row.title, updatedAt: Number(row.updated_at) };
}

/** The words of a search as an FTS5 query: each quoted (no syntax of the person's reaches FTS5), the last a prefix. */
export function ftsQuery(q: string): string | null {
  const words = (q.match(/[\p{L}\p{N}_]+/gu) ?? []).slice(0, 16).map((w) => w.slice(0, 64));
  if (words.length === 0) return null;
  return words.map((w, i) => `"${w}"${i === words.length - 1 ? "*" : ""}`).join(" ");
}

export class KnowledgeIndex {
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  readonly #byNote: StatementSync;
  readonly #insert: StatementSync;
  readonly #update: StatementSync;
  readonly #ftsDelete: StatementSync;
  readonly #ftsInsert: StatementSync;
  readonly #linkInsert: StatementSync;
  readonly #tagInsert: StatementSync;
  readonly #linksClear: StatementSync;
  readonly #tagsClear: StatementSync;
  readonly #delete: StatementSync;
  readonly #search: StatementSync;
  readonly #exact: StatementSync;
  readonly #byName: StatementSync;
  readonly #bySuffix: StatementSync;
  readonly #refInsert: StatementSync;
  readonly #refHas: StatementSync;
  readonly #statements = new Map<string, StatementSync>();

  constructor(path: string) {
    this.#db = openDatabase(path, { synchronous: "NORMAL" });
    this.#db.exec(SCHEMA);
    this.#get = this.#db.prepare(`SELECT ${COLUMNS} FROM notes WHERE vault = ? AND path = ?`);
    this.#byNote = this.#db.prepare(`SELECT ${COLUMNS} FROM notes WHERE note = ?`);
    this.#insert = this.#db.prepare(
      "INSERT INTO notes (vault, path, lpath, lname, note, revision, sha256, size, mtime_ms, title, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
    );
    this.#update = this.#db.prepare("UPDATE notes SET note = ?, revision = ?, sha256 = ?, size = ?, mtime_ms = ?, title = ?, updated_at = ? WHERE id = ?");
    this.#ftsDelete = this.#db.prepare("DELETE FROM notes_fts WHERE rowid = ?");
    this.#ftsInsert = this.#db.prepare("INSERT INTO notes_fts (rowid, title, body) VALUES (?, ?, ?)");
    this.#linkInsert = this.#db.prepare("INSERT OR IGNORE INTO links (src, kind, target) VALUES (?, ?, ?)");
    this.#tagInsert = this.#db.prepare("INSERT OR IGNORE INTO tags (note, tag) VALUES (?, ?)");
    this.#linksClear = this.#db.prepare("DELETE FROM links WHERE src = ?");
    this.#tagsClear = this.#db.prepare("DELETE FROM tags WHERE note = ?");
    this.#delete = this.#db.prepare("DELETE FROM notes WHERE id = ?");
    this.#search = this.#db.prepare(
      "SELECT n.path AS path, n.title AS title, snippet(notes_fts, 1, '**', '**', '…', 16) AS snippet, bm25(notes_fts, 4.0, 1.0) AS rank " +
        "FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid WHERE notes_fts MATCH ? AND n.vault = ? ORDER BY rank LIMIT ?",
    );
    this.#exact = this.#db.prepare("SELECT path FROM notes WHERE vault = ? AND lpath = ? ORDER BY path LIMIT 1");
    this.#byName = this.#db.prepare("SELECT path FROM notes WHERE vault = ? AND lname = ? ORDER BY length(path), path LIMIT 1");
    this.#bySuffix = this.#db.prepare("SELECT path FROM notes WHERE vault = ? AND lname = ? AND lpath LIKE ? ESCAPE '\\' ORDER BY length(path), path LIMIT 1");
    this.#refInsert = this.#db.prepare("INSERT OR IGNORE INTO revision_blobs (sha256) VALUES (?)");
    this.#refHas = this.#db.prepare("SELECT 1 AS one FROM revision_blobs WHERE sha256 = ?");
  }

  /** A statement on the index, compiled once. */
  #sql(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** A value the index keeps about itself (null: not set). */
  meta(name: string): string | null {
    const row = this.#sql("SELECT value FROM meta WHERE name = ?").get(name) as { value: string } | undefined;
    return row?.value ?? null;
  }

  setMeta(name: string, value: string): void {
    this.#sql("INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value").run(name, value);
  }

  get(vault: string, path: string): IndexedNote | null {
    const row = this.#get.get(vault, path) as NoteRow | undefined;
    return row === undefined ? null : noteOf(row);
  }

  /** The indexed path of record `note`, if any. */
  ofNote(note: string): IndexedNote | null {
    const row = this.#byNote.get(note) as NoteRow | undefined;
    return row === undefined ? null : noteOf(row);
  }

  /** The indexed notes of `vault` whose text has digest `sha256` (at most 20). */
  withText(vault: string, sha256: string): IndexedNote[] {
    const rows = this.#sql(`SELECT ${COLUMNS} FROM notes WHERE vault = ? AND sha256 = ? LIMIT 20`).all(vault, sha256) as unknown as NoteRow[];
    return rows.map(noteOf);
  }

  /** Every indexed note of `vault`, by path (for a scan: what changed, what is gone). */
  all(vault: string): Map<string, IndexedNote> {
    const rows = this.#sql(`SELECT ${COLUMNS} FROM notes WHERE vault = ?`).all(vault) as unknown as NoteRow[];
    return new Map(rows.map((row) => [row.path, noteOf(row)]));
  }

  /** Indexes (or indexes again) note `path` of `vault`. */
  put(vault: string, path: string, entry: NoteEntry): void {
    const facts = markdownFacts(path, entry.text);
    transaction(this.#db, () => {
      const existing = this.#get.get(vault, path) as NoteRow | undefined;
      let id: number;
      if (existing === undefined) {
        const row = this.#insert.get(vault, path, path.toLowerCase(), noteName(path).toLowerCase(), entry.note, entry.revision, entry.sha256, entry.size, entry.mtimeMs, facts.title, entry.updatedAt) as { id: number };
        id = Number(row.id);
      } else {
        id = Number(existing.id);
        this.#update.run(entry.note, entry.revision, entry.sha256, entry.size, entry.mtimeMs, facts.title, entry.updatedAt, id);
        this.#ftsDelete.run(id);
        this.#linksClear.run(id);
        this.#tagsClear.run(id);
      }
      this.#ftsInsert.run(id, facts.title, entry.text);
      for (const link of facts.links) this.#linkInsert.run(id, link.kind, link.target);
      for (const tag of facts.tags) this.#tagInsert.run(id, tag);
      this.#refInsert.run(entry.sha256);
    });
  }

  /** Updates what the index knows of a note's file without reading its text again (same digest). */
  touch(vault: string, path: string, fields: { revision: number; mtimeMs: number; size: number; note: string; updatedAt: number }): void {
    const existing = this.#get.get(vault, path) as NoteRow | undefined;
    if (existing === undefined) return;
    this.#update.run(fields.note, fields.revision, existing.sha256, fields.size, fields.mtimeMs, existing.title, fields.updatedAt, existing.id);
  }

  /** Forgets note `path` of `vault`. */
  remove(vault: string, path: string): void {
    transaction(this.#db, () => {
      const existing = this.#get.get(vault, path) as NoteRow | undefined;
      if (existing === undefined) return;
      this.#ftsDelete.run(existing.id);
      this.#delete.run(existing.id);
    });
  }

  /** Keeps the digest of a revision's blob (the sweep asks `hasRevisionBlob`). */
  keepRevisionBlob(sha256: string): void {
    this.#refInsert.run(sha256);
  }

  hasRevisionBlob(sha256: string): boolean {
    return this.#refHas.get(sha256) !== undefined;
  }

  /** How many notes `vault` has, and when the newest change of one was (ms; 0 when it has none). */
  size(vault: string): { notes: number; updatedAt: number } {
    const row = this.#sql("SELECT COUNT(*) AS notes, coalesce(max(updated_at), 0) AS updatedAt FROM notes WHERE vault = ?").get(vault) as { notes: number | bigint; updatedAt: number | bigint };
    return { notes: Number(row.notes), updatedAt: Number(row.updatedAt) };
  }

  /** A page of `vault`'s notes in path order, under folder `folder` (`""`: all). */
  list(vault: string, folder: string, after: string, limit: number): IndexedNote[] {
    const prefix = folder === "" ? "" : `${folder}/`;
    const rows = this.#sql(`SELECT ${COLUMNS} FROM notes WHERE vault = ? AND path > ? AND substr(path, 1, ?) = ? ORDER BY path LIMIT ?`)
      .all(vault, after, prefix.length, prefix, limit) as unknown as NoteRow[];
    return rows.map(noteOf);
  }

  /** The notes of `vault` that match `q`'s words (all of them; the last as a prefix), best first. */
  search(vault: string, q: string, limit: number): SearchHit[] {
    const match = ftsQuery(q);
    if (match === null) return [];
    const rows = this.#search.all(match, vault, limit) as { path: string; title: string; snippet: string; rank: number }[];
    return rows.map((row) => ({ path: row.path, title: row.title, snippet: row.snippet, score: Math.round(-row.rank * 1000) / 1000 }));
  }

  /** The note a wiki target names in `vault` now: its exact path, else the shortest path whose name (or path's end) it is. */
  resolveWiki(vault: string, target: string): string | null {
    const exact = this.#exact.get(vault, `${target}.md`) as { path: string } | undefined;
    if (exact !== undefined) return exact.path;
    const slash = target.lastIndexOf("/");
    if (slash < 0) return (this.#byName.get(vault, target) as { path: string } | undefined)?.path ?? null;
    const like = `%/${target.replace(/[\\%_]/gu, (ch) => `\\${ch}`)}.md`;
    return (this.#bySuffix.get(vault, target.slice(slash + 1), like) as { path: string } | undefined)?.path ?? null;
  }

  /** Note `path`'s links, each with the note it names now. */
  links(vault: string, path: string): ResolvedLink[] {
    const note = this.get(vault, path);
    if (note === null) return [];
    const rows = this.#sql("SELECT kind, target FROM links WHERE src = ? ORDER BY kind, target").all(note.id) as { kind: "wiki" | "md"; target: string }[];
    return rows.map((row) => ({ kind: row.kind, target: row.target, path: row.kind === "md" ? (this.get(vault, row.target)?.path ?? null) : this.resolveWiki(vault, row.target) }));
  }

  /** The notes of `vault` with a link that names note `path` now, in path order (at most `limit`). */
  backlinks(vault: string, path: string, limit: number): string[] {
    // A wiki link names `path` by the path itself or any end of it (`b/c` and `c` for `a/b/c.md`), if it resolves to it.
    const segments = path.slice(0, -3).toLowerCase().split("/");
    const keys = segments.map((_, i) => segments.slice(i).join("/"));
    const placeholders = keys.map(() => "?").join(", ");
    const rows = this.#sql(
        `SELECT DISTINCT n.path AS path, l.kind AS kind, l.target AS target FROM links l JOIN notes n ON n.id = l.src ` +
          `WHERE n.vault = ? AND ((l.kind = 'md' AND l.target = ?) OR (l.kind = 'wiki' AND l.target IN (${placeholders}))) ORDER BY n.path LIMIT ?`,
      )
      .all(vault, path, ...keys, limit * 4) as { path: string; kind: string; target: string }[];
    const resolved = new Map<string, string | null>();
    const found = new Set<string>();
    for (const row of rows) {
      if (row.kind === "wiki") {
        if (!resolved.has(row.target)) resolved.set(row.target, this.resolveWiki(vault, row.target));
        if (resolved.get(row.target) !== path) continue;
      }
      found.add(row.path);
      if (found.size >= limit) break;
    }
    return [...found];
  }

  /** `vault`'s tags with how many notes have each, most used first. */
  tags(vault: string, limit: number): { tag: string; count: number }[] {
    const rows = this.#sql("SELECT t.tag AS tag, count(*) AS count FROM tags t JOIN notes n ON n.id = t.note WHERE n.vault = ? GROUP BY t.tag ORDER BY count DESC, t.tag LIMIT ?")
      .all(vault, limit) as { tag: string; count: number }[];
    return rows.map((row) => ({ tag: row.tag, count: Number(row.count) }));
  }

  /** The notes of `vault` tagged `tag`, in path order after `after`. */
  tagged(vault: string, tag: string, after: string, limit: number): IndexedNote[] {
    const rows = this.#sql(`SELECT ${COLUMNS.split(", ").map((c) => `n.${c}`).join(", ")} FROM tags t JOIN notes n ON n.id = t.note WHERE t.tag = ? AND n.vault = ? AND n.path > ? ORDER BY n.path LIMIT ?`)
      .all(tag.toLowerCase(), vault, after, limit) as unknown as NoteRow[];
    return rows.map(noteOf);
  }

  close(): void {
    this.#db.close();
  }
}
