import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import type { Receipt } from "../../../../shared/identity/receipt.ts";
import { silentLogger } from "../../../../shared/log.ts";
import { migrate } from "../../../../shared/store/migrations.ts";
import { openDatabase } from "../../../../shared/store/open.ts";
import { EventHub } from "../../event-hub.ts";
import type { SessionRecord } from "../account/account-store.ts";
import { type Commit, CommitFeed, parseAfter } from "./commit-feed.ts";
import type { EventClient } from "./events-socket.ts";
import { readFrames } from "../../../../test/helpers/ws-frame-reader.ts";

const PERSON = "did:key:z6MkPerson";
const ARTIFACT = "art_orders";
/** When the test's history begins (each entry a millisecond after the one before). */
const AT = Date.parse("2026-11-30T08:00:00.000Z");
const turn = () => new Promise((resolve) => setImmediate(resolve));
const SESSION: SessionRecord = { id: "s1", scope: "full", createdAt: 0, lastSeenAt: 0, userAgent: "", steppedUpUntil: 0, stepUpEvidence: null, endedAt: null };

/** A commit frame as a client reads it. */
type Frame = Omit<Commit, "committedAt"> & { id: string; kind: string; at: string | null };

/** A client that keeps what it is sent; `paused`, it takes nothing (its bytes stay behind) until resumed. */
class FakeClient implements EventClient {
  readonly session = SESSION;
  readonly wires: Buffer[] = [];
  closed = false;
  closeCode: number | null = null;
  paused = false;
  #unsent = 0;
  #held = 0;
  #waiting: (() => void)[] = [];
  readonly #listeners: (() => void)[] = [];
  readonly #max: number;

  constructor(max = 1024 * 1024) {
    this.#max = max;
  }
  get behind(): number {
    return this.#unsent + this.#held;
  }
  send(wire: Buffer): boolean {
    if (this.closed) return false;
    this.wires.push(wire);
    if (this.paused) this.#unsent += wire.length;
    if (this.behind > this.#max) this.close(4008);
    return !this.closed;
  }
  hold(bytes: number): boolean {
    if (this.closed) return false;
    this.#held += bytes;
    if (this.behind > this.#max) this.close(4008);
    return !this.closed;
  }
  release(bytes: number): void {
    this.#held -= bytes;
  }
  drained(): Promise<void> {
    if (this.#unsent === 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
  resume(): void {
    this.paused = false;
    this.#unsent = 0;
    for (const w of this.#waiting.splice(0)) w();
  }
  close(code: number): void {
    if (this.closed) return;
    this.closed = true;
    this.closeCode = code;
    for (const l of this.#listeners.splice(0)) l();
    for (const w of this.#waiting.splice(0)) w();
  }
  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.#listeners.push(listener);
  }
  frames(): Frame[] {
    return this.wires.flatMap((w) => readFrames(w).frames.map((f) => JSON.parse(f.payload.toString()) as Frame));
  }
  seqs(): number[] {
    return this.frames().map((f) => f.seq);
  }
}

describe("the commit feed", () => {
  let dir: string;
  let db: DatabaseSync;
  let seq = 0;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "charter-commit-feed-"));
    db = openDatabase(join(dir, "charter.db"));
    migrate(db);
    for (const t of ["acme", "globex", "mine"]) db.prepare("INSERT INTO tenants (handle, did, created_at) VALUES (?, ?, 0)").run(t, `did:key:${t}`);
    db.prepare("INSERT INTO tenant_roles (tenant, did, role, added_at) VALUES ('acme', ?, 'member', 0)").run(PERSON);
    db.prepare("INSERT INTO tenant_roles (tenant, did, role, added_at) VALUES ('globex', 'did:key:someone', 'owner', 0)").run();
    const schema = { actions: { "Order.Request": { aggregate: "Order", name: "Request" }, "Crate.Request": { aggregate: "Crate", name: "Request" }, "Crate.Seal": { aggregate: "Crate", name: "Seal" } } };
    db.prepare("INSERT INTO artifacts (id, namespace, version, schema, wasm, source, stored_at) VALUES (?, 'acme.orders', '1.0.0', ?, x'00', '', 0)").run(ARTIFACT, JSON.stringify(schema));
  });
  after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Writes a history entry (as the engine does) and answers its receipt. */
  function write(tenant: string, action = "Request", subject = `s-${seq + 1}`): Receipt {
    seq += 1;
    const aggregate = action === "Seal" ? "Crate" : "Order";
    db.prepare(
      "INSERT INTO history (seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, reason, args, command, before_digest, after_digest, receipt, committed_at) VALUES (?, ?, 'acme.orders', ?, ?, ?, 'did:key:signer', ?, 'accepted', NULL, '{}', '', '', '', '{}', ?)",
    ).run(seq, tenant, aggregate, subject, action, ARTIFACT, AT + seq);
    return {
      id: `rcpt_${seq}`,
      command: "",
      seq,
      tenant,
      namespace: "acme.orders",
      action,
      subject,
      signer: "did:key:signer",
      artifact: ARTIFACT,
      outcome: "accepted",
      reason: null,
      state: null,
      committedAt: new Date(AT + seq).toISOString(),
      node: "did:key:node",
    };
  }
  const publish = (hub: EventHub, r: Receipt) => hub.publish({ source: "commit", id: r.seq, payload: r });
  const feedOf = (hub: EventHub, options: Partial<ConstructorParameters<typeof CommitFeed>[0]> = {}) =>
    new CommitFeed({ hub, storePath: join(dir, "charter.db"), personDid: () => PERSON, log: silentLogger, flushMs: 0, ...options });
  const open = (feed: CommitFeed, client: EventClient, query = "") => feed.open(client, new URLSearchParams(query));

  it("sends the commits of tenants the person reads, with the action's aggregate, and nothing of others", async () => {
    const hub = new EventHub();
    const feed = feedOf(hub);
    const client = new FakeClient();
    open(feed, client);
    const a = write("acme", "Seal", "crate-1");
    const b = write("globex");
    const c = write("acme");
    for (const r of [a, b, c]) publish(hub, r);
    await turn();
    assert.deepEqual(client.frames(), [
      { id: String(a.seq), kind: "commit", tenant: "acme", namespace: "acme.orders", aggregate: "Crate", subject: "crate-1", action: "Seal", outcome: "accepted", seq: a.seq, at: a.committedAt },
      { id: String(c.seq), kind: "commit", tenant: "acme", namespace: "acme.orders", aggregate: "Order", subject: c.subject, action: "Request", outcome: "accepted", seq: c.seq, at: c.committedAt },
    ]);
    assert.equal(client.wires.length, 1, "one turn's frames go out in one write");
    feed.close();
  });

  it("sends nothing before set-up (no did), and a role given counts from the next turn", async () => {
    const hub = new EventHub();
    let did: string | null = null;
    const feed = feedOf(hub, { personDid: () => did });
    const client = new FakeClient();
    open(feed, client);
    publish(hub, write("mine"));
    await turn();
    did = PERSON;
    publish(hub, write("mine"));
    await turn();
    assert.deepEqual(client.frames(), []);
    db.prepare("INSERT INTO tenant_roles (tenant, did, role, added_at) VALUES ('mine', ?, 'owner', 0)").run(PERSON);
    const r = write("mine");
    publish(hub, r);
    await turn();
    assert.deepEqual(client.seqs(), [r.seq]);
    db.prepare("DELETE FROM tenant_roles WHERE tenant = 'mine'").run();
    feed.close();
  });

  it("frames are made once: every client gets the same bytes", async () => {
    const hub = new EventHub();
    const feed = feedOf(hub);
    const clients = [new FakeClient(), new FakeClient(), new FakeClient()];
    for (const c of clients) open(feed, c);
    publish(hub, write("acme"));
    publish(hub, write("acme"));
    await turn();
    assert.equal(clients[0]?.wires.length, 1);
    for (const c of clients) assert.equal(c.wires[0], clients[0]?.wires[0]);
    feed.close();
  });

  it("?after= replays the missed commits page by page, waits for a client that has not taken a page, then goes live without gap or repeat", async () => {
    const hub = new EventHub();
    const feed = feedOf(hub, { pageRows: 100, pageBytes: 4096 });
    const start = seq;
    for (let i = 0; i < 600; i++) write(i % 3 === 0 ? "globex" : "acme");
    const client = new FakeClient();
    client.paused = true;
    open(feed, client, `after=${start + 10}`);
    await turn();
    // The first page went out; the replay now waits for the client to take it.
    const firstPages = client.wires.length;
    assert.ok(firstPages >= 1);
    // Meanwhile commits keep coming: some already in the store's history the replay will reach.
    const live: Receipt[] = [];
    for (let i = 0; i < 30; i++) live.push(write("acme"));
    for (const r of live) publish(hub, r);
    await turn();
    await turn();
    assert.equal(client.wires.length, firstPages, "nothing more while the client has not taken its page");
    client.resume();
    for (let i = 0; i < 50 && client.seqs().at(-1) !== seq; i++) await turn();
    const expected = [...Array(seq - start).keys()].map((i) => start + 1 + i).filter((s) => s > start + 10 && (s > start + 600 || (s - start - 1) % 3 !== 0));
    assert.deepEqual(client.seqs(), expected);
    assert.deepEqual(
      client.frames().map((f) => f.at),
      expected.map((s) => new Date(AT + s).toISOString()),
      "replayed from the store or live, a frame says when it was committed",
    );
    assert.ok(client.wires.length > 5, `paged (${client.wires.length} writes)`);
    const more = write("acme");
    publish(hub, more);
    await turn();
    assert.deepEqual(client.seqs().slice(-1), [more.seq]);
    feed.close();
  });

  it("a client whose replay never ends holds live frames only up to its limit, then is closed with 4008", async () => {
    const hub = new EventHub();
    const feed = feedOf(hub, { pageRows: 10, pageBytes: 512 });
    const client = new FakeClient(64 * 1024);
    client.paused = true;
    open(feed, client, "after=0");
    await turn();
    for (let i = 0; i < 2000 && !client.closed; i++) {
      publish(hub, write("acme", "Request", `long-subject-${"x".repeat(100)}-${i}`));
      await turn();
    }
    assert.equal(client.closeCode, 4008);
    feed.close();
  });

  it("a gap in the hub's commits is filled from the store; one too large closes the clients with 4008", async () => {
    const hub = new EventHub();
    const feed = feedOf(hub, { fillMax: 5 });
    const client = new FakeClient();
    open(feed, client);
    const skipped = [write("acme"), write("globex"), write("acme")];
    const next = write("acme");
    publish(hub, next);
    await turn();
    assert.deepEqual(client.seqs(), [skipped[0]?.seq, skipped[2]?.seq, next.seq]);
    for (let i = 0; i < 6; i++) write("acme");
    publish(hub, write("acme"));
    assert.equal(client.closeCode, 4008);
    feed.close();
  });

  it("leaves the hub once its last client has gone", () => {
    const hub = new EventHub();
    const feed = feedOf(hub);
    const a = new FakeClient();
    const b = new FakeClient();
    open(feed, a);
    open(feed, b);
    assert.equal(hub.watched, true);
    a.close(1000);
    assert.equal(hub.watched, true);
    b.close(1000);
    assert.equal(hub.watched, false);
    feed.close();
  });

  it("takes one non-negative integer as after, and refuses anything else with 400 bad-parameters", () => {
    const feed = feedOf(new EventHub());
    for (const ok of ["", "after=0", "after=42", "after=9007199254740991", "other=1"]) assert.equal(feed.check(new URLSearchParams(ok)), null, ok);
    for (const bad of ["after=", "after=-1", "after=1.5", "after=1e3", "after=01", "after=abc", "after=1&after=2", "after=99999999999999999"]) {
      const p = feed.check(new URLSearchParams(bad));
      assert.deepEqual([p?.status, p?.code], [400, "bad-parameters"], bad);
    }
    assert.equal(parseAfter("12"), 12);
    feed.close();
  });
});
