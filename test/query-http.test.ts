/**
 * Issue 5, item 4 "Serving", end to end against a real tree: every stage answered by
 * `POST /v1/{tenant}/{namespace}/queries/{Query}` after real signed commands; parameters checked
 * against their declared types (a problem document listing each bad one); `api authenticated`
 * queries demand a bearer token, `api public` ones do not, unexposed ones are 404; and the
 * specification's example query over `std.invoices`, installed in every tenant.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { type KeyPair, signBearer, signCommand } from "../shared/identity/index.ts";
import { type Charter, cleanup, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { seed } from "./helpers/seed.ts";

const NS = "acme.stages";
let c: Charter;
let ada: KeyPair;
const times: Record<string, number> = {};

async function send(path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const r = await fetch(`${c.url}${path}`, init);
  return { status: r.status, body: await r.json() };
}

async function act(namespace: string, action: string, subject: string, args: Record<string, unknown>): Promise<any> {
  const jws = signCommand(ada, { tenant: "acme", namespace, action, subject, args, idempotencyKey: randomUUID(), issuedAt: new Date().toISOString() });
  const r = await send(`/v1/acme/${namespace}/actions/${action}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ command: jws }) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.receipt;
}

function query(namespace: string, name: string, params: unknown, bearer?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
  return send(`/v1/acme/${namespace}/queries/${name}`, { method: "POST", headers, body: JSON.stringify({ params }) });
}
const rows = async (name: string, params: unknown = {}) => {
  const r = await query(NS, name, params);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.rows as Record<string, unknown>[];
};

const put = (title: string, kind: string, units: number, tags: string[], nums: number[], embedding: number[]) => ({ title, kind, units, tags, nums, embedding });

before(async () => {
  const dataDir = tempDataDir();
  const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
  const seeded = await seed(dataDir, { contracts: [fixture("stages.charter.md"), fixture("payables.charter.md")] });
  ada = seeded.members[0] as KeyPair;
  c = await startCharter({ dataDir });
  times["i-1"] = Date.parse((await act(NS, "Put", "i-1", put("Red hammer", "tool", 3, ["a", "b"], [1, 2], [1, 0, 0]))).committedAt);
  await act(NS, "Put", "i-2", put("Blue nails box", "part", 10, [], [], [0, 1, 0]));
  await act(NS, "Put", "i-3", put("red nails", "part", 3, ["b"], [5], [1, 1, 0]));
  times.last = Date.parse((await act(NS, "Put", "i-1", put("Red hammer", "tool", 99, ["a", "b"], [1, 2], [1, 0, 0]))).committedAt);
  for (const [subject, parent] of [["a", "b"], ["b", "c"], ["c", "a"], ["d", "a"]] as const) await act(NS, "Link", subject, { label: subject.toUpperCase(), parent });
  await act("std.invoices", "Record", "inv-1", { reference: "R1", supplier: "Hammer & Co", number: "N1", amount_minor: 1250, currency: "EUR", issued_on: "2026-01-01", due_on: "2026-02-01", source: "mail", digest: "d1", note: "" });
});
after(async () => {
  await stopCharter(c);
  cleanup(c.dataDir);
});

describe("every stage over HTTP", () => {
  test("sort, summarize, explode, let", async () => {
    assert.deepEqual(await rows("Kinds"), [
      { subject: "i-2", kind: "part" },
      { subject: "i-3", kind: "part" },
      { subject: "i-1", kind: "tool" },
    ]);
    assert.deepEqual(await rows("Totals", { min: 0 }), [{ n: 3, units: 112, lo: 3, hi: 99, mean: 112 / 3 }]);
    assert.deepEqual(await rows("Totals", { min: 1000 }), [{ n: 0, units: 0, lo: null, hi: null, mean: null }]);
    assert.deepEqual(await rows("ByKind", { min: 0 }), [
      { kind: "part", n: 2, units: 13 },
      { kind: "tool", n: 1, units: 99 },
    ]);
    assert.deepEqual(await rows("Tags"), [
      { subject: "i-1", tag: "a" },
      { subject: "i-1", tag: "b" },
      { subject: "i-3", tag: "b" },
    ]);
    assert.deepEqual(await rows("Doubles", { over: 6 }), [
      { subject: "i-1", double: 198 },
      { subject: "i-2", double: 20 },
    ]);
    assert.deepEqual(await rows("None"), []);
  });

  test("search and nearest", async () => {
    assert.deepEqual((await rows("Search", { text: "red" })).map((r) => r.subject), ["i-1", "i-3"]);
    assert.deepEqual(await rows("NearL2", { v: [1, 0, 0], k: 2 }), [
      { subject: "i-1", distance: 0 },
      { subject: "i-3", distance: 1 },
    ]);
  });

  test("asof before the first record, at the first, and latest", async () => {
    assert.deepEqual(await rows("At", { t: (times["i-1"] as number) - 1 }), []);
    assert.deepEqual(await rows("At", { t: times["i-1"] }), [{ id: "i-1", units: 3, kind: "tool" }]);
    assert.deepEqual((await rows("At", { t: times.last }))[0], { id: "i-1", units: 99, kind: "tool" });
    assert.deepEqual((await rows("Newest"))[0], { id: "i-1", units: 99, kind: "tool" });
  });

  test("traverse through a cycle and shortest chains", async () => {
    assert.deepEqual((await rows("Reach", { start: "d" })).map((r) => r.subject), ["a", "b", "c"]);
    assert.deepEqual((await rows("ChainFrom", { start: "d", target: "c" })).map((r) => r.subject), ["d", "a", "b", "c"]);
    assert.deepEqual(await rows("ChainFrom", { start: "d", target: "nobody" }), []);
  });

  test("bad parameters: one problem document listing each", async () => {
    const r = await query(NS, "NearL2", { v: [1, "x", 0], k: -1, extra: 1 });
    assert.equal(r.status, 400);
    assert.equal(r.body.status, 400);
    assert.deepEqual(r.body.errors, [
      { pointer: "#/params/v", detail: "must be a list of 3 numbers" },
      { pointer: "#/params/k", detail: "is a take/drop count and must not be negative" },
      { pointer: "#/params/extra", detail: "is not a parameter of this query" },
    ]);
  });

  test("an unexposed query is 404", async () => {
    assert.equal((await query(NS, "Hidden", {})).status, 404);
  });
});

describe("std.invoices", () => {
  test("the specification's example query: authenticated, over the standard library", async () => {
    assert.equal((await query("acme.payables", "OpenInvoices", { owner: ada.did, after: "" })).status, 401);
    const bearer = signBearer(ada, { tenant: "acme", namespace: "acme.payables", now: Date.now() });
    const r = await query("acme.payables", "OpenInvoices", { owner: ada.did, after: "" }, bearer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.rows, [
      { id: "inv-1", reference: "R1", supplier: "Hammer & Co", number: "N1", amount_minor: 1250, currency: "EUR", issued_on: "2026-01-01", due_on: "2026-02-01", status: "Open", source: "mail", digest: "d1", note: "", payment_reference: "" },
    ]);
    const own = signBearer(ada, { tenant: "acme", namespace: "std.invoices", now: Date.now() });
    const found = await query("std.invoices", "Find", { text: "hammer" }, own);
    assert.deepEqual(found.body.rows.map((x: { id: string }) => x.id), ["inv-1"]);
  });
});
