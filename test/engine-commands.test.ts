/** Issue 4: the shipping example's transition table, idempotency and bad input, through HTTP with real signatures. */
import assert from "node:assert/strict";
import { Agent, type IncomingHttpHeaders, request as httpRequest } from "node:http";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, test } from "node:test";
import type { Schema } from "../contracts/schema.ts";
import { tableName } from "../contracts/storage/columns.ts";
import { generateKeyPair, type KeyPair, verifyReceipt } from "../shared/identity/index.ts";
import { type Charter, cleanup, lockOf, startCharter, stopCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";
import { act, type Answer, post, signed } from "./helpers/client.ts";
import { example, seed } from "./helpers/seed.ts";

const NS = "acme.shipping";
const shipping = example("shipping.charter.md");
/** The 1-based line of a condition of an action in the shipping file, found independently of the compiler. */
function lineOf(action: string, text: string): number {
  const lines = shipping.split("\n");
  const start = lines.findIndex((l) => l.trim().startsWith(`action ${action}(`));
  return lines.findIndex((l, i) => i > start && l.trim() === text) + 1;
}

let c: Charter;
let ada: KeyPair;
let bob: KeyPair;
let owner: KeyPair;
let nodeDid: string;
let db: DatabaseSync;
/** The table of the installed shipping contract's orders. */
const orders = () => {
  const row = db.prepare("SELECT a.schema FROM installs i JOIN artifacts a ON a.id = i.artifact WHERE i.namespace = ? AND i.status = 'active'").get(NS) as { schema: string };
  return `"${tableName(JSON.parse(row.schema) as Schema, "Order")}"`;
};
/** A POST through node:http, its body written as `chunks` (chunked unless it is one chunk with no transfer-encoding header). */
function rawPost(
  to: string,
  chunks: Buffer[],
  headers: Record<string, string>,
  agent?: Agent,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string; reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const chunked = headers["transfer-encoding"] === "chunked";
    const req = httpRequest(to, { method: "POST", agent, headers: chunked ? headers : { ...headers, "content-length": String(chunks.reduce((n, b) => n + b.length, 0)) } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, reusedSocket: req.reusedSocket }));
    });
    req.on("error", reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}
const historyCount = () => (db.prepare("SELECT count(*) AS n FROM history").get() as { n: number }).n;

before(async () => {
  const dataDir = tempDataDir();
  const s = await seed(dataDir, { contracts: [shipping, example("counter.charter.md")] });
  [ada, bob] = s.members as [KeyPair, KeyPair];
  owner = s.owner;
  c = await startCharter({ dataDir });
  nodeDid = ((await (await fetch(`${c.url}/.well-known/charter.json`)).json()) as { identity: string }).identity;
  db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
});
after(async () => {
  db.close();
  await stopCharter(c);
  cleanup(c.dataDir);
});

const request = { customer: "Ada Ltd", destination: "Oslo", units: 4, crates: 2, credit_terms: false };
const go = (who: KeyPair, action: string, subject: string, args: Record<string, unknown> = {}) => act(c.url, who, { namespace: NS, action, subject, args });

function accepted(a: Answer, state: Record<string, unknown>): void {
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.equal(a.body.receipt.outcome, "accepted");
  assert.equal(a.body.receipt.reason, null);
  for (const [k, v] of Object.entries(state)) assert.deepEqual(a.body.receipt.state[k], v, `state.${k}`);
  const verified = verifyReceipt(a.body.jws, { node: nodeDid });
  assert.ok(verified.ok, "the receipt's JWS verifies against the node's identity");
  assert.deepEqual(verified.ok && verified.value.receipt, a.body.receipt);
}

function refused(a: Answer, condition: string): void {
  const action = a.body.receipt?.action as string;
  assert.equal(a.status, 422, JSON.stringify(a.body));
  assert.equal(a.body.receipt.outcome, "refused");
  assert.deepEqual(
    { code: a.body.receipt.reason.code, condition: a.body.receipt.reason.condition, line: a.body.receipt.reason.line },
    { code: "condition_failed", condition, line: lineOf(action, condition) },
  );
  const row = db.prepare("SELECT outcome, reason FROM history WHERE seq = ?").get(a.body.receipt.seq) as { outcome: string; reason: string };
  assert.equal(row.outcome, "refused", "the refusal is in history");
  assert.equal(JSON.parse(row.reason).condition, condition);
}

describe("spec §3.1 transition table", () => {
  test("New → Requested by Request; its conditions refuse and change nothing", async () => {
    refused(await go(ada, "Request", "o-units", { ...request, units: 0 }), "units > 0");
    refused(await go(ada, "Request", "o-units", { ...request, crates: 0 }), "crates > 0");
    assert.equal(db.prepare(`SELECT count(*) AS n FROM ${orders()} WHERE subject = 'o-units'`).get()?.n, 0, "a refused command creates no record");
    accepted(await go(ada, "Request", "o-1", request), { status: "Requested", customer: "Ada Ltd", units: 4, crates: 2, requested_by: ada.did });
    refused(await go(ada, "Request", "o-1", request), "state.status == New");
  });

  test("CheckCrate counts up to crates, then refuses", async () => {
    accepted(await go(ada, "CheckCrate", "o-1"), { crates_checked: 1, status: "Requested" });
    accepted(await go(bob, "CheckCrate", "o-1"), { crates_checked: 2 });
    refused(await go(ada, "CheckCrate", "o-1"), "state.crates_checked < state.crates");
    refused(await go(ada, "CheckCrate", "o-new"), "state.status == Requested");
  });

  test("Confirm: the requester may not; another member may", async () => {
    const before = historyCount();
    const r = await go(ada, "Confirm", "o-1");
    refused(r, "context.signer != state.requested_by");
    assert.equal(r.body.receipt.state.status, "Requested", "state unchanged after a refusal");
    assert.equal(historyCount(), before + 1);
    accepted(await go(bob, "Confirm", "o-1"), { status: "Confirmed", confirmed_by: bob.did });
    refused(await go(bob, "Confirm", "o-1"), "state.status == Requested");
  });

  test("Pay: not on New, once only", async () => {
    refused(await go(ada, "Pay", "o-unrequested"), "state.status != New");
    accepted(await go(ada, "Pay", "o-1"), { paid: true, status: "Confirmed" });
    refused(await go(ada, "Pay", "o-1"), "state.paid == false");
  });

  test("Ship: each condition refuses on its own, then ships", async () => {
    // Ship is delegated to `shipping`; an owner holds every delegation.
    await go(ada, "Request", "o-2", { ...request, units: 500 });
    refused(await go(owner, "Ship", "o-2"), "state.paid or state.credit_terms");
    await go(ada, "Pay", "o-2");
    refused(await go(owner, "Ship", "o-2"), "state.crates_checked == state.crates");
    await go(ada, "CheckCrate", "o-2");
    await go(ada, "CheckCrate", "o-2");
    refused(await go(owner, "Ship", "o-2"), "state.status == Confirmed or state.units <= 100");
    await go(ada, "Request", "o-3", { ...request, destination: "Embargoed", credit_terms: true });
    await go(ada, "CheckCrate", "o-3");
    await go(ada, "CheckCrate", "o-3");
    refused(await go(owner, "Ship", "o-3"), 'state.status == Confirmed or state.destination != "Embargoed"');
    accepted(await go(owner, "Ship", "o-1"), { status: "Shipped" });
    refused(await go(owner, "Ship", "o-1"), "state.status == Requested or state.status == Confirmed");
    accepted(await go(bob, "Confirm", "o-2"), { status: "Confirmed" });
    accepted(await go(owner, "Ship", "o-2"), { status: "Shipped", units: 500 });
  });

  test("every record and history row names the artifact that decided it", async () => {
    const artifact = (db.prepare("SELECT artifact FROM installs WHERE namespace = ?").get(NS) as { artifact: string }).artifact;
    const rows = db.prepare("SELECT DISTINCT artifact FROM history WHERE namespace = ?").all(NS) as { artifact: string }[];
    assert.deepEqual(rows.map((r) => r.artifact), [artifact]);
    const states = db.prepare(`SELECT DISTINCT artifact FROM ${orders()}`).all() as { artifact: string }[];
    assert.deepEqual(states.map((r) => r.artifact), [artifact]);
  });
});

describe("idempotency", () => {
  test("the same command twice: one history entry, the original receipt, the replay header; a different payload is 409", async () => {
    const jws = signed(ada, { namespace: NS, action: "Request", subject: "idem-1", args: request, idempotencyKey: "idem-key-1" });
    const url = `${c.url}/v1/acme/${NS}/actions/Request`;
    const first = await post(url, JSON.stringify({ command: jws }));
    const before = historyCount();
    const again = await post(url, jws, "application/jose");
    assert.equal(again.status, 200);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(again.body, first.body, "the original receipt, byte for byte (Ed25519 signatures are deterministic)");
    assert.equal(historyCount(), before);
    const other = signed(ada, { namespace: NS, action: "Request", subject: "idem-2", args: request, idempotencyKey: "idem-key-1" });
    const conflict = await post(url, JSON.stringify({ command: other }));
    assert.equal(conflict.status, 409);
    assert.equal(historyCount(), before);
    // The same key from another signer is that signer's own key.
    const bobs = await act(c.url, bob, { namespace: NS, action: "Request", subject: "idem-3", args: request, idempotencyKey: "idem-key-1" });
    assert.equal(bobs.status, 200);
  });

  test("after kill -9 of the engine and a restart, the retry still returns the original receipt", async () => {
    const jws = signed(ada, { namespace: NS, action: "Request", subject: "idem-crash", args: request, idempotencyKey: "idem-crash" });
    const url = `${c.url}/v1/acme/${NS}/actions/Request`;
    const first = await post(url, JSON.stringify({ command: jws }));
    assert.equal(first.status, 200);
    const engine = lockOf(c.dataDir).workers.engine as number;
    process.kill(engine, "SIGKILL");
    await waitFor("a new engine", () => (lockOf(c.dataDir).workers.engine !== engine ? true : undefined));
    const retry = await waitFor("the retry answered", async () => {
      const r = await post(url, JSON.stringify({ command: jws }));
      return r.status === 503 ? undefined : r;
    });
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(retry.body, first.body);
  });
});

describe("bad input: the right status, a problem document, nothing recorded", () => {
  const url = (action = "Request", ns = NS, tenant = "acme") => `${c.url}/v1/${tenant}/${ns}/actions/${action}`;
  async function rejects(status: number, make: () => Promise<Answer>, detail?: RegExp): Promise<void> {
    await problemOf(status, make, detail);
  }
  async function problemOf(status: number, make: () => Promise<Answer>, detail?: RegExp): Promise<Answer> {
    const before = historyCount();
    const a = await make();
    assert.equal(a.status, status, JSON.stringify(a.body));
    assert.equal(a.headers.get("content-type"), "application/problem+json");
    assert.equal(a.body.status, status);
    assert.equal(typeof a.body.title, "string");
    assert.equal(typeof a.body.type, "string");
    if (detail) assert.match(a.body.detail, detail);
    assert.equal(historyCount(), before, "nothing recorded");
    return a;
  }
  const cmd = (over: Partial<Parameters<typeof signed>[1]> = {}, who = ada) => signed(who, { namespace: NS, action: "Request", subject: "bad-1", args: request, ...over });

  test("bad signature", () =>
    rejects(400, () => {
      const jws = cmd();
      const sig = jws.slice(jws.lastIndexOf(".") + 1);
      const flipped = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
      return post(url(), JSON.stringify({ command: `${jws.slice(0, jws.lastIndexOf(".") + 1)}${flipped}` }));
    }));
  test("wrong key for the claimed kid", () =>
    rejects(400, () => {
      const impostor = generateKeyPair();
      const [h, p, s] = cmd({}, impostor).split(".") as [string, string, string];
      const header = JSON.parse(Buffer.from(h, "base64url").toString());
      header.kid = ada.did;
      return post(url(), JSON.stringify({ command: `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${p}.${s}` }));
    }));
  test("payload/path mismatch", () => rejects(400, () => post(url("Confirm"), JSON.stringify({ command: cmd() }))));
  test("stale issuedAt", () => rejects(400, () => post(url(), JSON.stringify({ command: cmd({ issuedAt: new Date(Date.now() - 10 * 60_000).toISOString() }) }))));
  test("unknown tenant", () => rejects(404, () => act(c.url, ada, { tenant: "nobody", namespace: NS, action: "Request", subject: "x", args: request })));
  test("unknown namespace", () => rejects(404, () => act(c.url, ada, { namespace: "acme.nothing", action: "Request", subject: "x", args: request })));
  test("unknown action", () => rejects(404, () => act(c.url, ada, { namespace: NS, action: "Teleport", subject: "x" })));
  test("unexposed (internal) action", () => rejects(404, () => act(c.url, owner, { namespace: "acme.counter", action: "Adjust", subject: "t", args: { by: 2 } }), /no action 'Adjust' served/));
  test("wrong argument type, and a missing one", async () => {
    const a = await problemOf(400, () => act(c.url, ada, { namespace: NS, action: "Request", subject: "x", args: { ...request, units: "four" } }));
    assert.ok(a.body.errors.some((e: { pointer: string }) => e.pointer === "#/args/units"));
    const { units: _units, ...missing } = request;
    await rejects(400, () => act(c.url, ada, { namespace: NS, action: "Request", subject: "x", args: missing }));
  });
  test("oversized body", () => rejects(413, () => post(url(), JSON.stringify({ command: "x".repeat(2 * 1024 * 1024) }))));
  test("malformed JSON", () => rejects(400, () => post(url(), "{not json")));
  test("an oversized chunked body (no Content-Length) is cut off as it streams: 413", async () => {
    const before = historyCount();
    const answer = await rawPost(url(), [Buffer.alloc(600 * 1024, 0x61), Buffer.alloc(600 * 1024, 0x61)], { "content-type": "application/json", "transfer-encoding": "chunked" });
    assert.equal(answer.status, 413);
    assert.equal(answer.headers["content-type"], "application/problem+json");
    assert.equal(JSON.parse(answer.body).type.endsWith("body-too-large"), true);
    assert.equal(historyCount(), before, "nothing recorded");
  });
  test("a 413 for a declared body reads the body's rest first: the client sees the problem document, and the connection carries its next command", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = await rawPost(url(), [Buffer.alloc(2 * 1024 * 1024, 0x61)], { "content-type": "application/json" }, agent);
      assert.equal(big.status, 413);
      assert.notEqual(big.headers.connection, "close");
      const jws = signed(ada, { namespace: NS, action: "Request", subject: "after-413", args: request });
      const next = await rawPost(url(), [Buffer.from(JSON.stringify({ command: jws }))], { "content-type": "application/json" }, agent);
      assert.equal(next.status, 200, next.body);
      assert.equal(next.reusedSocket, true, "the same connection carried the next request");
    } finally {
      agent.destroy();
    }
  });
  test("the action path's segments are percent-decoded and its query string ignored; other methods on it are not served", async () => {
    const jws = signed(ada, { namespace: NS, action: "Request", subject: "encoded-path", args: request });
    const encoded = await post(`${c.url}/v1/%61cme/acme%2Eshipping/actions/Request?trace=1`, JSON.stringify({ command: jws }));
    assert.equal(encoded.status, 200, JSON.stringify(encoded.body));
    assert.equal(encoded.body.receipt.subject, "encoded-path");
    const get = await fetch(url());
    assert.equal(get.status, 404);
    assert.equal(get.headers.get("content-type"), "application/problem+json");
  });
  test("a body neither JSON nor JOSE is 415", () => rejects(415, () => post(url(), "command", "text/plain")));
  test("a signer the tenant does not know, on an api authenticated action", () => rejects(403, () => act(c.url, generateKeyPair(), { namespace: NS, action: "Request", subject: "x", args: request })));
  test("a text over its length is a decided refusal: text_too_long, recorded", async () => {
    const before = historyCount();
    const a = await act(c.url, ada, { namespace: NS, action: "Request", subject: "long", args: { ...request, destination: "é".repeat(101) } });
    assert.equal(a.status, 422);
    assert.equal(a.body.receipt.reason.code, "text_too_long");
    assert.equal(historyCount(), before + 1);
  });
});

describe("authorization modes and exposure", () => {
  const CN = "acme.counter";
  test("api public + authorize anyone: a stranger may start; member-only and delegate-only actions refuse as unauthorized", async () => {
    const stranger = generateKeyPair();
    const started = await act(c.url, stranger, { namespace: CN, action: "Start", subject: "t1", args: { label: "mine" } });
    assert.equal(started.status, 200);
    assert.equal(started.body.receipt.state.started_by, stranger.did);
    assert.equal((await act(c.url, ada, { namespace: CN, action: "Increment", subject: "t1" })).status, 200);
    const reset = await act(c.url, ada, { namespace: CN, action: "Reset", subject: "t1" });
    assert.equal(reset.status, 422);
    assert.equal(reset.body.receipt.reason.code, "unauthorized");
    const byOwner = await act(c.url, owner, { namespace: CN, action: "Reset", subject: "t1" });
    assert.equal(byOwner.status, 200, "an owner holds every delegation");
    assert.equal(byOwner.body.receipt.state.count, 0);
  });
});
