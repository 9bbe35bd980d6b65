/**
 * @module The exchange: the person's relationships with other persons' nodes, and the signed
 * documents sent to them and received from them (exchange-document.ts). Sending reads the current
 * record of a subject as the person, with the receipt of the command that last changed it, signs
 * the document with the person's key and posts it to the other node's inbox (delivery.ts); a
 * failed delivery is kept and may be tried again. Receiving checks a document completely before
 * anything is stored: its sender must be a relationship the person pinned. The hosts of the
 * relationships' URLs are declared for the egress guard (the only hosts the exchange reaches).
 */
import type { DatabaseSync } from "node:sqlite";
import type { Logger } from "../../../../shared/log.ts";
import { type KeyPair, type Receipt, signReceipt } from "../../../../shared/identity/index.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { hostOfUrl } from "../connectors/egress-list.ts";
import { pageOf, type Page } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { deliver, type DeliveryOutcome } from "./delivery.ts";
import { checkDocument, DOCUMENT_TYP, type DocumentParties, type ExchangeDocument, signDocument } from "./exchange-document.ts";
import { type Box, ExchangeStore, type Relationship, type StoredDocument } from "./exchange-store.ts";
import { MAX_RELATIONSHIPS, type RelationshipChange, type RelationshipInput } from "./relationship-rules.ts";

/** What the exchange needs. */
export interface ExchangeDeps {
  /** `DATA/accounts.db`: the exchange's tables are created in it. */
  readonly db: DatabaseSync;
  /** Reads the records to send, as the person. */
  readonly reader: Pick<PersonReader, "read" | "record">;
  /** The person's did, null before set-up. */
  readonly personDid: () => string | null;
  /** The person's key, null before set-up: documents are signed with it. */
  readonly personKey: () => KeyPair | null;
  /** The node's key: a receipt from history is its stored JSON signed again (Ed25519: the same JWS). */
  /** The node's key: it signs the receipts documents carry. */
  readonly nodeKey: KeyPair;
  /** Where the relationships' hosts are declared. */
  readonly egress: { declare(source: string, hosts: readonly string[]): void };
  readonly now: () => number;
  readonly log: Logger;
  /** Hands a document to another node (delivery.ts; a test's double). */
  readonly deliver?: (url: string, jws: string, signal: AbortSignal) => Promise<DeliveryOutcome>;
  /** Told of each change the person may want to see live (an `exchange` frame on `/api/events`). */
  readonly onEvent?: (event: ExchangeEvent) => void;
}

/**
 * A change of the exchange: a document received, delivered or not delivered (`document` its id,
 * `box` its box), or a relationship added, changed or removed (`relationship` its id).
 */
export type ExchangeEvent =
  | { readonly event: "received" | "delivered" | "failed"; readonly document: string; readonly box: Box; readonly peer: string; readonly namespace: string; readonly subject: string; readonly error: string | null }
  | { readonly event: "relationship-added" | "relationship-changed" | "relationship-removed"; readonly relationship: string };

/** What to send: the current record of `subject` in `namespace` (of `tenant`, the personal tenant by default). */
export interface SendInput {
  readonly relationship: string;
  readonly namespace: string;
  readonly subject: string;
  readonly aggregate?: string;
  readonly tenant?: string;
}

/** What came of sending (or trying again). */
export interface SendAnswer {
  readonly id: string;
  readonly status: "delivered" | "failed";
  readonly error?: string;
}

/** A document as lists show it; `relationship` is the id of the relationship that pins `peer` now, or null. */
export type DocumentItem = Omit<StoredDocument, "n"> & { readonly relationship: string | null };

/** The source under which the relationships' hosts are declared for egress. */
export const EGRESS_SOURCE = "exchange";

/** The newest history entry of a subject that is a command's receipt (a migration's entry is not one), at or before a seq. */
const LAST_RECEIPT = `SELECT receipt FROM history
  WHERE tenant = ? AND namespace = ? AND aggregate = ? AND subject = ? AND seq <= ? AND outcome = 'accepted'
    AND json_extract(receipt, '$.node') IS NOT NULL
  ORDER BY seq DESC LIMIT 1`;

export class Exchange {
  readonly #deps: ExchangeDeps;
  readonly #store: ExchangeStore;
  readonly #stopping = new AbortController();
  /** Sent documents being delivered now: one attempt at a time each. */
  readonly #inFlight = new Set<string>();
  #personKey: KeyPair | null = null;

  constructor(deps: ExchangeDeps) {
    this.#deps = deps;
    this.#store = new ExchangeStore(deps.db);
    this.#declareHosts();
  }

  /** A page of the relationships, in the order they were added. */
  relationships(request: { after: string | null; limit: number }): Page<Relationship> {
    return pageOf(this.#store.relationships(), (r) => r.id, request);
  }

  /** One relationship, or null. */
  relationship(id: string): Relationship | null {
    return this.#store.relationship(id);
  }

  /** Pins another person's node: `409 relationship-exists` for a did pinned already, `409 too-many-relationships`. */
  addRelationship(input: RelationshipInput): Relationship {
    if (this.#store.countRelationships() >= MAX_RELATIONSHIPS) {
      throw new HttpProblem(problem(409, "too-many-relationships", `a person keeps at most ${MAX_RELATIONSHIPS} relationships: remove one first`));
    }
    const id = timeOrderedId("rel", this.#deps.now());
    if (!this.#store.addRelationship({ id, ...input, addedAt: this.#deps.now() })) {
      const existing = this.#store.relationshipOf(input.did);
      throw new HttpProblem(problem(409, "relationship-exists", `${input.did} is pinned already${existing === null ? "" : ` (relationship ${existing.id}, ${existing.name})`}`));
    }
    this.#declareHosts();
    this.#deps.onEvent?.({ event: "relationship-added", relationship: id });
    return this.#store.relationship(id) as Relationship;
  }

  /** Renames a relationship or moves it to another URL (the did stays pinned); null when there is none. */
  editRelationship(id: string, change: RelationshipChange): Relationship | null {
    if (!this.#store.editRelationship(id, change)) return null;
    if (change.url !== undefined) this.#declareHosts();
    this.#deps.onEvent?.({ event: "relationship-changed", relationship: id });
    return this.#store.relationship(id);
  }

  /** Unpins a relationship (its documents stay; those it sent no longer verify); false when there is none. */
  removeRelationship(id: string): boolean {
    const removed = this.#store.removeRelationship(id);
    if (removed) {
      this.#declareHosts();
      this.#deps.onEvent?.({ event: "relationship-removed", relationship: id });
    }
    return removed;
  }

  /** Signs the current record of a subject as a document for a relationship and delivers it; the document is kept either way. */
  async send(input: SendInput): Promise<SendAnswer> {
    const relationship = this.#store.relationship(input.relationship);
    if (relationship === null) throw new HttpProblem(problem(404, "not-found", `no relationship '${input.relationship}'`));
    const document = await this.#document(input, relationship.did);
    const key = this.#key();
    const jws = signDocument(document, key);
    const { id, namespace, aggregate, subject, sentAt } = document;
    this.#store.addDocument({ box: "out", id, peer: relationship.did, namespace, aggregate, subject, sentAt, jws, status: "failed", attempts: 0, error: "not delivered yet" }, this.#deps.now());
    return this.#attempt(id, relationship, jws, { namespace, subject });
  }

  /** Delivers a sent document that failed again, to its relationship's URL now: `409 document-not-failed` otherwise. */
  async retry(id: string): Promise<SendAnswer> {
    const found = this.#store.document(id, "out");
    if (found === null) throw new HttpProblem(problem(404, "not-found", `no sent document '${id}'`));
    if (found.document.status !== "failed" || this.#inFlight.has(id)) {
      throw new HttpProblem(problem(409, "document-not-failed", `document '${id}' is ${this.#inFlight.has(id) ? "being delivered now" : found.document.status}`));
    }
    const relationship = this.#store.relationshipOf(found.document.peer);
    if (relationship === null) throw new HttpProblem(problem(404, "not-found", `the relationship with ${found.document.peer} was removed: add it again to deliver this document`));
    return this.#attempt(id, relationship, found.jws, found.document);
  }

  /**
   * A document another node delivered: checked completely (exchange-document.ts) before anything is
   * stored. `201` stored now; `200` the same document again (nothing new stored); `409
   * idempotency-conflict` another document under an id it had.
   */
  receive(jws: string): { status: 200 | 201; id: string } {
    const me = this.#deps.personDid();
    const checked = checkDocument(jws, { sender: (did) => this.#store.relationshipOf(did) !== null, recipient: (did) => did === me });
    if (!checked.ok) throw new HttpProblem(checked.error);
    const d = checked.value;
    const now = this.#deps.now();
    const added = this.#store.addDocument({ box: "in", id: d.id, peer: d.from, namespace: d.namespace, aggregate: d.aggregate, subject: d.subject, sentAt: d.sentAt, jws, status: "received", attempts: 0, error: null }, now);
    this.#store.heard(d.from, now);
    if (added) {
      this.#deps.log.info("exchange: document received", { id: d.id, from: d.from, namespace: d.namespace });
      this.#deps.onEvent?.({ event: "received", document: d.id, box: "in", peer: d.from, namespace: d.namespace, subject: d.subject, error: null });
      return { status: 201, id: d.id };
    }
    if (this.#store.document(d.id, "in")?.jws !== jws) throw new HttpProblem(problem(409, "idempotency-conflict", `a different document '${d.id}' was received already`));
    return { status: 200, id: d.id };
  }

  /** A page of the documents of `box` (both when null), newest first; the cursor is opaque. */
  documents(box: Box | null, request: { after: string | null; limit: number }): Page<DocumentItem> {
    let before: number | null = null;
    if (request.after !== null) {
      if (!/^\d{1,15}$/.test(request.after)) throw new HttpProblem(problem(400, "bad-parameters", "after is a cursor from an earlier page's next", [{ pointer: "?after", detail: "not a cursor of this list" }]));
      before = Number(request.after);
    }
    const rows = this.#store.documents(box, before, request.limit + 1);
    const page = rows.slice(0, request.limit);
    const last = page.at(-1);
    return { items: page.map((d) => this.#item(d)), next: rows.length > request.limit && last !== undefined ? Buffer.from(String(last.n)).toString("base64url") : null };
  }

  /** One document with its JWS and payload, `verified` re-checked now against the sender's pinned did; null when none. */
  document(id: string, box: Box | null): (DocumentItem & { document: unknown; jws: string; verified: boolean }) | null {
    const found = this.#store.document(id, box);
    if (found === null) return null;
    const stored = found.document;
    const me = this.#deps.personDid();
    const parties: DocumentParties =
      stored.box === "in"
        ? { sender: (did) => did === stored.peer && this.#store.relationshipOf(did) !== null, recipient: (did) => did === me }
        : { sender: (did) => did === me, recipient: (did) => did === stored.peer };
    const checked = checkDocument(found.jws, parties);
    return { ...this.#item(stored), document: payloadOf(found.jws), jws: found.jws, verified: checked.ok };
  }

  /** Ends the deliveries under way (the node stopping). */
  close(): void {
    this.#stopping.abort();
  }

  /** The document of the current record of `input`'s subject, for `to`. */
  async #document(input: SendInput, to: string): Promise<ExchangeDocument> {
    const { reader } = this.#deps;
    const aggregate = input.aggregate ?? this.#onlyAggregate(input.tenant, input.namespace);
    const record = reader.record(input.tenant, input.namespace, aggregate, input.subject);
    if (record === null) throw new HttpProblem(problem(404, "not-found", `${input.namespace} has no ${aggregate} '${input.subject}'`));
    const raw = reader.read(input.tenant, (r) => r.db.prepare(LAST_RECEIPT).get(r.tenant, input.namespace, aggregate, input.subject, record.seq) as { receipt: string } | undefined);
    if (raw === undefined) throw new HttpProblem(problem(404, "not-found", `${input.namespace} ${aggregate} '${input.subject}' has no command's receipt in history`));
    const key = this.#key();
    const now = this.#deps.now();
    return {
      typ: DOCUMENT_TYP,
      id: timeOrderedId("doc", now),
      from: key.did,
      to,
      namespace: input.namespace,
      aggregate,
      subject: input.subject,
      state: record.state,
      receipt: this.#receiptJws(raw.receipt),
      sentAt: new Date(now).toISOString(),
    };
  }

  /** The contract's one aggregate; a contract with several needs `aggregate` named. */
  #onlyAggregate(tenant: string | undefined, namespace: string): string {
    const names = this.#deps.reader.read(tenant, (r) => Object.keys(r.contract(namespace).schema.aggregates));
    if (names.length === 1) return names[0] as string;
    const detail = `${namespace} has several aggregates: name one (${names.join(", ")})`;
    throw new HttpProblem(problem(400, "bad-settings", detail, [{ pointer: "#/aggregate", detail }]));
  }

  /**
   * The receipt JWS of a history entry: the receipt JSON history keeps, signed again with the node
   * key — Ed25519 signatures are deterministic, so it is the JWS the engine answered with. A
   * replicated engine's history names the leader that decided; this node signs it as its own, as
   * the engine's answers do (workers/engine/requests.ts `signedAnswer`).
   */
  #receiptJws(json: string): string {
    const key = this.#deps.nodeKey;
    const receipt = JSON.parse(json) as Receipt;
    return receipt.node === key.did ? signReceipt(key, receipt, json) : signReceipt(key, { ...receipt, node: key.did });
  }

  /** One delivery attempt of a sent document; its outcome is stored, and on the relationship. */
  async #attempt(id: string, relationship: Relationship, jws: string, about: { namespace: string; subject: string }): Promise<SendAnswer> {
    this.#inFlight.add(id);
    let outcome: DeliveryOutcome;
    try {
      outcome = await (this.#deps.deliver ?? deliver)(relationship.url, jws, this.#stopping.signal);
    } finally {
      this.#inFlight.delete(id);
    }
    const error = outcome.ok ? null : outcome.error;
    this.#store.delivered(id, outcome.ok ? "delivered" : "failed", error);
    this.#store.contact(relationship.did, this.#deps.now(), error);
    if (error !== null) this.#deps.log.warn("exchange: a document was not delivered", { id, relationship: relationship.id, error });
    this.#deps.onEvent?.({ event: error === null ? "delivered" : "failed", document: id, box: "out", peer: relationship.did, ...about, error });
    return error === null ? { id, status: "delivered" } : { id, status: "failed", error };
  }

  #item(d: StoredDocument): DocumentItem {
    const { n: _n, ...item } = d;
    return { ...item, relationship: this.#store.relationshipOf(d.peer)?.id ?? null };
  }

  /** The person's key; `409 not-set-up` before set-up. */
  #key(): KeyPair {
    this.#personKey ??= this.#deps.personKey();
    if (this.#personKey === null) throw new HttpProblem(problem(409, "not-set-up", "the node has no account yet"));
    return this.#personKey;
  }

  #declareHosts(): void {
    this.#deps.egress.declare(
      EGRESS_SOURCE,
      this.#store.relationships().flatMap((r) => hostOfUrl(r.url) ?? []),
    );
  }
}

/** A compact JWS's payload as JSON (unchecked), or null. */
function payloadOf(jws: string): unknown {
  const parts = jws.split(".");
  try {
    return JSON.parse(Buffer.from(parts[1] ?? "", "base64url").toString("utf8")) as unknown;
  } catch {
    return null;
  }
}
