/**
 * @module One knowledge vault: a folder of Markdown notes (`DATA/vaults/<name>/`) kept in step with
 * its `std.knowledge` records and the knowledge index.
 *
 * Every change goes through one queue per vault, so the folder, the records and the index are
 * changed by one thing at a time. A change made through the node checks the revision it replaces
 * against the record, keeps the new text as a blob (every revision can be read again), writes the
 * file (a temporary file in the vault's hidden `.charter/` folder, fsynced, renamed into place),
 * then records the command signed as the person, then indexes the note. If the command cannot be
 * recorded, the file is put back as it was.
 *
 * An edit made in the folder itself (any editor, a sync tool) is seen by a watcher (`fs.watch`,
 * recursive) and by a scan at start and every few minutes: a file whose text differs from its
 * record's is recorded as a new revision (`origin: disk`), a new file as a new note, a file gone as
 * the note deleted, and a file gone and one appearing with the same text in the same pass as a
 * move. A crash between any two steps is put right by the next look at the file, since the file
 * on disk is what the person sees: a record behind it is brought up to it.
 *
 * What is a note's file, and how one is read and written, is vault-folder.ts.
 */
import { type FSWatcher, readFileSync, watch } from "node:fs";
import { sep } from "node:path";
import { Readable } from "node:stream";
import PQueue from "p-queue";
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem, type Problem, problem } from "../../../../shared/problem.ts";
import type { BlobStore } from "../library/blob-store.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { signedWrite } from "../personal/signed-write.ts";
import type { KnowledgeIndex } from "./knowledge-index.ts";
import { notePath } from "./note-path.ts";
import { MAX_NOTE_BYTES, sha256Of, VaultFolder } from "./vault-folder.ts";

export { MAX_NOTE_BYTES };

export const KNOWLEDGE = "std.knowledge";
export const NOTE = "Note";
/** How long the watcher gathers changes before they are taken in. */
const SETTLE_MS = 150;

/** Where a change came from (the record's `origin`). */
export type NoteOrigin = "node" | "disk" | "collab";

/** A note's record, as the vault uses it. */
export interface NoteRecord {
  readonly id: string;
  readonly path: string;
  readonly revision: number;
  readonly sha256: string;
  readonly size: number;
  readonly updatedAt: number;
}

export interface VaultDeps {
  readonly name: string;
  /** The vault's folder. */
  readonly dir: string;
  readonly index: KnowledgeIndex;
  readonly blobs: BlobStore;
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly now: () => number;
  readonly log: Logger;
  /** How often the whole folder is looked at again (the watcher may miss what a file system does not report). */
  readonly rescanMs?: number;
}

/** A change of a note, as `onChange` hears it. */
export interface NoteChanged {
  readonly id: string;
  readonly path: string;
  readonly revision: number;
  /** The note's text now; null: deleted. */
  readonly text: string | null;
  readonly origin: NoteOrigin;
}

/** A note's text and revision. */
export interface NoteText {
  readonly path: string;
  readonly text: string;
  readonly revision: number;
  readonly sha256: string;
  readonly updatedAt: string | null;
}

const notFound = (path: string) => new HttpProblem(problem(404, "not-found", `no note at ${JSON.stringify(path)}`, [{ pointer: "#/args/path", detail: "no such note" }]));

/** `409 stale-revision`: what a write names is not the note's revision now. */
export function staleRevision(path: string, current: number | null, given: number | null): HttpProblem {
  const detail =
    current === null
      ? `there is no note at ${JSON.stringify(path)} any more: write without a revision to make it again`
      : given === null
        ? `a note is at ${JSON.stringify(path)} already (revision ${current}): name the revision the write replaces`
        : `the note is at revision ${current}, not ${given}: read it again and write from there`;
  const stale: Problem & { readonly revision: number | null } = { ...problem(409, "stale-revision", detail, [{ pointer: "#/args/revision", detail: "not the note's revision" }]), revision: current };
  return new HttpProblem(stale);
}

export class Vault {
  readonly name: string;
  readonly #deps: VaultDeps;
  readonly #queue = new PQueue({ concurrency: 1 });
  readonly #disk: VaultFolder;
  #watcher: FSWatcher | null = null;
  #pending = new Set<string>();
  #fullPending = false;
  #settle: NodeJS.Timeout | null = null;
  #rescan: NodeJS.Timeout | null = null;
  #closed = false;
  #started: Promise<void> | null = null;
  readonly #listeners = new Set<(change: NoteChanged) => void>();
  /** Files already said to be skipped (said once, not at every scan). */
  readonly #skipped = new Set<string>();

  constructor(deps: VaultDeps) {
    this.#deps = deps;
    this.name = deps.name;
    this.#disk = new VaultFolder(deps.dir, (path, why) => this.#skip(path, why));
  }

  /** The folder, made if missing, scanned whole once, then watched. */
  start(): Promise<void> {
    this.#started ??= this.#queue.add(async () => {
      this.#disk.open();
      await this.#scan(true);
      this.#watch();
      const every = this.#deps.rescanMs ?? 5 * 60_000;
      this.#rescan = setInterval(() => this.#scheduleFull(), every);
      this.#rescan.unref();
    });
    // A start that failed (the folder could not be made, the records not read) is tried again by the next call.
    this.#started.catch(() => (this.#started = null));
    return this.#started;
  }

  /** Runs `fn` alone among the vault's changes, once the vault has started. */
  async run<T>(fn: () => Promise<T> | T): Promise<T> {
    if (this.#started === null) throw new HttpProblem(problem(503, "unavailable", `the vault '${this.name}' is not open yet: try again in a moment`));
    await this.#started;
    return (await this.#queue.add(async () => {
      // What the watcher saw and has not taken in yet comes first: the route sees the folder as it is.
      await this.#drain();
      return fn();
    })) as T;
  }

  /** The folder's real path. */
  get root(): string {
    return this.#disk.root;
  }

  // ---- what the routes ask -------------------------------------------------------------

  /** Note `path` as it is now (an edit in the folder not yet taken in is taken in first). */
  async read(path: string): Promise<NoteText> {
    return this.run(async () => {
      const record = await this.#takeInOne(path);
      if (record === null) throw notFound(path);
      const disk = this.#disk.read(path);
      if (disk === null) throw notFound(path);
      return { path, text: disk.bytes.toString("utf8"), revision: record.revision, sha256: record.sha256, updatedAt: new Date(record.updatedAt).toISOString() };
    });
  }

  /** The record of the kept note at `path`, after taking in an edit made in the folder. */
  async record(path: string): Promise<NoteRecord> {
    return this.run(async () => {
      const record = await this.#takeInOne(path);
      if (record === null) throw notFound(path);
      return record;
    });
  }

  /**
   * Writes `text` as note `path`: over `revision` (a stale one is `409`), or as a new note when
   * `revision` is null (a note there already is `409`). Answers the note's new record.
   */
  async write(path: string, text: string, revision: number | null, origin: NoteOrigin): Promise<NoteRecord> {
    return this.run(async () => {
      const record = await this.#takeInOne(path);
      if (revision === null ? record !== null : record === null || record.revision !== revision) throw staleRevision(path, record?.revision ?? null, revision);
      return this.#commit(path, record, Buffer.from(text, "utf8"), origin);
    });
  }

  /** Adds `text` at the end of note `path` (a new line between), making it if missing. */
  async append(path: string, text: string, origin: NoteOrigin): Promise<NoteRecord> {
    return this.run(async () => {
      const record = await this.#takeInOne(path);
      const current = record === null ? "" : (this.#disk.read(path)?.bytes.toString("utf8") ?? "");
      const joined = current === "" || current.endsWith("\n") ? current + text : `${current}\n${text}`;
      return this.#commit(path, record, Buffer.from(joined, "utf8"), origin);
    });
  }

  /** Moves note `path` to `to` (a note there already is `409 note-exists`). */
  async move(path: string, to: string, revision: number | null, origin: NoteOrigin): Promise<NoteRecord> {
    return this.run(async () => {
      const record = await this.#takeInOne(path);
      if (record === null) throw notFound(path);
      if (revision !== null && record.revision !== revision) throw staleRevision(path, record.revision, revision);
      if (path === to) return record;
      if ((await this.#takeInOne(to)) !== null || this.#disk.exists(to)) throw new HttpProblem(problem(409, "note-exists", `a note is at ${JSON.stringify(to)} already`, [{ pointer: "#/args/to", detail: "taken" }]));
      const disk = this.#disk.read(path);
      if (disk === null) throw notFound(path);
      this.#disk.rename(path, to);
      try {
        await signedWrite(this.#deps.writer, { namespace: KNOWLEDGE, action: "Move", subject: record.id, args: { path: to, origin } });
      } catch (error) {
        this.#disk.rename(to, path);
        throw error;
      }
      this.#deps.index.remove(this.name, path);
      const moved = { ...record, path: to, updatedAt: this.#deps.now() };
      this.#index(to, moved, disk, origin);
      return moved;
    });
  }

  /** Deletes note `path` (its revisions stay in history). */
  async delete(path: string, revision: number | null, origin: NoteOrigin): Promise<NoteRecord> {
    return this.run(async () => {
      const record = await this.#takeInOne(path);
      if (record === null) throw notFound(path);
      if (revision !== null && record.revision !== revision) throw staleRevision(path, record.revision, revision);
      const disk = this.#disk.read(path);
      if (disk !== null) this.#disk.remove(path);
      try {
        await signedWrite(this.#deps.writer, { namespace: KNOWLEDGE, action: "Delete", subject: record.id, args: { origin } });
      } catch (error) {
        if (disk !== null) this.#disk.write(path, disk.bytes);
        throw error;
      }
      this.#deps.index.remove(this.name, path);
      this.#emit({ id: record.id, path, revision: record.revision, text: null, origin });
      return record;
    });
  }

  /** The text of blob `sha256` (a revision's), or null when it is not kept. */
  revisionText(sha256: string): string | null {
    const size = this.#deps.blobs.size(sha256);
    if (size === null || size > MAX_NOTE_BYTES) return null;
    return readFileSync(this.#deps.blobs.path(sha256)).toString("utf8");
  }

  close(): void {
    this.#closed = true;
    this.#watcher?.close();
    this.#watcher = null;
    if (this.#settle !== null) clearTimeout(this.#settle);
    if (this.#rescan !== null) clearInterval(this.#rescan);
    this.#queue.clear();
  }

  /** Resolves once every change seen so far has been taken in (for tests and benchmarks). */
  async idle(): Promise<void> {
    if (this.#settle !== null) {
      clearTimeout(this.#settle);
      this.#settle = null;
      this.#flush();
    }
    await this.#queue.onIdle();
  }

  // ---- changes ---------------------------------------------------------------------------

  /** Keeps `bytes` as note `path`'s next revision over `record` (null: a new note). */
  async #commit(path: string, record: NoteRecord | null, bytes: Buffer, origin: NoteOrigin): Promise<NoteRecord> {
    if (bytes.length > MAX_NOTE_BYTES) throw new HttpProblem(problem(413, "body-too-large", `a note is at most ${MAX_NOTE_BYTES} bytes`, [{ pointer: "#/args/text", detail: "too long" }]));
    const sha256 = sha256Of(bytes);
    if (record !== null && record.sha256 === sha256) return record;
    const previous = record === null ? null : this.#disk.read(path);
    const stored = await this.#deps.blobs.put(Readable.from([bytes]), { maxBytes: MAX_NOTE_BYTES, declared: bytes.length });
    try {
      this.#deps.index.keepRevisionBlob(sha256);
      const disk = this.#disk.write(path, bytes);
      let next: NoteRecord;
      try {
        next = await this.#record(path, record, sha256, bytes.length, origin);
      } catch (error) {
        if (previous === null) this.#disk.remove(path);
        else this.#disk.write(path, previous.bytes);
        throw error;
      }
      this.#index(path, next, { ...disk, bytes }, origin);
      return next;
    } finally {
      stored.release();
    }
  }

  /** Records note `path`'s new text: `Create` for a new note, else `Write` over its revision. */
  async #record(path: string, record: NoteRecord | null, sha256: string, size: number, origin: NoteOrigin): Promise<NoteRecord> {
    const now = this.#deps.now();
    if (record === null) {
      const id = timeOrderedId("note", now);
      await signedWrite(this.#deps.writer, { namespace: KNOWLEDGE, action: "Create", subject: id, args: { vault: this.name, path, sha256, size, origin }, idempotencyKey: `${id}:create` });
      return { id, path, revision: 1, sha256, size, updatedAt: now };
    }
    const base = record.revision;
    await signedWrite(this.#deps.writer, { namespace: KNOWLEDGE, action: "Write", subject: record.id, args: { sha256, size, base, origin }, idempotencyKey: `${record.id}:r${base + 1}:${sha256.slice(0, 16)}` });
    return { ...record, revision: base + 1, sha256, size, updatedAt: now };
  }

  /** Indexes note `path` as `record` says with the file read. */
  #index(path: string, record: NoteRecord, disk: { bytes: Buffer; mtimeMs: number }, origin: NoteOrigin | null = null): void {
    const text = disk.bytes.toString("utf8");
    this.#deps.index.put(this.name, path, { note: record.id, revision: record.revision, sha256: record.sha256, size: record.size, mtimeMs: disk.mtimeMs, updatedAt: record.updatedAt, text });
    if (origin !== null) this.#emit({ id: record.id, path, revision: record.revision, text, origin });
  }

  /** Hears every change of a note's text, path or existence (`text` null: deleted); answers how to stop. */
  onChange(listener: (change: NoteChanged) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(change: NoteChanged): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.#deps.log.error("a note change's listener failed", { vault: this.name, error: String(error) });
      }
    }
  }

  /**
   * Brings note `path`'s record and index up to its file (an edit made in the folder), and answers
   * the kept record (null: no note there). `known` is the record when the caller has read it.
   */
  async #takeInOne(path: string, known?: NoteRecord | null): Promise<NoteRecord | null> {
    const record = known === undefined ? this.#recordAt(path) : known;
    const disk = this.#disk.read(path);
    if (disk === null) {
      if (record !== null) {
        await signedWrite(this.#deps.writer, { namespace: KNOWLEDGE, action: "Delete", subject: record.id, args: { origin: "disk" } });
        this.#deps.log.info("a note deleted in its vault's folder is deleted", { vault: this.name, path });
        this.#emit({ id: record.id, path, revision: record.revision, text: null, origin: "disk" });
      }
      this.#deps.index.remove(this.name, path);
      return null;
    }
    if (record !== null && record.sha256 === disk.sha256) {
      const indexed = this.#deps.index.get(this.name, path);
      if (indexed === null || indexed.sha256 !== disk.sha256 || indexed.note !== record.id) this.#index(path, record, disk);
      else if (indexed.mtimeMs !== disk.mtimeMs || indexed.revision !== record.revision) this.#deps.index.touch(this.name, path, { ...record, note: record.id, mtimeMs: disk.mtimeMs });
      return record;
    }
    // A new file with the text of a note whose file is gone: that note, moved (renamed in the folder).
    if (record === null) {
      const twin = this.#deps.index.withText(this.name, disk.sha256).find((row) => row.path !== path && !this.#disk.exists(row.path));
      const moved = twin === undefined ? null : this.#recordAt(twin.path);
      if (twin !== undefined && moved !== null) {
        await signedWrite(this.#deps.writer, { namespace: KNOWLEDGE, action: "Move", subject: moved.id, args: { path, origin: "disk" } });
        this.#deps.index.remove(this.name, twin.path);
        const next = { ...moved, path, updatedAt: this.#deps.now() };
        this.#index(path, next, disk, "disk");
        return next;
      }
    }
    // The file was written in the folder: its text is the note's next revision (or a new note).
    const stored = await this.#deps.blobs.put(Readable.from([disk.bytes]), { maxBytes: MAX_NOTE_BYTES, declared: disk.bytes.length });
    try {
      this.#deps.index.keepRevisionBlob(disk.sha256);
      const next = await this.#record(path, record, disk.sha256, disk.bytes.length, "disk");
      this.#index(path, next, disk, "disk");
      return next;
    } finally {
      stored.release();
    }
  }

  /** The kept record at `path`: the one the index names, checked, else the contract's `AtPath`. */
  #recordAt(path: string): NoteRecord | null {
    const indexed = this.#deps.index.get(this.name, path);
    if (indexed !== null) {
      const found = this.#deps.reader.record(undefined, KNOWLEDGE, NOTE, indexed.note);
      const record = found === null ? null : recordOf(indexed.note, found.state);
      if (record !== null && record.path === path && found?.state.vault === this.name) return record;
    }
    const { rows } = this.#deps.reader.query(undefined, KNOWLEDGE, "AtPath", { vault: this.name, path });
    const row = rows[0];
    return row === undefined ? null : recordOf(String(row.id), row);
  }

  // ---- scanning and watching -----------------------------------------------------------------

  /** Looks at every note file (and, at start, every record): what changed is taken in. */
  async #scan(atStart: boolean): Promise<void> {
    const files = this.#disk.walk();
    const indexed = this.#deps.index.all(this.name);
    const changed = new Set<string>();
    for (const [path, stat] of files) {
      const row = indexed.get(path);
      if (row === undefined || row.size !== stat.size || row.mtimeMs !== stat.mtimeMs) changed.add(path);
    }
    for (const path of indexed.keys()) if (!files.has(path)) changed.add(path);
    let records: Map<string, NoteRecord> | undefined;
    if (atStart) {
      // A record whose file went while the node was stopped (and the index with it) is found here.
      records = this.#allRecords();
      for (const path of records.keys()) if (!files.has(path) && !indexed.has(path)) changed.add(path);
    }
    if (changed.size > 0) await this.#takeIn([...changed], records);
  }

  /** Takes in changed paths: a note gone and one new with the same text is a move. */
  async #takeIn(paths: readonly string[], records?: Map<string, NoteRecord>): Promise<void> {
    const recordOfPath = (path: string) => (records === undefined ? this.#recordAt(path) : (records.get(path) ?? null));
    const gone: NoteRecord[] = [];
    const fresh: { path: string; sha256: string }[] = [];
    const rest: { path: string; record: NoteRecord | null }[] = [];
    for (const path of paths) {
      if (this.#closed) return;
      try {
        const record = recordOfPath(path);
        const exists = this.#disk.exists(path);
        if (!exists && record !== null) gone.push(record);
        else if (exists && record === null) {
          const disk = this.#disk.read(path);
          if (disk !== null) fresh.push({ path, sha256: disk.sha256 });
          else rest.push({ path, record });
        } else rest.push({ path, record });
      } catch (error) {
        this.#deps.log.warn("a note in the vault's folder could not be looked at", { vault: this.name, path, error: String(error) });
      }
    }
    for (const item of fresh) {
      const at = gone.findIndex((record) => record.sha256 === item.sha256);
      if (at < 0) {
        rest.push({ path: item.path, record: null });
        continue;
      }
      const [record] = gone.splice(at, 1) as [NoteRecord];
      await this.#guard(item.path, async () => {
        await signedWrite(this.#deps.writer, { namespace: KNOWLEDGE, action: "Move", subject: record.id, args: { path: item.path, origin: "disk" } });
        this.#deps.index.remove(this.name, record.path);
        const disk = this.#disk.read(item.path);
        if (disk !== null) this.#index(item.path, { ...record, path: item.path }, disk, "disk");
      });
    }
    for (const record of gone) rest.push({ path: record.path, record });
    for (const item of rest) await this.#guard(item.path, () => this.#takeInOne(item.path, item.record));
  }

  async #guard(path: string, fn: () => Promise<unknown>): Promise<void> {
    if (this.#closed) return;
    try {
      await fn();
    } catch (error) {
      this.#deps.log.warn("a change in the vault's folder could not be taken in (tried again at the next scan)", { vault: this.name, path, error: error instanceof HttpProblem ? error.problem.detail : String(error) });
    }
  }

  /** Every kept record of the vault, by path. */
  #allRecords(): Map<string, NoteRecord> {
    const records = new Map<string, NoteRecord>();
    let after = "";
    for (;;) {
      const { rows } = this.#deps.reader.query(undefined, KNOWLEDGE, "Notes", { vault: this.name, after, limit: 500 });
      for (const row of rows) {
        const record = recordOf(String(row.id), row);
        if (record !== null) records.set(record.path, record);
      }
      if (rows.length < 500) return records;
      after = String(rows.at(-1)?.id);
    }
  }

  #watch(): void {
    try {
      this.#watcher = watch(this.#disk.root, { recursive: true, persistent: false }, (_event, name) => this.#seen(name));
      this.#watcher.on("error", (error) => {
        this.#deps.log.warn("the vault's folder is no longer watched: it is scanned every few minutes instead", { vault: this.name, error: String(error) });
        this.#watcher?.close();
        this.#watcher = null;
      });
    } catch (error) {
      this.#deps.log.warn("the vault's folder cannot be watched: it is scanned every few minutes instead", { vault: this.name, error: String(error) });
    }
  }

  /** A name the watcher reported: a note to look at, or (a folder, or unknown) a scan. */
  #seen(name: string | Buffer | null): void {
    if (this.#closed) return;
    const rel = name === null ? null : String(name).split(sep).join("/");
    if (rel !== null && rel.split("/").some((segment) => segment.startsWith("."))) return;
    if (rel !== null && /\.md$/iu.test(rel) && notePath(rel).ok) this.#pending.add(rel);
    else this.#fullPending = true;
    if (this.#pending.size > 10_000) {
      this.#pending.clear();
      this.#fullPending = true;
    }
    if (this.#settle === null) {
      this.#settle = setTimeout(() => {
        this.#settle = null;
        this.#flush();
      }, SETTLE_MS);
      this.#settle.unref();
    }
  }

  /** Takes in, now, what the watcher gathered (inside the queue). */
  async #drain(): Promise<void> {
    if (this.#settle === null) return;
    clearTimeout(this.#settle);
    this.#settle = null;
    const full = this.#fullPending;
    const paths = [...this.#pending];
    this.#fullPending = false;
    this.#pending.clear();
    if (full) await this.#scan(false);
    else if (paths.length > 0) await this.#takeIn(paths.filter((p) => this.#changedOnDisk(p)));
  }

  #flush(): void {
    const full = this.#fullPending;
    const paths = [...this.#pending];
    this.#fullPending = false;
    this.#pending.clear();
    if (full) this.#scheduleFull();
    else if (paths.length > 0) void this.#queue.add(() => this.#takeIn(paths.filter((p) => this.#changedOnDisk(p))));
  }

  #scheduleFull(): void {
    if (this.#closed) return;
    void this.#queue.add(() => this.#scan(false)).catch((error: unknown) => this.#deps.log.warn("a scan of the vault's folder failed", { vault: this.name, error: String(error) }));
  }

  /** Whether the file at `path` is not what the index has (a change the node did not make itself). */
  #changedOnDisk(path: string): boolean {
    const row = this.#deps.index.get(this.name, path);
    if (row === null) return true;
    return this.#disk.changed(path, row);
  }

  #skip(path: string, why: string): void {
    if (this.#skipped.has(path) || this.#skipped.size > 1000) return;
    this.#skipped.add(path);
    this.#deps.log.info("a file in the vault's folder is not taken as a note", { vault: this.name, path, why });
  }

}

/** A kept note's record from a record's state or a query's row; null when deleted or never made. */
export function recordOf(id: string, row: Record<string, unknown>): NoteRecord | null {
  if (row.deleted === true || Number(row.revision ?? 0) <= 0) return null;
  return { id, path: String(row.path ?? ""), revision: Number(row.revision), sha256: String(row.sha256 ?? ""), size: Number(row.size ?? 0), updatedAt: Number(row.updated_at ?? 0) };
}
