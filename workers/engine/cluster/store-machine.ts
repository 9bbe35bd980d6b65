/**
 * @module The engine's store as Raft's state machine. A committed entry is applied with the time
 * and leader it carries: a batch of commands through the same `applyBatch` as one-voter mode, or an
 * operator request through the same admin handlers. The entry's index is written in the same
 * transaction as its effects (`replication` table), so a restart resumes after the last one.
 *
 * Snapshots are images of the store (`VACUUM INTO`) with the tenants' key files (current and
 * retired: `tenant-<h>.jwk`, `tenant-<h>.retired-<n>.jwk`; no other name is installed), installed
 * over the live store page by page (SQLite's backup), so every connection to it sees the new content.
 */
import { randomBytes } from "node:crypto";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { backup, DatabaseSync } from "node:sqlite";
import type { DatabaseSync as Db, StatementSync } from "node:sqlite";
import { fromPrivateJwk, type KeyPair, loadKeyFile, saveKeyFile } from "../../../shared/identity/index.ts";
import { makeDirs } from "../../../shared/make-dirs.ts";
import { problem } from "../../../shared/problem.ts";
import type { AdminResult } from "../../../shared/protocol/admin.ts";
import type { CommandAnswer, SubmittedCommand } from "../../../shared/protocol/engine.ts";
import type { LogEntry, Snapshot } from "../raft/index.ts";
import type { AdminHandlers } from "../admin-ops.ts";
import type { CommandProcessor, Pending } from "../commands.ts";
import { isSnapshotKeyFile, nextKeyPath, parseTenantKeyFile, type TenantKeyFile } from "../tenant-key-files.ts";
import { finishKeyRotations } from "../tenant-key-rotate.ts";
import { tenantExists } from "../tenants.ts";
import { decodeEntry, type AdminOp } from "./entry.ts";
import type { StateMachine } from "./runtime.ts";

/** Who waits for the entry a proposal landed at: they get its answers if it commits there. */
export interface EntryWaiter {
  readonly term: number;
  readonly commands?: readonly ((answer: CommandAnswer) => void)[];
  readonly admin?: (result: AdminResult<unknown>) => void;
}

export interface StoreMachineDeps {
  readonly db: Db;
  readonly storePath: string;
  readonly keysDir: string;
  /** Scratch space for images in transit. */
  readonly runDir: string;
  readonly commands: CommandProcessor;
  /** The admin handlers, reading the time and tenant key from the entry being applied. */
  readonly admin: (clock: { now(): number }, tenantKey: () => KeyPair | undefined) => AdminHandlers;
  /** The store was replaced by a snapshot: drop what was cached from it. */
  readonly onReplaced: () => void;
}

const lost = (index: number): CommandAnswer => ({
  kind: "problem",
  problem: problem(503, "not-committed", `the leader changed before log entry ${index} committed; send the command again with the same idempotency key`),
});

export class StoreMachine implements StateMachine {
  readonly #d: StoreMachineDeps;
  readonly #waiters = new Map<number, EntryWaiter>();
  readonly #write: StatementSync;
  readonly #read: StatementSync;
  #now = 0;
  #key: KeyPair | undefined;
  #handlers: AdminHandlers;

  constructor(deps: StoreMachineDeps) {
    this.#d = deps;
    this.#write = deps.db.prepare(
      "INSERT INTO replication (id, applied_index, applied_term) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET applied_index = excluded.applied_index, applied_term = excluded.applied_term",
    );
    this.#read = deps.db.prepare("SELECT applied_index FROM replication WHERE id = 1");
    this.#handlers = deps.admin({ now: () => this.#now }, () => this.#key);
  }

  /** Registers who waits for the entry at `index` (a proposal of this voter's, in `term`). */
  wait(index: number, waiter: EntryWaiter): void {
    this.#waiters.set(index, waiter);
  }

  appliedIndex(): number {
    const row = this.#read.get() as { applied_index: number } | undefined;
    return row?.applied_index ?? 0;
  }

  async apply(entry: LogEntry): Promise<void> {
    const waiter = this.#takeWaiter(entry);
    const mark = () => this.#write.run(entry.index, entry.term);
    if (entry.type === "no-op") {
      mark();
      return;
    }
    const data = decodeEntry(entry.data);
    if (data.commands !== undefined) {
      const answers = waiter?.commands;
      const batch: Pending[] = data.commands.map((command: SubmittedCommand, i: number) => ({ command, resolve: answers?.[i] ?? (() => undefined) }));
      const wrote = await this.#d.commands.applyBatch(batch, { now: data.now, node: data.node, inTransaction: mark, throwOnFailure: true, synchronous: "NORMAL" });
      if (!wrote) mark();
      return;
    }
    if (data.admin !== undefined) {
      const result = await this.#runAdmin(data.now, data.admin);
      mark();
      waiter?.admin?.(result);
      return;
    }
    mark();
  }

  async #runAdmin(now: number, op: AdminOp): Promise<AdminResult<unknown>> {
    this.#now = now;
    this.#key = undefined;
    if (op.tenantKey !== undefined) {
      const key = fromPrivateJwk(op.tenantKey);
      if (key.ok) this.#key = key.value;
    }
    try {
      const handler = this.#handlers[op.type] as (body: unknown) => AdminResult<unknown> | Promise<AdminResult<unknown>>;
      return await handler(op.body);
    } catch (error) {
      // An operator request that throws would throw again on every voter after every restart: it
      // becomes the same failed answer everywhere instead (the error's kind, never its wording).
      const kind = error instanceof Error ? error.name : typeof error;
      return { ok: false, error: { code: "apply_failed", message: `the operator request '${op.type}' could not be applied (${kind})` } };
    } finally {
      this.#key = undefined;
    }
  }

  /** The waiter of this entry if it is the one its proposer meant (same term); earlier ones lost. */
  #takeWaiter(entry: LogEntry): EntryWaiter | undefined {
    for (const [index, w] of this.#waiters) {
      if (index >= entry.index) continue;
      this.#waiters.delete(index);
      this.#fail(index, w);
    }
    const w = this.#waiters.get(entry.index);
    if (w === undefined) return undefined;
    this.#waiters.delete(entry.index);
    if (w.term === entry.term) return w;
    this.#fail(entry.index, w);
    return undefined;
  }

  #fail(index: number, w: EntryWaiter): void {
    const answer = lost(index);
    for (const r of w.commands ?? []) r(answer);
    w.admin?.({ ok: false, error: { code: "not_committed", message: answer.kind === "problem" ? answer.problem.detail : "" } });
  }

  /** Answers every waiter as lost (the voter stops). */
  failAll(): void {
    for (const [index, w] of this.#waiters) this.#fail(index, w);
    this.#waiters.clear();
  }

  /**
   * Makes every applied entry durable. The store runs `synchronous = NORMAL` on a voter: each entry
   * is already durable in raft.db, and a commit lost to a power cut is applied again from the log —
   * so one fsync per entry, not two. Before the log is compacted, one FULL commit fsyncs the WAL
   * and with it every commit before it.
   */
  sync(): void {
    this.#d.db.exec("PRAGMA synchronous = FULL");
    try {
      this.#d.db.exec("UPDATE replication SET applied_index = applied_index WHERE id = 1");
    } finally {
      this.#d.db.exec("PRAGMA synchronous = NORMAL");
    }
  }

  async makeImage(): Promise<Uint8Array> {
    await makeDirs(this.#d.runDir);
    const path = join(this.#d.runDir, `image-${randomBytes(6).toString("hex")}.db`);
    try {
      this.#d.db.exec(`VACUUM INTO '${path.replaceAll("'", "''")}'`);
      const image = await readFile(path);
      const keys = await this.#imageKeys(path);
      const head = Buffer.from(JSON.stringify({ keys }));
      const size = Buffer.alloc(4);
      size.writeUInt32BE(head.length);
      return Buffer.concat([size, head, image]);
    } finally {
      await rm(path, { force: true });
    }
  }

  /**
   * The key files an image carries: every tenant's current key and the keys rotations retired. The
   * current key sent is the one whose did the image's `tenants` row holds: a rotation applied while
   * the image is made may commit after the image was taken, or rename its key before the files are
   * read, and the image's key is then that tenant's newest retired key or its `.next` key.
   */
  async #imageKeys(imagePath: string): Promise<Record<string, unknown>> {
    const files: { name: string; handle: string; kind: string; jwk: unknown; did: string | null }[] = [];
    for (const name of await readdir(this.#d.keysDir).catch(() => [] as string[])) {
      const file = parseTenantKeyFile(name);
      if (file === null) continue;
      // A `.next` key renamed or removed since the listing: the image is checked against the rest.
      const text = await readFile(join(this.#d.keysDir, name), "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT" && file.kind === "next") return null;
        throw error;
      });
      if (text === null) continue;
      const jwk = JSON.parse(text) as unknown;
      const key = fromPrivateJwk(jwk);
      files.push({ name, handle: file.handle, kind: file.kind, jwk, did: key.ok ? key.value.did : null });
    }
    const keys: Record<string, unknown> = {};
    for (const f of files) if (isSnapshotKeyFile(f.name)) keys[f.name] = f.jwk;
    const image = new DatabaseSync(imagePath, { readOnly: true });
    try {
      for (const { handle, did } of image.prepare("SELECT handle, did FROM tenants").all() as { handle: string; did: string }[]) {
        const current = files.find((f) => f.handle === handle && f.kind === "current");
        if (current?.did === did) continue;
        const match = files.find((f) => f.handle === handle && f.did === did);
        if (match === undefined) throw new Error(`no key file holds ${did}, the did of tenant '${handle}'`);
        keys[`tenant-${handle}.jwk`] = match.jwk;
      }
    } finally {
      image.close();
    }
    return keys;
  }

  /**
   * Writes a snapshot's key files before its store is installed. Retired keys go to their names.
   * A current key this voter does not hold yet goes where a rotation puts its new key
   * (`tenant-<h>.next.jwk`), to be renamed into place once the store names its did: should the
   * voter stop before, its old key stays current beside its old store, and the `.next` key is
   * removed when it starts (tenant-key-rotate.ts). Only current and retired key names are taken.
   */
  async #stageKeys(keys: Record<string, unknown>): Promise<void> {
    const staged: { name: string; key: KeyPair }[] = [];
    for (const [name, jwk] of Object.entries(keys)) {
      const key = fromPrivateJwk(jwk);
      if (!isSnapshotKeyFile(name) || !key.ok) throw new Error(`the snapshot carries a bad key file ${name}`);
      staged.push({ name, key: key.value });
    }
    await makeDirs(this.#d.keysDir);
    for (const { name, key } of staged) {
      const file = parseTenantKeyFile(name) as TenantKeyFile;
      let path = join(this.#d.keysDir, name);
      if (file.kind === "current") {
        const held = await loadKeyFile(path);
        if (held.ok && held.value.did === key.did) continue;
        path = nextKeyPath(this.#d.keysDir, file.handle);
      }
      const saved = await saveKeyFile(path, key, { overwrite: true });
      if (!saved.ok) throw new Error(saved.error.message);
    }
  }

  async installImage(bytes: Uint8Array, snapshot: Snapshot): Promise<void> {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const headLength = buffer.readUInt32BE(0);
    const head = JSON.parse(buffer.subarray(4, 4 + headLength).toString("utf8")) as { keys: Record<string, unknown> };
    await this.#stageKeys(head.keys);
    await makeDirs(this.#d.runDir);
    const path = join(this.#d.runDir, `incoming-${snapshot.lastIndex}-${randomBytes(4).toString("hex")}.db`);
    try {
      await writeFile(path, buffer.subarray(4 + headLength));
      const source = new DatabaseSync(path, { readOnly: true });
      try {
        const applied = (source.prepare("SELECT applied_index FROM replication WHERE id = 1").get() as { applied_index: number } | undefined)?.applied_index ?? 0;
        if (applied < snapshot.lastIndex) throw new Error(`the snapshot image has applied ${applied}, short of the snapshot's ${snapshot.lastIndex}`);
        // Page by page into the live file: the engine's and the gateway's connections see the new store.
        // All pages in one step: a step holds the store's write lock, and many small steps each
        // competing with the other connections made a large image take minutes.
        await backup(source, this.#d.storePath, { rate: 1_000_000_000 });
      } finally {
        source.close();
      }
      this.#d.db.exec("PRAGMA wal_checkpoint(FULL)");
    } finally {
      await rm(path, { force: true });
    }
    // The image's current keys go in place now that its dids are the store's. A key without its
    // tenant's row (a create not committed when the image was taken) is dropped: that create's
    // entry carries it again.
    for (const r of await finishKeyRotations(this.#d.db, this.#d.keysDir)) {
      if (r.outcome === "kept" || (r.outcome === "undone" && tenantExists(this.#d.db, r.tenant))) {
        throw new Error(`the snapshot's key of tenant '${r.tenant}' is not the one its store names (${r.reason ?? String(r.did)})`);
      }
    }
    this.#d.onReplaced();
  }
}
