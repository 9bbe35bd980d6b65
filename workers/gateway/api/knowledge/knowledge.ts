/**
 * @module The person's knowledge: the vaults (one folder each under `DATA/vaults/`, the person's
 * own is `personal`), the index they share (`DATA/knowledge/index.db`), the notes' history as the
 * store keeps it, and whether a blob is a revision of a note (the blob sweep keeps those).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { StoreView } from "../../reads/store-view.ts";
import type { BlobStore } from "../library/blob-store.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { KnowledgeIndex } from "./knowledge-index.ts";
import { KNOWLEDGE, NOTE, type NoteRecord, recordOf, Vault } from "./vault.ts";

/** The vaults there are: the person's own. */
export const VAULTS: readonly string[] = ["personal"];

/** One change in a note's history. */
export interface NoteChange {
  readonly seq: number;
  /** The revision the note was at after it. */
  readonly revision: number;
  readonly action: "Create" | "Write" | "Move" | "Delete";
  readonly origin: string;
  readonly sha256: string | null;
  readonly size: number | null;
  readonly path: string | null;
  readonly by: string;
  readonly at: string;
}

export interface KnowledgeDeps {
  readonly dataDir: string;
  readonly blobs: BlobStore;
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly store: StoreView;
  readonly now: () => number;
  readonly log: Logger;
}

const FILLED = "revision-blobs-filled";

export class Knowledge {
  readonly index: KnowledgeIndex;
  readonly #deps: KnowledgeDeps;
  readonly #vaults = new Map<string, Vault>();

  constructor(deps: KnowledgeDeps) {
    this.#deps = deps;
    const dir = join(deps.dataDir, "knowledge");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.index = new KnowledgeIndex(join(dir, "index.db"));
    for (const name of VAULTS) {
      this.#vaults.set(name, new Vault({ name, dir: join(deps.dataDir, "vaults", name), index: this.index, blobs: deps.blobs, reader: deps.reader, writer: deps.writer, now: deps.now, log: deps.log }));
    }
  }

  /** Opens every vault (once the person and `std.knowledge` are there): a scan, then a watcher. */
  async start(): Promise<void> {
    this.#fillRevisionBlobs();
    await Promise.all([...this.#vaults.values()].map((vault) => vault.start()));
  }

  /** Every vault there is, by name, with how many notes it has and when one last changed. */
  vaults(): { name: string; notes: number; updatedAt: string | null }[] {
    return [...this.#vaults.keys()].map((name) => {
      const { notes, updatedAt } = this.index.size(name);
      return { name, notes, updatedAt: updatedAt > 0 ? new Date(updatedAt).toISOString() : null };
    });
  }

  /** Vault `name`, or `404`. */
  vault(name: string): Vault {
    const vault = this.#vaults.get(name);
    if (vault === undefined) throw new HttpProblem(problem(404, "not-found", `there is no vault '${name}' (the person's own is 'personal')`, [{ pointer: "#/vault", detail: "no such vault" }]));
    return vault;
  }

  /** The kept note whose record is `id`, with its vault; null when there is none. */
  note(id: string): { vault: Vault; record: NoteRecord } | null {
    const found = this.#deps.reader.record(undefined, KNOWLEDGE, NOTE, id);
    const record = found === null ? null : recordOf(id, found.state);
    const vault = found === null ? undefined : this.#vaults.get(String(found.state.vault));
    return record === null || vault === undefined ? null : { vault, record };
  }

  /** Whether blob `sha256` is a revision of a note (throws until the index knows every revision). */
  referenced(sha256: string): boolean {
    if (this.index.meta(FILLED) === null) throw new Error("the knowledge index does not know every revision yet");
    return this.index.hasRevisionBlob(sha256);
  }

  /** Note `id`'s changes, newest first, before seq `before` (0: from the newest). */
  history(id: string, before: number, limit: number): { items: NoteChange[]; next: number | null } {
    const rows = this.#deps.store
      .prepare(
        "SELECT seq, action, signer, args, committed_at FROM history WHERE tenant = ? AND namespace = ? AND aggregate = ? AND subject = ? AND outcome = 'accepted' AND (? = 0 OR seq < ?) ORDER BY seq DESC LIMIT ?",
      )
      .all(this.#deps.reader.personalTenant(), KNOWLEDGE, NOTE, id, before, before, limit + 1) as { seq: bigint; action: string; signer: string; args: string; committed_at: bigint }[];
    // A move or a delete leaves the note at the revision of the text change before it.
    const revisions = this.#revisions(id);
    const revisionAt = (seq: number) => revisions.findLast((r) => r.seq <= seq)?.revision ?? 0;
    const items = rows.slice(0, limit).map((row) => {
      const args = JSON.parse(row.args) as { sha256?: string; size?: number; path?: string; origin?: string };
      return {
        seq: Number(row.seq),
        revision: revisionAt(Number(row.seq)),
        action: row.action as NoteChange["action"],
        origin: args.origin ?? "node",
        sha256: args.sha256 ?? null,
        size: args.size ?? null,
        path: args.path ?? null,
        by: row.signer,
        at: new Date(Number(row.committed_at)).toISOString(),
      };
    });
    return { items, next: rows.length > limit ? (items.at(-1)?.seq ?? null) : null };
  }

  /** The blob of note `id`'s revision `revision`, or null. */
  revisionSha(id: string, revision: number): string | null {
    return this.#revisions(id).find((r) => r.revision === revision)?.sha256 ?? null;
  }

  /** Note `id`'s text changes in order, each with the revision it made (Create: 1, Write: its base + 1) and its blob. */
  #revisions(id: string): { seq: number; revision: number; sha256: string | null }[] {
    const rows = this.#deps.store
      .prepare("SELECT seq, action, args FROM history WHERE tenant = ? AND namespace = ? AND aggregate = ? AND subject = ? AND outcome = 'accepted' AND action IN ('Create', 'Write') ORDER BY seq")
      .all(this.#deps.reader.personalTenant(), KNOWLEDGE, NOTE, id) as { seq: bigint; action: string; args: string }[];
    return rows.map((row) => {
      const args = JSON.parse(row.args) as { sha256?: string; base?: number };
      return { seq: Number(row.seq), revision: row.action === "Create" ? 1 : Number(args.base ?? 0) + 1, sha256: args.sha256 ?? null };
    });
  }

  /** A new index learns every revision's digest from history once (before that, the sweep keeps every blob). */
  #fillRevisionBlobs(): void {
    if (this.index.meta(FILLED) !== null) return;
    const tenant = this.#deps.reader.personalTenant();
    const rows = this.#deps.store
      .prepare("SELECT args FROM history WHERE tenant = ? AND namespace = ? AND outcome = 'accepted' AND action IN ('Create', 'Write')")
      .all(tenant, KNOWLEDGE) as { args: string }[];
    for (const row of rows) {
      const sha256 = (JSON.parse(row.args) as { sha256?: unknown }).sha256;
      if (typeof sha256 === "string") this.index.keepRevisionBlob(sha256);
    }
    this.index.setMeta(FILLED, new Date(this.#deps.now()).toISOString());
  }

  close(): void {
    for (const vault of this.#vaults.values()) vault.close();
    this.index.close();
  }
}
