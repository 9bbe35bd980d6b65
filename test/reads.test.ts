/**
 * Issue 4, item 5 "Reads", end to end against a real tree: queries (rows, order, paging, parameter
 * checks, exposure and bearer tokens), records and their history — after real signed commands.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { generateKeyPair, type KeyPair, signBearer, signCommand } from "../shared/identity/index.ts";
import { openDatabase } from "../shared/store/open.ts";
import { delegate } from "../workers/engine/tenants.ts";
import { type Charter, cleanup, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { example, seed } from "./helpers/seed.ts";

const SHIPPING = "acme.shipping";
const INVENTORY = "acme.inventory";

let c: Charter;
let owner: KeyPair;
let ada: KeyPair;
let bob: KeyPair;
const stranger = generateKeyPair();
const deputy = generateKeyPair();
let artifacts: Record<string, string>;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

async function send(path: string, init: RequestInit = {}): Promise<Answer> {
  const r = await fetch(`${c.url}${path}`, init);
  return { status: r.status, headers: r.headers, body: await r.json() };
}

function act(who: KeyPair, namespace: string, action: string, subject: string, args: Record<string, unknown> = {}): Promise<Answer> {
  const jws = signCommand(who, { tenant: "acme", namespace, action, subject, args, idempotencyKey: randomUUID(), issuedAt: new Date().toISOString() });
  return send(`/v1/acme/${namespace}/actions/${action}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ command: jws }) });
}

const token = (who: KeyPair, options: { namespace?: string; now?: number } = {}) =>
  signBearer(who, { tenant: "acme", namespace: options.namespace ?? SHIPPING, now: options.now ?? Date.now() });

function query(namespace: string, name: string, params: unknown, bearer?: string): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
  return send(`/v1/acme/${namespace}/queries/${name}`, { method: "POST", headers, body: JSON.stringify({ params }) });
}

const read = (path: string, bearer?: string) => send(`/v1/acme/${SHIPPING}/records/${path}`, bearer === undefined ? {} : { headers: { authorization: `Bearer ${bearer}` } });

const order = { destination: "Oslo", units: 4, crates: 1, credit_terms: false };

before(async () => {
  const dataDir = tempDataDir();
  const seeded = await seed(dataDir, { contracts: [example("shipping.charter.md"), example("inventory.charter.md")] });
  ({ owner, artifacts } = seeded);
  [ada, bob] = seeded.members as [KeyPair, KeyPair];
  const db = openDatabase(join(dataDir, "charter.db"));
  const granted = delegate(db, { tenant: "acme", did: deputy.did, scope: "shipping", now: Date.now() });
  db.close();
  assert.ok(granted.ok);
  c = await startCharter({ dataDir });

  // Requested: o-2, o-3, o-5 (submitted out of order); Confirmed: o-1; o-4 stays New (refused).
  for (const subject of ["o-5", "o-1", "o-3", "o-2"]) assert.equal((await act(ada, SHIPPING, "Request", subject, { ...order, customer: `C ${subject}` })).status, 200);
  assert.equal((await act(bob, SHIPPING, "Confirm", "o-1")).status, 200);
  assert.equal((await act(ada, SHIPPING, "Request", "o-4", { ...order, customer: "Zero", units: 0 })).status, 422);
  // Items: hammer and saw tie on price (subject breaks the tie); the kit is never listed.
  const items: [string, string, string, number, number][] = [["i-3", "saw", "Tool", 1, 900], ["i-1", "hammer", "Tool", 3, 900], ["i-2", "nail", "Part", 500, 2], ["i-4", "kit", "Kit", 9, 5000], ["i-5", "screw", "Part", 0, 2]];
  for (const [subject, name, kind, stock, price] of items) {
    assert.equal((await act(bob, INVENTORY, "Add", subject, { name, kind, stock, price, added: "2026-03-01" })).status, 200);
  }
});
after(async () => {
  await stopCharter(c);
  cleanup(c.dataDir);
});

describe("queries", () => {
  test("ByStatus answers the rows of that status in key order, with the active artifact", async () => {
    const a = await query(SHIPPING, "ByStatus", { status: "Requested" }, token(ada));
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.artifact, artifacts[SHIPPING]);
    assert.deepEqual(a.body.rows.map((r: { subject: string }) => r.subject), ["o-2", "o-3", "o-5"]);
    assert.deepEqual(a.body.rows[0], {
      subject: "o-2", key: "o-2", status: "Requested", customer: "C o-2", destination: "Oslo", units: 4, crates: 1, crates_checked: 0,
      paid: false, credit_terms: false, requested_by: ada.did, confirmed_by: null,
    });
    const confirmed = await query(SHIPPING, "ByStatus", { status: "Confirmed" }, token(owner));
    assert.deepEqual(confirmed.body.rows.map((r: { subject: string; confirmed_by: string }) => [r.subject, r.confirmed_by]), [["o-1", bob.did]]);
    assert.deepEqual((await query(SHIPPING, "ByStatus", { status: "Shipped" }, token(bob))).body.rows, []);
  });

  test("a public query needs no token; ties keep subject order; drop and take page", async () => {
    const page = (skip: number, count: number) => query(INVENTORY, "PriceList", { min_stock: 0, skip, count });
    const all = await page(0, 100);
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual(all.body.rows, [
      { id: "i-1", name: "hammer", value: 2700 },
      { id: "i-3", name: "saw", value: 900 },
      { id: "i-2", name: "nail", value: 1000 },
      { id: "i-5", name: "screw", value: 0 },
    ]);
    const pages = [];
    for (let skip = 0; skip < 6; skip += 2) pages.push(...(await page(skip, 2)).body.rows);
    assert.deepEqual(pages, all.body.rows, "pages of two, without gaps or repeats");
    assert.deepEqual((await page(1, 0)).body.rows, []);
    assert.deepEqual((await query(INVENTORY, "Nothing", {})).body.rows, [], "take 0");
    assert.deepEqual((await query(INVENTORY, "CheapestInStock", { n: 3 })).body.rows.map((r: { id: string }) => r.id), ["i-2", "i-1"]);
  });

  test("parameters of the wrong type are a 400 listing each of them", async () => {
    const a = await query(INVENTORY, "PriceList", { min_stock: "many", skip: -1, count: true, extra: 1 });
    assert.equal(a.status, 400);
    assert.equal(a.headers.get("content-type"), "application/problem+json");
    assert.deepEqual(a.body.errors.map((e: { pointer: string }) => e.pointer), ["#/params/min_stock", "#/params/skip", "#/params/count", "#/params/extra"]);
    const b = await query(SHIPPING, "ByStatus", { status: "Lost" }, token(ada));
    assert.equal(b.status, 400);
    assert.deepEqual(b.body.errors, [{ pointer: "#/params/status", detail: "must be one of New, Requested, Confirmed, Shipped" }]);
    assert.equal((await query(SHIPPING, "ByStatus", {}, token(ada))).status, 400);
  });

  test("api authenticated: no, expired or wrong-audience tokens are 401, strangers 403, delegates are known", async () => {
    for (const bearer of [undefined, token(ada, { now: Date.now() - 10 * 60_000 }), token(ada, { namespace: INVENTORY }), "not-a-jwt"]) {
      const a = await query(SHIPPING, "ByStatus", { status: "New" }, bearer);
      assert.equal(a.status, 401, JSON.stringify(a.body));
      assert.match(a.headers.get("www-authenticate") ?? "", /^Bearer realm="acme\/acme\.shipping"/);
    }
    const a = await query(SHIPPING, "ByStatus", { status: "New" }, token(stranger));
    assert.equal(a.status, 403);
    assert.equal((await query(SHIPPING, "ByStatus", { status: "New" }, token(deputy))).status, 200);
  });

  test("unknown and internal queries, unknown namespaces and tenants are 404", async () => {
    assert.equal((await query(SHIPPING, "Nope", {}, token(ada))).status, 404);
    assert.equal((await query(INVENTORY, "Valuation", {})).status, 404);
    assert.equal((await query("acme.nothing", "ByStatus", {})).status, 404);
    assert.equal((await send(`/v1/nobody/${SHIPPING}/queries/ByStatus`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status, 404);
  });

  test("search ranks the orders' indexed text (issue 5: every stage is served)", async () => {
    const a = await query(SHIPPING, "Find", { text: "Oslo" }, token(ada));
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual(a.body.rows.map((r: { subject: string }) => r.subject), ["o-1", "o-2", "o-3", "o-5"]);
    assert.equal(typeof a.body.rows[0].score, "number");
    const b = await query(SHIPPING, "Find", { text: "C o-3" }, token(ada));
    assert.deepEqual(b.body.rows.map((r: { subject: string }) => r.subject), ["o-3"]);
  });
});

describe("records and history", () => {
  test("a record's public state, for owners and members only", async () => {
    const a = await read("Order/o-1", token(owner));
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.subject, "o-1");
    assert.equal(a.body.aggregate, "Order");
    assert.equal(a.body.artifact, artifacts[SHIPPING]);
    assert.equal(typeof a.body.seq, "number");
    assert.deepEqual(a.body.state, { status: "Confirmed", customer: "C o-1", destination: "Oslo", units: 4, crates: 1, crates_checked: 0, paid: false, credit_terms: false, requested_by: ada.did, confirmed_by: bob.did });
    assert.equal((await read("Order/o-1", token(bob))).status, 200);
    assert.equal((await read("Order/o-1", token(deputy))).status, 403, "a delegate is not a member");
    assert.equal((await read("Order/o-1", token(stranger))).status, 403);
    assert.equal((await read("Order/o-1")).status, 401);
    assert.equal((await read("Order/o-4", token(ada))).status, 404, "a refused command creates no record");
    assert.equal((await read("Shipment/o-1", token(ada))).status, 404);
  });

  test("history lists accepted and refused commands, paged by seq without gaps", async () => {
    assert.equal((await act(ada, SHIPPING, "Confirm", "o-2")).status, 422, "the requester may not confirm");
    assert.equal((await act(bob, SHIPPING, "Pay", "o-2")).status, 200);
    assert.equal((await act(bob, SHIPPING, "Confirm", "o-2")).status, 200);
    const all = await read("Order/o-2/history", token(ada));
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.equal(all.body.next, null);
    assert.deepEqual(all.body.entries.map((e: { action: string; outcome: string }) => [e.action, e.outcome]), [["Request", "accepted"], ["Confirm", "refused"], ["Pay", "accepted"], ["Confirm", "accepted"]]);
    const refusal = all.body.entries[1];
    assert.equal(refusal.signer, ada.did);
    assert.equal(refusal.reason.code, "condition_failed");
    assert.equal(refusal.reason.condition, "context.signer != state.requested_by");
    assert.equal(refusal.receipt.outcome, "refused");
    assert.equal(refusal.artifact, artifacts[SHIPPING]);
    assert.ok(!Number.isNaN(Date.parse(refusal.committedAt)));

    const seen = [];
    let after = 0;
    for (let pages = 0; ; pages++) {
      const page = await read(`Order/o-2/history?after=${after}&limit=1`, token(owner));
      seen.push(...page.body.entries.map((e: { seq: number }) => e.seq));
      if (page.body.next === null) break;
      after = page.body.next;
      assert.ok(pages < 10);
    }
    assert.deepEqual(seen, all.body.entries.map((e: { seq: number }) => e.seq));
    const refusedOnly = await read("Order/o-4/history", token(ada));
    assert.deepEqual(refusedOnly.body.entries.map((e: { outcome: string; reason: { code: string } }) => [e.outcome, e.reason.code]), [["refused", "condition_failed"]]);
    assert.equal((await read("Order/o-2/history?limit=501", token(ada))).status, 400);
    assert.equal((await read("Order/o-2/history?after=x", token(ada))).status, 400);
    assert.equal((await read("Order/o-2/history", token(stranger))).status, 403);
  });
});
