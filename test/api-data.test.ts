/**
 * The back office on a real `charter node`: `POST /api/data/preview` is the engine's own decision
 * and writes nothing (no history, state, idempotency key or commit of any kind, no `/api/events`
 * frame); `GET /api/data`, `POST /api/data/query`; the records per contract generated from each
 * contract's schema under `/api/personal/{contract}/…` (std.invoices, in every tenant) and
 * `/api/business/{contract}/…?identity=` (a contract installed in a business tenant made through
 * the admin channel, owned by the person); `GET /api/analytics`; and every refusal on the way.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { standardLibrary } from "../contracts/std/library.ts";
import { WebSocket } from "ws";
import { compileContract } from "../contracts/compile.ts";
import type { Channel } from "../shared/channel/channel.ts";
import { connectChannel } from "../shared/channel/socket.ts";
import { generateKeyPair } from "../shared/identity/index.ts";
import type { AdminRequests } from "../shared/protocol/admin.ts";
import { type Answer, ApiClient, createAccount, printedSetupCode } from "./helpers/api-client.ts";
import { type Charter, cleanup, sleep, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";
import { invoiceArgs } from "./helpers/invoice-args.ts";

const ORDERS = `# acme.orders

\`\`\`charter
namespace acme.orders
version 1.0.0

aggregate Order {
  public item: Text(len=40)
  public quantity: Int = 0
  public placed_by: Identity
  public shipped: Bool = false

  action Place(item: Text(len=40), quantity: Int) api authenticated {
    authorize member
    validate {
      state.quantity == 0
      quantity > 0
    }
    apply {
      state.item = item
      state.quantity = quantity
      state.placed_by = context.signer
    }
  }

  action Ship() api authenticated {
    authorize delegate dispatch
    validate {
      state.quantity > 0
    }
    apply {
      state.shipped = true
    }
  }
}

query Large(min: Int) returns List<Order> api authenticated pipe
  Order
  | where quantity >= $min
  | sort key
\`\`\`
`;

const INVOICE = invoiceArgs(1);

const BUSINESS = "acme-co";
const STRANGERS = "globex";
/** Another's tenant, where the person holds a `dispatch` delegation. */
const DELEGATING = "initech";

/** What a preview must leave as it was: history, idempotency keys, every invoice record, and whether anything was committed at all. */
interface Footprint {
  readonly history: number;
  readonly keys: number;
  readonly invoices: string;
  readonly dataVersion: number;
}

describe("the back office: /api/data, preview, query, personal and business records, analytics", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";
  let did = "";
  let personal = "";
  let admin: Channel<AdminRequests, Record<string, never>>;
  /** A read-only connection kept open across a preview: its data_version moves when any other connection commits. */
  let store: DatabaseSync;
  const frames: { kind: string; action?: string; subject?: string; seq?: number }[] = [];
  let events: WebSocket;

  const call = (method: string, path: string, body?: unknown): Promise<Answer> => api.call(method, path, { cookie, ...(body === undefined ? {} : { body }) });

  before(async () => {
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
    cookie = (await createAccount(api, printedSetupCode(node))).cookie;
    const boot = await call("GET", "/api/bootstrap");
    assert.equal(boot.status, 200, JSON.stringify(boot.body));
    did = boot.body.person.did;
    personal = boot.body.tenant.handle;
    admin = await connectChannel<AdminRequests, Record<string, never>>(join(node.dataDir, "admin.sock"));
    // A business identity of the person's, with its own contract; and a tenant that is not theirs.
    assert.ok((await admin.request("tenant-create", { handle: BUSINESS, owners: [did], by: null })).ok);
    assert.ok((await admin.request("tenant-create", { handle: STRANGERS, owners: [generateKeyPair().did], by: null })).ok);
    const compiled = compileContract(ORDERS).artifact;
    assert.ok(compiled !== undefined, "the orders contract compiles");
    const artifact = { id: compiled.id, schemaJson: new TextDecoder().decode(compiled.schemaBytes), wasm: Buffer.from(compiled.wasm).toString("base64"), source: ORDERS };
    const installed = await admin.request("install", { tenant: BUSINESS, artifact, by: did });
    assert.ok(installed.ok, JSON.stringify(installed));
    const boss = generateKeyPair().did;
    assert.ok((await admin.request("tenant-create", { handle: DELEGATING, owners: [boss], by: null })).ok);
    assert.ok((await admin.request("install", { tenant: DELEGATING, artifact, by: boss })).ok);
    assert.ok((await admin.request("tenant-delegate", { tenant: DELEGATING, did, scope: "dispatch" })).ok);
    // Set-up also installs the node's own contracts in the personal tenant: wait until that is done, so nothing else writes meanwhile.
    // Every one of them (one install after another): a quiet moment between two is not the end.
    const library = standardLibrary().filter((a) => a.personal).map((a) => a.namespace);
    await waitFor("the node's contracts installed", async () => {
      const listed = await admin.request("contracts-list", { tenant: personal });
      return listed.ok && library.every((ns) => listed.value.some((row) => row.namespace === ns)) && (await quiet()) ? true : undefined;
    }, 30_000);
    store = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
    events = new WebSocket(`${node.url.replace(/^http/, "ws")}/api/events`, { headers: { cookie, origin: api.origin } });
    events.on("message", (data) => {
      const frame = JSON.parse(String(data)) as { kind: string };
      if (frame.kind === "commit") frames.push(frame);
    });
    await once(events, "open");
  });
  after(async () => {
    events?.close();
    store?.close();
    admin?.close();
    if (node !== undefined) {
      await stopCharter(node);
      cleanup(node.dataDir);
    }
  });

  /** Whether the store has not changed for a moment (nothing committing in the background). */
  async function quiet(): Promise<boolean> {
    const db = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
    try {
      const seen = (db.prepare("PRAGMA data_version").get() as { data_version: number }).data_version;
      db.prepare("SELECT count(*) FROM history").get();
      await sleep(300);
      return (db.prepare("PRAGMA data_version").get() as { data_version: number }).data_version === seen;
    } finally {
      db.close();
    }
  }

  function footprint(): Footprint {
    store.exec("BEGIN");
    try {
      const n = (sql: string) => (store.prepare(sql).get() as { n: number }).n;
      const table = (store.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'st_std_invoices_%__Invoice'").get() as { name: string }).name;
      return {
        history: n("SELECT count(*) AS n FROM history"),
        keys: n("SELECT count(*) AS n FROM idempotency"),
        invoices: JSON.stringify(store.prepare(`SELECT * FROM "${table}" ORDER BY tenant, subject`).all()),
        dataVersion: (store.prepare("PRAGMA data_version").get() as { data_version: number }).data_version,
      };
    } finally {
      store.exec("COMMIT");
    }
  }

  it("previews an action: the state it would leave, and nothing written — no history, state, key, commit or event", async () => {
    const before = footprint();
    const preview = await call("POST", "/api/data/preview", { namespace: "std.invoices", action: "Record", subject: "inv-1", args: INVOICE });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.deepEqual(preview.body, { outcome: "accepted", state: { ...INVOICE, status: "Open", payment_reference: "", owner: did } });
    await sleep(300);
    assert.deepEqual(footprint(), before, "charter.db did not change at all");
    assert.equal(frames.length, 0, "no /api/events frame");

    // The same command sent is accepted with the state previewed; its frame is the first.
    const acted = await call("POST", "/api/data/act", { namespace: "std.invoices", action: "Record", subject: "inv-1", args: INVOICE });
    assert.equal(acted.status, 200, JSON.stringify(acted.body));
    assert.deepEqual(acted.body.receipt.state, preview.body.state);
    await waitFor("the act's frame", () => (frames.length > 0 ? true : undefined));
    assert.deepEqual(frames.map((f) => [f.action, f.subject, f.seq]), [["Record", "inv-1", acted.body.receipt.seq]]);
    const after = footprint();
    assert.equal(after.history, before.history + 1);
    assert.notEqual(after.dataVersion, before.dataVersion, "a commit is seen by the footprint");
  });

  it("previews a refusal with the contract's own reason, the one the command gets", async () => {
    const before = footprint();
    const again = await call("POST", "/api/data/preview", { namespace: "std.invoices", action: "Record", subject: "inv-1", args: INVOICE });
    assert.equal(again.status, 200);
    assert.equal(again.body.outcome, "refused");
    assert.deepEqual({ code: again.body.reason.code, condition: again.body.reason.condition }, { code: "condition_failed", condition: 'state.digest == ""' });
    assert.equal(typeof again.body.reason.line, "number");
    assert.equal(again.body.state, undefined);
    const dates = await call("POST", "/api/data/preview", { namespace: "std.invoices", action: "Record", subject: "inv-2", args: { ...INVOICE, due_on: "2026-10-01" } });
    assert.equal(dates.body.reason.condition, "due_on >= issued_on");
    const long = await call("POST", "/api/data/preview", { namespace: "std.invoices", action: "Record", subject: "inv-2", args: { ...INVOICE, currency: "EURO" } });
    assert.deepEqual([long.status, long.body.outcome, long.body.reason.code], [200, "refused", "text_too_long"]);
    await sleep(300);
    assert.deepEqual(footprint(), before);
    assert.equal(frames.length, 1, "still only the act's frame");

    const refused = await call("POST", "/api/data/act", { namespace: "std.invoices", action: "Record", subject: "inv-1", args: INVOICE });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.receipt.reason, again.body.reason, "the preview's reason is the receipt's");
    const tooLong = await call("POST", "/api/data/act", { namespace: "std.invoices", action: "Record", subject: "inv-2", args: { ...INVOICE, currency: "EURO" } });
    assert.deepEqual([tooLong.status, tooLong.body.receipt.reason.code], [422, "text_too_long"]);
  });

  it("answers a preview's problems as act's: 404 unknown tenant, namespace or action; 403 another's tenant; 400 bad input", async () => {
    const before = footprint();
    const cases: [unknown, number, string][] = [
      [{ namespace: "std.nothing", action: "Record", subject: "x", args: {} }, 404, "unknown-namespace"],
      [{ namespace: "std.invoices", action: "Fly", subject: "x", args: {} }, 404, "unknown-action"],
      [{ tenant: "no-such-tenant", namespace: "std.invoices", action: "Record", subject: "x", args: INVOICE }, 404, "not-found"],
      [{ tenant: STRANGERS, namespace: "std.invoices", action: "Record", subject: "x", args: INVOICE }, 403, "not-member"],
      [{ namespace: "std.invoices", action: "Record", subject: "x", args: { ...INVOICE, amount_minor: "lots" } }, 400, "bad-arguments"],
      [{ namespace: "std.invoices", action: "Record", subject: "bad subject!", args: INVOICE }, 400, "malformed-payload"],
      [{ namespace: "std.invoices", action: "Record", subject: "x", args: [] }, 400, "malformed-body"],
      [{ namespace: "std.invoices", action: "Record", subject: 7, args: INVOICE }, 400, "malformed-body"],
      [{ namespace: "", action: "Record", subject: "x", args: INVOICE }, 400, "malformed-body"],
      [{ namespace: "std.invoices", action: "Record", subject: "x", args: INVOICE, idempotencyKey: "k" }, 400, "malformed-body"],
    ];
    for (const [body, status, code] of cases) {
      const answer = await call("POST", "/api/data/preview", body);
      assert.deepEqual([answer.status, answer.body.code], [status, code], `${JSON.stringify(body)} → ${JSON.stringify(answer.body)}`);
      assert.equal(answer.headers.get("content-type"), "application/problem+json");
    }
    const bad = await call("POST", "/api/data/preview", { namespace: "std.invoices", action: "Record", subject: "x", args: { ...INVOICE, amount_minor: "lots" } });
    assert.deepEqual(bad.body.errors, [{ pointer: "#/args/amount_minor", detail: bad.body.errors[0].detail }]);
    const stranger = await call("POST", "/api/data/act", { tenant: STRANGERS, namespace: "std.invoices", action: "Record", subject: "x", args: INVOICE });
    assert.deepEqual([stranger.status, stranger.body.code], [403, "not-member"], "act too");
    // A delegate may ask for what the engine lets it do: the actions delegated to its scope, and no other.
    const ship = await call("POST", "/api/data/preview", { tenant: DELEGATING, namespace: "acme.orders", action: "Ship", subject: "o-1", args: {} });
    assert.deepEqual([ship.status, ship.body.outcome, ship.body.reason?.condition], [200, "refused", "state.quantity > 0"]);
    const place = await call("POST", "/api/data/preview", { tenant: DELEGATING, namespace: "acme.orders", action: "Place", subject: "o-1", args: { item: "x", quantity: 1 } });
    assert.deepEqual([place.status, place.body.outcome, place.body.reason?.code], [200, "refused", "unauthorized"]);
    const invoices = await call("POST", "/api/data/preview", { tenant: DELEGATING, namespace: "std.invoices", action: "Record", subject: "x", args: INVOICE });
    assert.deepEqual([invoices.status, invoices.body.code], [403, "unknown-caller"], "std.invoices delegates nothing to dispatch");
    await sleep(300);
    assert.deepEqual(footprint(), before);
  });

  it("GET /api/data: the person's tenants, their contracts, aggregates and record counts; none of another's", async () => {
    const place = await call("POST", `/api/business/acme.orders/actions/Place?identity=${BUSINESS}`, { subject: "o-1", args: { item: "paper", quantity: 3 } });
    assert.equal(place.status, 200, JSON.stringify(place.body));
    const data = await call("GET", "/api/data");
    assert.equal(data.status, 200, JSON.stringify(data.body));
    assert.deepEqual(data.body.items.map((t: { tenant: string }) => t.tenant), [BUSINESS, personal].sort());
    assert.equal(data.body.next, null);
    const mine = data.body.items.find((t: { tenant: string }) => t.tenant === personal);
    assert.deepEqual([mine.personal, mine.owner], [true, true]);
    const invoices = mine.contracts.find((c: { namespace: string }) => c.namespace === "std.invoices");
    assert.match(invoices.artifact, /^art_[0-9a-f]{64}$/);
    assert.equal(invoices.version, "1.0.0");
    assert.deepEqual(invoices.aggregates, [{ name: "Invoice", records: 1 }]);
    const business = data.body.items.find((t: { tenant: string }) => t.tenant === BUSINESS);
    assert.equal(business.personal, false);
    assert.match(business.did, /^did:key:/);
    assert.deepEqual(
      business.contracts.map((c: { namespace: string; aggregates: unknown }) => [c.namespace, c.aggregates]),
      [["acme.orders", [{ name: "Order", records: 1 }]], ["std.invoices", [{ name: "Invoice", records: 0 }]]],
    );
    const paged = await call("GET", "/api/data?limit=1");
    assert.equal(paged.body.items.length, 1);
    const rest = await call("GET", `/api/data?limit=1&after=${paged.body.next}`);
    assert.deepEqual([...paged.body.items, ...rest.body.items].map((t: { tenant: string }) => t.tenant), [BUSINESS, personal].sort());
    assert.deepEqual([(await call("GET", "/api/data?limit=0")).status, (await call("GET", "/api/data?after=!")).status], [400, 400]);
  });

  it("POST /api/data/query runs a declared query as the person", async () => {
    const rows = await call("POST", "/api/data/query", { namespace: "std.invoices", query: "OpenInvoices", params: { owner: did, after: "" } });
    assert.equal(rows.status, 200, JSON.stringify(rows.body));
    assert.deepEqual(rows.body.rows.map((r: { id: string }) => r.id), ["inv-1"]);
    assert.match(rows.body.artifact, /^art_/);
    const business = await call("POST", "/api/data/query", { tenant: BUSINESS, namespace: "acme.orders", query: "Large", params: { min: 2 } });
    assert.deepEqual(business.body.rows.map((r: { subject: string; quantity: number }) => [r.subject, r.quantity]), [["o-1", 3]]);
    const cases: [unknown, number, string][] = [
      [{ namespace: "std.invoices", query: "Nothing", params: {} }, 404, "not-found"],
      [{ namespace: "std.nothing", query: "OpenInvoices", params: {} }, 404, "not-found"],
      [{ namespace: "std.invoices", query: "OpenInvoices", params: { owner: 5, after: "" } }, 400, "bad-parameters"],
      [{ namespace: "std.invoices", query: "OpenInvoices", params: [] }, 400, "malformed-body"],
      [{ tenant: STRANGERS, namespace: "std.invoices", query: "OpenInvoices", params: { owner: did, after: "" } }, 403, "not-member"],
      [{ namespace: "std.invoices", query: "OpenInvoices", params: {}, extra: 1 }, 400, "malformed-body"],
    ];
    for (const [body, status, code] of cases) {
      const answer = await call("POST", "/api/data/query", body);
      assert.deepEqual([answer.status, answer.body.code], [status, code], `${JSON.stringify(body)} → ${JSON.stringify(answer.body)}`);
    }
  });

  it("/api/personal/std.invoices/…: records paged, a record with its history, actions and queries", async () => {
    const second = await call("POST", "/api/personal/std.invoices/actions/Record", { subject: "inv-3", args: { ...INVOICE, digest: "d3" }, idempotencyKey: "record-inv-3" });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.receipt.signer, did);
    const retried = await call("POST", "/api/personal/std.invoices/actions/Record", { subject: "inv-3", args: { ...INVOICE, digest: "d3" }, idempotencyKey: "record-inv-3" });
    assert.equal(retried.body.receipt.id, second.body.receipt.id, "the idempotency key makes a retry safe");

    const first = await call("GET", "/api/personal/std.invoices/Invoice?limit=1");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body.items.map((r: { subject: string }) => r.subject), ["inv-1"]);
    assert.equal(first.body.items[0].state.supplier, "Acme Paper");
    const next = await call("GET", `/api/personal/std.invoices/Invoice?limit=1&after=${first.body.next}`);
    assert.deepEqual(next.body.items.map((r: { subject: string }) => r.subject), ["inv-3"]);
    assert.equal(next.body.next, null);

    const approve = await call("POST", "/api/personal/std.invoices/actions/Approve", { subject: "inv-1" });
    assert.equal(approve.status, 200, JSON.stringify(approve.body));
    const twice = await call("POST", "/api/personal/std.invoices/actions/Approve", { subject: "inv-1" });
    assert.deepEqual([twice.status, twice.body.receipt.outcome, twice.body.receipt.reason.condition], [422, "refused", "state.status == Open"]);

    const record = await call("GET", "/api/personal/std.invoices/Invoice/inv-1");
    assert.equal(record.status, 200, JSON.stringify(record.body));
    assert.equal(record.body.record.state.status, "Approved");
    assert.equal(record.body.record.seq, approve.body.receipt.seq);
    assert.deepEqual(record.body.history.items.map((e: { action: string; outcome: string }) => [e.action, e.outcome]), [
      ["Record", "accepted"],
      ["Record", "refused"],
      ["Approve", "accepted"],
      ["Approve", "refused"],
    ]);
    const page = await call("GET", "/api/personal/std.invoices/Invoice/inv-1?limit=3");
    assert.equal(page.body.history.items.length, 3);
    const last = await call("GET", `/api/personal/std.invoices/Invoice/inv-1?limit=3&after=${page.body.history.next}`);
    assert.deepEqual(last.body.history.items.map((e: { seq: number }) => e.seq), [twice.body.receipt.seq]);
    assert.equal(last.body.history.next, null);
    // A subject whose only command was refused has history and no record.
    const refusedOnly = await call("GET", "/api/personal/std.invoices/Invoice/inv-2");
    assert.deepEqual([refusedOnly.status, refusedOnly.body.record, refusedOnly.body.history.items.length], [200, null, 1]);

    const due = await call("POST", "/api/personal/std.invoices/queries/Due", { params: { on: "2026-12-31" } });
    assert.equal(due.status, 200, JSON.stringify(due.body));
    assert.deepEqual(due.body.rows.map((r: { id: string }) => r.id), ["inv-1"]);
  });

  it("answers 404 for what the contract does not have, 400 for bad input, and leaves /api/personal/health unbuilt", async () => {
    const cases: [string, string, unknown, number, string][] = [
      ["GET", "/api/personal/std.invoices/Invoice/inv-404", undefined, 404, "not-found"],
      ["GET", "/api/personal/std.invoices/Nothing", undefined, 404, "not-found"],
      ["GET", "/api/personal/std.invoices/Nothing/inv-1", undefined, 404, "not-found"],
      ["GET", "/api/personal/std.nothing/Invoice", undefined, 404, "not-found"],
      ["POST", "/api/personal/std.nothing/actions/Record", { subject: "x", args: INVOICE }, 404, "unknown-namespace"],
      ["POST", "/api/personal/std.invoices/actions/Fly", { subject: "x" }, 404, "unknown-action"],
      ["POST", "/api/personal/std.invoices/queries/Nothing", { params: {} }, 404, "not-found"],
      ["POST", "/api/personal/std.invoices/actions/Record", { subject: "x", args: { ...INVOICE, amount_minor: "lots" } }, 400, "bad-arguments"],
      ["POST", "/api/personal/std.invoices/actions/Record", { subject: "x", args: INVOICE, tenant: STRANGERS }, 400, "malformed-body"],
      ["POST", "/api/personal/std.invoices/queries/Due", { params: { on: "soon" } }, 400, "bad-parameters"],
      ["GET", "/api/personal/std.invoices/Invoice?limit=500", undefined, 400, "bad-parameters"],
      ["GET", "/api/personal/std.invoices/Invoice/inv-1?after=abc", undefined, 400, "bad-parameters"],
      ["GET", "/api/personal/health", undefined, 404, "not-found"],
    ];
    for (const [method, path, body, status, code] of cases) {
      const answer = await call(method, path, body);
      assert.deepEqual([answer.status, answer.body.code], [status, code], `${method} ${path} → ${JSON.stringify(answer.body)}`);
    }
  });

  it("/api/business/{contract}/…?identity=: a contract of a business tenant the person owns; 403 for another's, 400 without one", async () => {
    const list = await call("GET", `/api/business/acme.orders/Order?identity=${BUSINESS}`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(list.body.items.map((r: { subject: string; state: unknown }) => [r.subject, r.state]), [["o-1", { item: "paper", quantity: 3, placed_by: did, shipped: false }]]);
    const refused = await call("POST", `/api/business/acme.orders/actions/Place?identity=${BUSINESS}`, { subject: "o-1", args: { item: "more", quantity: 1 } });
    assert.deepEqual([refused.status, refused.body.receipt.reason.condition], [422, "state.quantity == 0"]);
    const long = await call("POST", `/api/business/acme.orders/actions/Place?identity=${BUSINESS}`, { subject: "o-2", args: { item: "x".repeat(41), quantity: 1 } });
    assert.deepEqual([long.status, long.body.receipt.reason.code], [422, "text_too_long"]);
    const one = await call("GET", `/api/business/acme.orders/Order/o-1?identity=${BUSINESS}`);
    assert.deepEqual([one.status, one.body.record.state.quantity, one.body.history.items.length], [200, 3, 2]);
    const large = await call("POST", `/api/business/acme.orders/queries/Large?identity=${BUSINESS}`, { params: { min: 1 } });
    assert.deepEqual(large.body.rows.map((r: { subject: string }) => r.subject), ["o-1"]);
    // std.invoices is in every tenant: the business one's are its own.
    const invoices = await call("GET", `/api/business/std.invoices/Invoice?identity=${BUSINESS}`);
    assert.deepEqual([invoices.status, invoices.body.items], [200, []]);

    const cases: [string, string, unknown, number, string][] = [
      ["GET", `/api/business/acme.orders/Order?identity=${STRANGERS}`, undefined, 403, "not-member"],
      ["GET", `/api/business/acme.orders/Order?identity=${DELEGATING}`, undefined, 403, "not-member"],
      ["POST", `/api/business/std.invoices/actions/Record?identity=${STRANGERS}`, { subject: "x", args: INVOICE }, 403, "not-member"],
      ["POST", `/api/business/std.invoices/queries/Due?identity=${STRANGERS}`, { params: { on: "2026-12-31" } }, 403, "not-member"],
      ["GET", `/api/business/std.invoices/Invoice/inv-1?identity=${STRANGERS}`, undefined, 403, "not-member"],
      ["GET", "/api/business/acme.orders/Order?identity=no-such-tenant", undefined, 404, "not-found"],
      ["GET", "/api/business/acme.orders/Order", undefined, 400, "bad-parameters"],
      ["POST", "/api/business/acme.orders/actions/Place", { subject: "o-3", args: { item: "x", quantity: 1 } }, 400, "bad-parameters"],
      ["GET", `/api/business/acme.orders/Order/o-404?identity=${BUSINESS}`, undefined, 404, "not-found"],
      ["GET", `/api/business/acme.orders/Nothing?identity=${BUSINESS}`, undefined, 404, "not-found"],
      ["GET", "/api/personal/acme.orders/Order", undefined, 404, "not-found"],
    ];
    for (const [method, path, body, status, code] of cases) {
      const answer = await call(method, path, body);
      assert.deepEqual([answer.status, answer.body.code], [status, code], `${method} ${path} → ${JSON.stringify(answer.body)}`);
    }
  });

  it("GET /api/analytics: commands per day, refusals by reason and action, the busiest aggregates — as history holds them", async () => {
    // The suite may run across midnight (UTC): "today" is whichever day the answer was computed on,
    // and each command's day is the one history recorded for it.
    const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const before = dayOf(Date.now());
    const stats = await call("GET", "/api/analytics");
    const today: string = stats.body.to;
    assert.equal(stats.status, 200, JSON.stringify(stats.body));
    assert.equal(stats.body.tenant, personal);
    assert.ok([before, dayOf(Date.now())].includes(today), `to is today: ${today}`);
    assert.equal(stats.body.days.length, 30);
    assert.equal(stats.body.complete, true);
    const db = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
    let expected: { commands: number; refused: number };
    let perDay: { day: number; commands: number; refused: number }[];
    try {
      expected = db.prepare("SELECT count(*) AS commands, coalesce(sum(outcome = 'refused'), 0) AS refused FROM history WHERE tenant = ?").get(personal) as typeof expected;
      perDay = db
        .prepare("SELECT committed_at / 86400000 AS day, count(*) AS commands, coalesce(sum(outcome = 'refused'), 0) AS refused FROM history WHERE tenant = ? GROUP BY day ORDER BY day")
        .all(personal) as typeof perDay;
    } finally {
      db.close();
    }
    assert.deepEqual(stats.body.totals, { commands: expected.commands, accepted: expected.commands - expected.refused, refused: expected.refused });
    const counted = stats.body.days.filter((d: { commands: number }) => d.commands > 0);
    assert.deepEqual(
      counted,
      perDay.map((d) => ({ date: dayOf(d.day * 86_400_000), commands: d.commands, accepted: d.commands - d.refused, refused: d.refused })),
      "each command counted on the day history recorded it",
    );
    assert.equal(stats.body.days.at(-1).date, today);
    const reasons = Object.fromEntries(stats.body.refusals.byReason.map((r: { code: string; count: number }) => [r.code, r.count]));
    assert.deepEqual(reasons, { condition_failed: 2, text_too_long: 1 });
    assert.deepEqual(stats.body.refusals.byAction, [
      { namespace: "std.invoices", action: "Record", count: 2 },
      { namespace: "std.invoices", action: "Approve", count: 1 },
    ]);
    assert.deepEqual(stats.body.busiest[0], { namespace: "std.invoices", aggregate: "Invoice", commands: stats.body.busiest[0].commands });

    const yesterday = dayOf(Date.parse(`${today}T00:00:00Z`) - 86_400_000);
    const business = await call("GET", `/api/analytics?tenant=${BUSINESS}&from=${yesterday}&to=${today}`);
    assert.deepEqual(business.body.totals, { commands: 3, accepted: 1, refused: 2 });
    assert.deepEqual(business.body.busiest, [{ namespace: "acme.orders", aggregate: "Order", commands: 3 }]);
    const past = await call("GET", "/api/analytics?from=2020-01-01&to=2020-12-31");
    assert.deepEqual([past.status, past.body.days.length, past.body.totals.commands], [200, 366, 0]);

    const cases: [string, number, string][] = [
      ["?from=2020-01-01&to=2021-01-01", 400, "bad-parameters"],
      ["?from=2026-02-30", 400, "bad-parameters"],
      ["?to=yesterday", 400, "bad-parameters"],
      ["?from=2026-05-02&to=2026-05-01", 400, "bad-parameters"],
      [`?tenant=${STRANGERS}`, 403, "not-member"],
      ["?tenant=no-such-tenant", 404, "not-found"],
    ];
    for (const [query, status, code] of cases) {
      const answer = await call("GET", `/api/analytics${query}`);
      assert.deepEqual([answer.status, answer.body.code], [status, code], `${query} → ${JSON.stringify(answer.body)}`);
    }
  });

  it("needs a session and, to change anything, the node's Origin", async () => {
    for (const [method, path] of [["GET", "/api/data"], ["POST", "/api/data/preview"], ["GET", "/api/analytics"], ["GET", "/api/personal/std.invoices/Invoice"]] as const) {
      const answer = await api.call(method, path, { body: {} });
      assert.deepEqual([answer.status, answer.body.code], [401, "unauthenticated"], `${method} ${path}`);
    }
    const elsewhere = await api.call("POST", "/api/data/preview", { cookie, origin: "http://evil.example", body: { namespace: "std.invoices", action: "Approve", subject: "inv-3" } });
    assert.deepEqual([elsewhere.status, elsewhere.body.code], [403, "bad-origin"]);
  });
});
