/**
 * Delegation, end to end on a real node: a delegate acts only through the actions a contract
 * delegates to one of its scopes (`authorize delegate shipping`), and reads that contract's
 * `api authenticated` queries; to every other contract, and with an unrelated or lapsed
 * delegation, it gets exactly the answer a stranger gets. Records, history and the tenant stay
 * for owners and members.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { generateKeyPair, type KeyPair, signBearer } from "../shared/identity/index.ts";
import { openDatabase } from "../shared/store/open.ts";
import { delegate } from "../workers/engine/tenants.ts";
import { type Charter, cleanup, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { act, type Answer } from "./helpers/client.ts";
import { example, seed } from "./helpers/seed.ts";

const NS = "acme.shipping";
let c: Charter;
let ada: KeyPair;
let bob: KeyPair;
/** Holds `shipping`: Ship is delegated to it. */
const carol = generateKeyPair();
/** Holds a scope no contract of the tenant delegates anything to. */
const dave = generateKeyPair();
/** Held `shipping` once; the delegation has lapsed. */
const erin = generateKeyPair();
const stranger = generateKeyPair();

const order = { customer: "Ada Ltd", destination: "Oslo", units: 4, crates: 1, credit_terms: true };
const go = (who: KeyPair, action: string, subject: string, args: Record<string, unknown> = {}, namespace = NS) => act(c.url, who, { namespace, action, subject, args });

async function send(path: string, who: KeyPair, audience: { namespace?: string }, init: RequestInit = {}): Promise<Answer> {
  const bearer = signBearer(who, { tenant: "acme", ...audience, now: Date.now() });
  const r = await fetch(`${c.url}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${bearer}` } });
  return { status: r.status, headers: r.headers, body: await r.json() };
}
const query = (who: KeyPair, name: string, params: unknown, namespace = NS) =>
  send(`/v1/acme/${namespace}/queries/${name}`, who, { namespace }, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ params }) });

/** An answer with the caller's did masked, to compare what two callers were told. */
const told = (a: Answer, who: KeyPair) => ({ status: a.status, body: JSON.parse(JSON.stringify(a.body).replaceAll(who.did, "<caller>")) as unknown });

/** Asserts `who` was told exactly what a stranger is told for the same request. */
async function asStranger(request: (who: KeyPair) => Promise<Answer>, who: KeyPair, status: number): Promise<void> {
  const theirs = await request(who);
  const strangers = await request(stranger);
  assert.equal(strangers.status, status, JSON.stringify(strangers.body));
  assert.deepEqual(told(theirs, who), told(strangers, stranger));
}

before(async () => {
  const dataDir = tempDataDir();
  const s = await seed(dataDir, { contracts: [example("shipping.charter.md")] });
  [ada, bob] = s.members as [KeyPair, KeyPair];
  const db = openDatabase(join(dataDir, "charter.db"));
  const now = Date.now();
  const grants = [
    delegate(db, { tenant: "acme", did: carol.did, scope: "shipping", now }),
    delegate(db, { tenant: "acme", did: dave.did, scope: "totally-unrelated", until: "2999-01-01", now }),
    // Granted in 2020 until mid-2020: in force then, lapsed now.
    delegate(db, { tenant: "acme", did: erin.did, scope: "shipping", until: "2020-06-01", now: Date.parse("2020-01-01") }),
  ];
  db.close();
  assert.ok(grants.every((g) => g.ok));
  c = await startCharter({ dataDir });
  assert.equal((await go(ada, "Request", "o-1", order)).status, 200);
  assert.equal((await go(bob, "CheckCrate", "o-1")).status, 200);
});
after(async () => {
  await stopCharter(c);
  cleanup(c.dataDir);
});

describe("a delegate with the scope an action is delegated to", () => {
  test("performs the delegated action", async () => {
    const shipped = await go(carol, "Ship", "o-1");
    assert.equal(shipped.status, 200, JSON.stringify(shipped.body));
    assert.equal(shipped.body.receipt.outcome, "accepted");
    assert.equal(shipped.body.receipt.state.status, "Shipped");
    assert.equal(shipped.body.receipt.signer, carol.did);
  });

  test("is refused a member's action as unauthorized", async () => {
    const requested = await go(carol, "Request", "o-carol", order);
    assert.equal(requested.status, 422, JSON.stringify(requested.body));
    assert.equal(requested.body.receipt.reason.code, "unauthorized");
    assert.equal(requested.body.receipt.reason.message, "only a member or owner of the tenant may do this");
  });

  test("runs the contract's authenticated queries", async () => {
    const rows = await query(carol, "ByStatus", { status: "Shipped" });
    assert.equal(rows.status, 200, JSON.stringify(rows.body));
    assert.deepEqual(rows.body.rows.map((r: { subject: string }) => r.subject), ["o-1"]);
  });

  test("is a stranger to a contract that delegates nothing to it, and to records, history and the tenant", async () => {
    await asStranger((who) => query(who, "Due", { on: "2026-01-01" }, "std.invoices"), carol, 403);
    await asStranger((who) => go(who, "Record", "inv-1", {}, "std.invoices"), carol, 403);
    await asStranger((who) => go(who, "Ship", "o-1", {}, "acme.nothing"), carol, 404);
    await asStranger((who) => send(`/v1/acme/${NS}/records/Order/o-1`, who, { namespace: NS }), carol, 403);
    await asStranger((who) => send(`/v1/acme/${NS}/records/Order/o-1/history`, who, { namespace: NS }), carol, 403);
    await asStranger((who) => send("/v1/acme", who, {}), carol, 403);
  });
});

describe("a delegate of an unrelated scope, or of a lapsed delegation, is answered as a stranger", () => {
  for (const [name, who] of [["totally-unrelated", () => dave], ["lapsed shipping", () => erin]] as const) {
    test(`${name}: refused the delegated action, with nothing recorded`, async () => {
      const subject = `o-${name.split(" ")[0]}`;
      assert.equal((await go(ada, "Request", subject, order)).status, 200);
      assert.equal((await go(ada, "CheckCrate", subject)).status, 200);
      await asStranger((k) => go(k, "Ship", subject), who(), 403);
      const history = await send(`/v1/acme/${NS}/records/Order/${subject}/history`, ada, { namespace: NS });
      assert.deepEqual(history.body.entries.map((e: { action: string }) => e.action), ["Request", "CheckCrate"], "nothing else is on record");
    });

    test(`${name}: the stranger's answer on authenticated queries`, async () => {
      await asStranger((k) => query(k, "ByStatus", { status: "Requested" }), who(), 403);
      await asStranger((k) => query(k, "Find", { text: "Oslo" }), who(), 403);
    });
  }
});
