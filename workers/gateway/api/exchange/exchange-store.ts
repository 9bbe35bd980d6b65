/**
 * @module What the exchange keeps, in `DATA/accounts.db` beside the account's other tables: the
 * person's relationships (another person's node: their did:key, pinned, the URL it answers at, a
 * name) and the signed documents sent to them and received from them, each with its compact JWS
 * exactly as it travelled. Documents are listed in the order they were stored (newest first); a
 * document is known by its box and the id its sender gave it.
 */
import type { DatabaseSync } from "node:sqlite";

const DDL = `
CREATE TABLE IF NOT EXISTS exchange_relationships (
  id TEXT PRIMARY KEY,
  did TEXT NOT NULL UNIQUE,
  url TEXT NOT NULL,
  name TEXT NOT NULL,
  added_at INTEGER NOT NULL,
  last_contact INTEGER,
  last_error TEXT
) STRICT;
CREATE TABLE IF NOT EXISTS exchange_documents (
  n INTEGER PRIMARY KEY,
  box TEXT NOT NULL CHECK (box IN ('in', 'out')),
  id TEXT NOT NULL,
  peer TEXT NOT NULL,
  namespace TEXT NOT NULL,
  aggregate TEXT NOT NULL,
  subject TEXT NOT NULL,
  sent_at TEXT NOT NULL,
  jws TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('received', 'delivered', 'failed')),
  attempts INTEGER NOT NULL,
  error TEXT,
  stored_at INTEGER NOT NULL,
  UNIQUE (box, id)
) STRICT;
`;

/** A relationship as the routes show it (times RFC 3339). */
export interface Relationship {
  readonly id: string;
  readonly did: string;
  readonly url: string;
  readonly name: string;
  readonly addedAt: string;
  readonly lastContact: string | null;
  readonly lastError: string | null;
}

/** Which way a document went: received (`in`) or sent (`out`). */
export type Box = "in" | "out";

/** What became of a document: received here, delivered to the peer, or not delivered (yet). */
export type DocumentStatus = "received" | "delivered" | "failed";

/** A stored document, without its JWS. `peer` is the other person's did (its sender, or its recipient). */
export interface StoredDocument {
  readonly n: number;
  readonly id: string;
  readonly box: Box;
  readonly status: DocumentStatus;
  readonly peer: string;
  readonly namespace: string;
  readonly aggregate: string;
  readonly subject: string;
  readonly sentAt: string;
  readonly storedAt: string;
  readonly attempts: number;
  readonly error: string | null;
}

/** A document to store. */
export interface NewDocument {
  readonly box: Box;
  readonly id: string;
  readonly peer: string;
  readonly namespace: string;
  readonly aggregate: string;
  readonly subject: string;
  readonly sentAt: string;
  readonly jws: string;
  readonly status: DocumentStatus;
  readonly attempts: number;
  readonly error: string | null;
}

interface RelationshipRow {
  id: string;
  did: string;
  url: string;
  name: string;
  added_at: number | bigint;
  last_contact: number | bigint | null;
  last_error: string | null;
}

interface DocumentRow {
  n: number | bigint;
  box: Box;
  id: string;
  peer: string;
  namespace: string;
  aggregate: string;
  subject: string;
  sent_at: string;
  status: DocumentStatus;
  attempts: number | bigint;
  error: string | null;
  stored_at: number | bigint;
}

const DOCUMENT_COLUMNS = "n, box, id, peer, namespace, aggregate, subject, sent_at, status, attempts, error, stored_at";

/** The exchange's tables, created on open. */
export class ExchangeStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    db.exec(DDL);
  }

  /** Every relationship, in the order they were added. */
  relationships(): Relationship[] {
    const rows = this.#db.prepare("SELECT * FROM exchange_relationships ORDER BY id").all() as unknown as RelationshipRow[];
    return rows.map(toRelationship);
  }

  relationship(id: string): Relationship | null {
    const row = this.#db.prepare("SELECT * FROM exchange_relationships WHERE id = ?").get(id) as RelationshipRow | undefined;
    return row === undefined ? null : toRelationship(row);
  }

  /** The relationship that pins `did`, or null. */
  relationshipOf(did: string): Relationship | null {
    const row = this.#db.prepare("SELECT * FROM exchange_relationships WHERE did = ?").get(did) as RelationshipRow | undefined;
    return row === undefined ? null : toRelationship(row);
  }

  countRelationships(): number {
    return Number((this.#db.prepare("SELECT COUNT(*) AS n FROM exchange_relationships").get() as { n: number | bigint }).n);
  }

  /** Adds a relationship; false when one pins `did` already. */
  addRelationship(r: { id: string; did: string; url: string; name: string; addedAt: number }): boolean {
    const added = this.#db
      .prepare("INSERT INTO exchange_relationships (id, did, url, name, added_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (did) DO NOTHING")
      .run(r.id, r.did, r.url, r.name, r.addedAt);
    return Number(added.changes) === 1;
  }

  /** Changes a relationship's name or URL (its did stays pinned); false when there is none. */
  editRelationship(id: string, change: { readonly name?: string; readonly url?: string }): boolean {
    const edited = this.#db
      .prepare("UPDATE exchange_relationships SET name = coalesce(?, name), url = coalesce(?, url) WHERE id = ?")
      .run(change.name ?? null, change.url ?? null, id);
    return Number(edited.changes) === 1;
  }

  /** Removes a relationship; false when there is none. Its documents stay. */
  removeRelationship(id: string): boolean {
    return Number(this.#db.prepare("DELETE FROM exchange_relationships WHERE id = ?").run(id).changes) === 1;
  }

  /** Records a delivery to the relationship of `did`: `error` null when it went well. */
  contact(did: string, at: number, error: string | null): void {
    if (error === null) this.#db.prepare("UPDATE exchange_relationships SET last_contact = ?, last_error = NULL WHERE did = ?").run(at, did);
    else this.#db.prepare("UPDATE exchange_relationships SET last_error = ? WHERE did = ?").run(error, did);
  }

  /** Records a document received from the relationship of `did` (what its own deliveries failed with stays). */
  heard(did: string, at: number): void {
    this.#db.prepare("UPDATE exchange_relationships SET last_contact = ? WHERE did = ?").run(at, did);
  }

  /** Stores a document; false when its box holds that id already (nothing is changed). */
  addDocument(d: NewDocument, storedAt: number): boolean {
    const added = this.#db
      .prepare(
        "INSERT INTO exchange_documents (box, id, peer, namespace, aggregate, subject, sent_at, jws, status, attempts, error, stored_at) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (box, id) DO NOTHING",
      )
      .run(d.box, d.id, d.peer, d.namespace, d.aggregate, d.subject, d.sentAt, d.jws, d.status, d.attempts, d.error, storedAt);
    return Number(added.changes) === 1;
  }

  /** A document of `box` (either box when null: the sent one first) and its JWS, or null. */
  document(id: string, box: Box | null): { document: StoredDocument; jws: string } | null {
    const row = this.#db
      .prepare(`SELECT ${DOCUMENT_COLUMNS}, jws FROM exchange_documents WHERE id = ? AND (? IS NULL OR box = ?) ORDER BY box = 'out' DESC LIMIT 1`)
      .get(id, box, box) as (DocumentRow & { jws: string }) | undefined;
    return row === undefined ? null : { document: toDocument(row), jws: row.jws };
  }

  /** Up to `limit` documents of `box` (both when null) stored before `before` (the `n` of an earlier page's last), newest first. */
  documents(box: Box | null, before: number | null, limit: number): StoredDocument[] {
    const rows = this.#db
      .prepare(`SELECT ${DOCUMENT_COLUMNS} FROM exchange_documents WHERE (? IS NULL OR box = ?) AND (? IS NULL OR n < ?) ORDER BY n DESC LIMIT ?`)
      .all(box, box, before, before, limit) as unknown as DocumentRow[];
    return rows.map(toDocument);
  }

  /** Records a delivery attempt of a sent document. */
  delivered(id: string, status: "delivered" | "failed", error: string | null): void {
    this.#db.prepare("UPDATE exchange_documents SET status = ?, error = ?, attempts = attempts + 1 WHERE box = 'out' AND id = ?").run(status, error, id);
  }
}

function toRelationship(row: RelationshipRow): Relationship {
  return {
    id: row.id,
    did: row.did,
    url: row.url,
    name: row.name,
    addedAt: iso(row.added_at),
    lastContact: row.last_contact === null ? null : iso(row.last_contact),
    lastError: row.last_error,
  };
}

function toDocument(row: DocumentRow): StoredDocument {
  return {
    n: Number(row.n),
    id: row.id,
    box: row.box,
    status: row.status,
    peer: row.peer,
    namespace: row.namespace,
    aggregate: row.aggregate,
    subject: row.subject,
    sentAt: row.sent_at,
    storedAt: iso(row.stored_at),
    attempts: Number(row.attempts),
    error: row.error,
  };
}

function iso(ms: number | bigint): string {
  return new Date(Number(ms)).toISOString();
}
