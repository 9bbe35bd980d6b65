/**
 * The person's dashboards on a real `charter node`: `/api/artifacts` creates one (its panels are
 * declared queries of the personal tenant), refreshes it by running them and recording the rows
 * with a command signed as the person, schedules it, and the node's scheduler keeps the schedule —
 * also across a restart, since when a dashboard is due lives in `std.dashboards`. A schedule's
 * minute is 600 ms here (`CHARTER_DASHBOARD_MINUTE_MS`), so the shortest schedule is 3 s.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { ApiClient, createAccount, printedSetupCode } from "./helpers/api-client.ts";
import { type Charter, cleanup, sleep, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";
import { invoiceArgs } from "./helpers/invoice-args.ts";

const MINUTE_MS = 600;
const ENV = { CHARTER_DASHBOARD_MINUTE_MS: String(MINUTE_MS) };

const invoice = (n: number, note = "") => invoiceArgs(n, { note });

const DUE_PANEL = { namespace: "std.invoices", query: "Due", params: { on: "2026-12-31" } };

describe("dashboards: /api/artifacts and the node's refresh schedule", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";
  let did = "";
  let dashboard = "";

  /** Records and approves invoice `n` through `/api/data/act` (approved invoices are what `Due` lists). */
  async function approvedInvoice(n: number, note = ""): Promise<void> {
    const recorded = await api.call("POST", "/api/data/act", { cookie, body: { namespace: "std.invoices", action: "Record", subject: `inv-${n}`, args: invoice(n, note) } });
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
    const approved = await api.call("POST", "/api/data/act", { cookie, body: { namespace: "std.invoices", action: "Approve", subject: `inv-${n}`, args: {} } });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
  }

  /** The dashboard's history: action, outcome and signer of each command, oldest first. */
  function history(subject: string): { action: string; outcome: string; signer: string; committed_at: number }[] {
    const db = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
    try {
      return db
        .prepare("SELECT action, outcome, signer, committed_at FROM history WHERE namespace = 'std.dashboards' AND subject = ? ORDER BY seq")
        .all(subject)
        .map((r) => ({ ...(r as { action: string; outcome: string; signer: string }), committed_at: Number(r.committed_at) }));
    } finally {
      db.close();
    }
  }

  before(async () => {
    node = await startCharter({ edition: "node", env: ENV });
    api = new ApiClient(node);
    cookie = (await createAccount(api, printedSetupCode(node))).cookie;
    did = (await api.call("GET", "/api/bootstrap", { cookie })).body.person.did;
    await waitFor("std.dashboards in the personal tenant", async () => {
      const boot = await api.call("GET", "/api/bootstrap", { cookie });
      return (boot.body.tenant.contracts as { namespace: string }[]).some((c) => c.namespace === "std.dashboards") ? true : undefined;
    });
  });
  after(async () => {
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("create → refresh → read: the rows of a real declared query, recorded by a command signed as the person", async () => {
    await approvedInvoice(1);
    const created = await api.call("POST", "/api/artifacts", { cookie, body: { title: "Bills to pay", panels: [DUE_PANEL] } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    dashboard = created.body.id;
    assert.match(dashboard, /^d-[A-Za-z0-9_-]{20}$/);
    assert.equal(created.body.title, "Bills to pay");
    assert.deepEqual(created.body.panels, [DUE_PANEL]);
    assert.equal(created.body.result, null, "not refreshed yet");
    assert.equal(created.body.refreshedAt, null);
    assert.deepEqual(created.body.schedule, { everyMinutes: 0, nextAt: null });
    assert.equal(created.body.creator, did);
    assert.equal(created.body.receipt.outcome, "accepted");
    assert.equal(created.body.receipt.signer, did);

    const read = await api.call("GET", `/api/artifacts/${dashboard}`, { cookie });
    assert.equal(read.status, 200);
    const { receipt: _receipt, jws: _jws, ...createdView } = created.body;
    assert.deepEqual(read.body, createdView, "the read is what the create answered");

    const before = Date.now();
    const refreshed = await api.call("POST", `/api/artifacts/${dashboard}/refresh`, { cookie });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.equal(refreshed.body.receipt.action, "RecordRefresh");
    assert.equal(refreshed.body.receipt.signer, did);
    const again = await api.call("GET", `/api/artifacts/${dashboard}`, { cookie });
    assert.equal(again.body.result.panels.length, 1);
    const [panel] = again.body.result.panels;
    assert.equal(panel.truncated, false);
    assert.deepEqual(
      panel.rows.map((r: { id: string; status: string; amount_minor: number }) => [r.id, r.status, r.amount_minor]),
      [["inv-1", "Approved", 1001]],
    );
    assert.ok(Date.parse(again.body.refreshedAt) >= before - 1000, again.body.refreshedAt);
    assert.equal(again.body.error, null);
  });

  it("a second refresh shows the new rows; history has every command, signed by the person", async () => {
    await approvedInvoice(2);
    const refreshed = await api.call("POST", `/api/artifacts/${dashboard}/refresh`, { cookie, body: {} });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.deepEqual(
      refreshed.body.result.panels[0].rows.map((r: { id: string }) => r.id),
      ["inv-1", "inv-2"],
    );
    const read = await api.call("GET", `/api/artifacts/${dashboard}`, { cookie });
    assert.deepEqual(read.body.result, refreshed.body.result);
    assert.deepEqual(
      history(dashboard).map((h) => [h.action, h.outcome, h.signer]),
      [
        ["Create", "accepted", did],
        ["RecordRefresh", "accepted", did],
        ["RecordRefresh", "accepted", did],
      ],
    );
  });

  it("schedule: the node refreshes the dashboard when it is due; the contract keeps the minimum; 0 turns it off", async () => {
    const before = (await api.call("GET", `/api/artifacts/${dashboard}`, { cookie })).body.refreshedAt as string;
    const asked = Date.now();
    const scheduled = await api.call("POST", `/api/artifacts/${dashboard}/schedule`, { cookie, body: { everyMinutes: 5 } });
    assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
    assert.equal(scheduled.body.schedule.everyMinutes, 5);
    const nextAt = Date.parse(scheduled.body.schedule.nextAt);
    assert.ok(nextAt >= asked + 5 * MINUTE_MS - 1000 && nextAt <= Date.now() + 5 * MINUTE_MS + 1000, scheduled.body.schedule.nextAt);
    assert.equal(scheduled.body.refreshedAt, before, "scheduling does not refresh");

    const refreshed = await waitFor(
      "the scheduled refresh",
      async () => {
        const read = await api.call("GET", `/api/artifacts/${dashboard}`, { cookie });
        return read.body.refreshedAt !== before ? read.body : undefined;
      },
      15_000,
    );
    assert.ok(Date.parse(refreshed.refreshedAt) >= nextAt, `${refreshed.refreshedAt} is not before ${scheduled.body.schedule.nextAt}`);
    assert.equal(Date.parse(refreshed.schedule.nextAt), Date.parse(refreshed.refreshedAt) + 5 * MINUTE_MS, "the next turn moved on");
    const last = history(dashboard).at(-1);
    assert.deepEqual([last?.action, last?.signer], ["RecordRefresh", did], "a scheduled refresh is signed as the person too");

    const tooOften = await api.call("POST", `/api/artifacts/${dashboard}/schedule`, { cookie, body: { everyMinutes: 3 } });
    assert.equal(tooOften.status, 422, JSON.stringify(tooOften.body));
    assert.deepEqual([tooOften.body.code, tooOften.body.reason, tooOften.body.receipt.outcome], ["refused", "condition_failed", "refused"]);
    assert.match(tooOften.body.receipt.reason.condition, /every_minutes >= 5/);
    const notANumber = await api.call("POST", `/api/artifacts/${dashboard}/schedule`, { cookie, body: { everyMinutes: "5" } });
    assert.deepEqual([notANumber.status, notANumber.body.code, notANumber.body.errors[0].pointer], [400, "malformed-body", "#/everyMinutes"]);
    const unknownField = await api.call("POST", `/api/artifacts/${dashboard}/schedule`, { cookie, body: { everyMinutes: 5, every: 5 } });
    assert.deepEqual([unknownField.status, unknownField.body.errors[0].pointer], [400, "#/every"]);
    assert.equal((await api.call("GET", `/api/artifacts/${dashboard}`, { cookie })).body.schedule.everyMinutes, 5, "unchanged by the refusals");

    const off = await api.call("POST", `/api/artifacts/${dashboard}/schedule`, { cookie, body: { everyMinutes: 0 } });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.deepEqual(off.body.schedule, { everyMinutes: 0, nextAt: null });
    const count = history(dashboard).length;
    await sleep(5 * MINUTE_MS + 500);
    assert.equal(history(dashboard).length, count, "no refresh once the schedule is off");
  });

  it("a result over the field's length keeps the first rows that fit and says so", async () => {
    const note = "n".repeat(1000);
    for (let n = 100; n < 160; n++) await approvedInvoice(n, note);
    const created = await api.call("POST", "/api/artifacts", {
      cookie,
      body: { title: "Everything due", panels: [DUE_PANEL, { namespace: "std.invoices", query: "Find", params: { text: "INV-1" } }] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const refreshed = await api.call("POST", `/api/artifacts/${created.body.id}/refresh`, { cookie });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    const [due, found] = refreshed.body.result.panels;
    assert.equal(due.truncated, true);
    assert.ok(due.rows.length > 10 && due.rows.length < 62, `${due.rows.length} rows`);
    assert.deepEqual(
      due.rows.map((r: { id: string }) => r.id),
      ["inv-1", "inv-2", ...Array.from({ length: 60 }, (_, i) => `inv-${100 + i}`)].sort().slice(0, due.rows.length),
      "the first rows, in the query's order (by due date, then subject)",
    );
    assert.ok(found.rows.length > 0, "the other panel keeps its share");
    const db = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
    try {
      const stored = db.prepare("SELECT args FROM history WHERE namespace = 'std.dashboards' AND subject = ? AND action = 'RecordRefresh'").get(created.body.id) as { args: string };
      const length = [...(JSON.parse(stored.args) as { result: string }).result].length;
      assert.ok(length <= 65_536 && length > 60_000, `${length} characters stored`);
    } finally {
      db.close();
    }
  });

  it("bad panels and bodies are 400 naming the field; what the contract refuses is 422 with the reason; nothing is created", async () => {
    const count = () => {
      const db = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
      try {
        return Number((db.prepare("SELECT count(*) AS n FROM history WHERE namespace = 'std.dashboards' AND action = 'Create' AND outcome = 'accepted'").get() as { n: bigint }).n);
      } finally {
        db.close();
      }
    };
    const created = count();
    const cases: [unknown, number, string, string[]][] = [
      [{ title: "x", panels: [{ namespace: "std.invoices", query: "Nope", params: {} }] }, 400, "bad-panel", ["#/panels/0/query"]],
      [{ title: "x", panels: [DUE_PANEL, { namespace: "std.nothing", query: "Due", params: {} }] }, 400, "bad-panel", ["#/panels/1/namespace"]],
      [{ title: "x", panels: [{ namespace: "std.invoices", query: "Due", params: { on: "soon", extra: 1 } }] }, 400, "bad-panel", ["#/panels/0/params/on", "#/panels/0/params/extra"]],
      [{ title: "x", panels: [{ namespace: "std.invoices", query: "Due" }] }, 400, "bad-panel", ["#/panels/0/params/on"]],
      [{ title: 5, panels: "Due", everyMinutes: 1.5 }, 400, "malformed-body", ["#/title", "#/panels", "#/everyMinutes"]],
      [{ title: "x", panels: [{ namespace: "std.invoices", query: 7, params: [], colour: "red" }] }, 400, "malformed-body", ["#/panels/0/colour", "#/panels/0/query", "#/panels/0/params"]],
      [{ title: "x", panels: [DUE_PANEL], owner: "someone" }, 400, "malformed-body", ["#/owner"]],
    ];
    for (const [body, status, code, pointers] of cases) {
      const answer = await api.call("POST", "/api/artifacts", { cookie, body });
      assert.equal(answer.status, status, `${JSON.stringify(body)} → ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.code, code, JSON.stringify(answer.body));
      assert.deepEqual(
        answer.body.errors.map((e: { pointer: string }) => e.pointer),
        pointers,
      );
      assert.equal(answer.headers.get("content-type"), "application/problem+json");
    }
    const refusals: [unknown, string][] = [
      [{ title: "t".repeat(201), panels: [DUE_PANEL] }, "text_too_long"],
      [{ title: "x", panels: Array.from({ length: 9 }, () => DUE_PANEL) }, "list_full"],
      [{ title: "x", panels: [] }, "condition_failed"],
      [{ title: "", panels: [DUE_PANEL] }, "condition_failed"],
      [{ title: "x", panels: [DUE_PANEL], everyMinutes: 4 }, "condition_failed"],
      [{ title: "x", panels: [{ ...DUE_PANEL, params: { on: "2026-12-31" }, namespace: "std.invoices" }], everyMinutes: -5 }, "condition_failed"],
    ];
    for (const [body, reason] of refusals) {
      const answer = await api.call("POST", "/api/artifacts", { cookie, body });
      assert.equal(answer.status, 422, `${JSON.stringify(body).slice(0, 200)} → ${JSON.stringify(answer.body)}`);
      assert.deepEqual([answer.body.code, answer.body.reason, answer.body.receipt.outcome, answer.body.receipt.signer], ["refused", reason, "refused", did]);
      assert.equal(typeof answer.body.jws, "string");
    }
    assert.equal(count(), created, "nothing was created");
  });

  it("a panel whose query fails at refresh: 422 naming it, the failure recorded as the person and shown by the dashboard", async () => {
    // The contract takes any panel; the route checks them, but another writer (the assistant) may not.
    const args = { title: "Broken", panel_namespaces: ["std.invoices", "std.invoices"], panel_queries: ["Due", "Gone"], panel_params: ['{"on":"2026-12-31"}', "{}"], every_minutes: 0, next_at: 0 };
    const made = await api.call("POST", "/api/data/act", { cookie, body: { namespace: "std.dashboards", action: "Create", subject: "d-broken", args } });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const failed = await api.call("POST", "/api/artifacts/d-broken/refresh", { cookie });
    assert.equal(failed.status, 422, JSON.stringify(failed.body));
    assert.equal(failed.body.code, "query-failed");
    assert.match(failed.body.detail, /^panel 1 \(std\.invoices\.Gone\): /);
    assert.deepEqual(failed.body.errors.map((e: { pointer: string }) => e.pointer), ["#/panels/1"]);
    assert.deepEqual([failed.body.receipt.action, failed.body.receipt.signer], ["RecordFailure", did]);
    const read = await api.call("GET", "/api/artifacts/d-broken", { cookie });
    assert.equal(read.body.result, null, "no result was recorded");
    assert.equal(read.body.error.message, failed.body.detail);
    assert.equal(typeof read.body.error.at, "string");
  });

  it("an unknown or deleted id is 404; no session is 401 and another origin 403", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/artifacts/d-nope", undefined],
      ["POST", "/api/artifacts/d-nope/refresh", {}],
      ["POST", "/api/artifacts/d-nope/schedule", { everyMinutes: 5 }],
      ["DELETE", "/api/artifacts/d-nope", undefined],
      ["GET", `/api/artifacts/${"x".repeat(500)}`, undefined],
    ] as const) {
      const answer = await api.call(method, path, { cookie, body });
      assert.deepEqual([answer.status, answer.body.code], [404, "not-found"], `${method} ${path}`);
    }
    const created = await api.call("POST", "/api/artifacts", { cookie, body: { title: "Short-lived", panels: [DUE_PANEL], everyMinutes: 60 } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const deleted = await api.call("DELETE", `/api/artifacts/${created.body.id}`, { cookie });
    assert.equal(deleted.status, 204);
    assert.equal((await api.call("GET", `/api/artifacts/${created.body.id}`, { cookie })).status, 404);
    assert.equal((await api.call("POST", `/api/artifacts/${created.body.id}/refresh`, { cookie })).status, 404);

    const anonymous = await api.call("GET", `/api/artifacts/${dashboard}`);
    assert.deepEqual([anonymous.status, anonymous.body.code], [401, "unauthenticated"]);
    const elsewhere = await api.call("POST", `/api/artifacts/${dashboard}/refresh`, { cookie, origin: "http://evil.example" });
    assert.deepEqual([elsewhere.status, elsewhere.body.code], [403, "bad-origin"]);
  });

  it("a schedule is durable: a refresh that came due while the node was down runs once after the restart", async () => {
    const created = await api.call("POST", "/api/artifacts", { cookie, body: { title: "While away", panels: [DUE_PANEL], everyMinutes: 5 } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id as string;
    const dueAt = Date.parse(created.body.schedule.nextAt);
    await stopCharter(node);
    assert.deepEqual(
      history(id).map((h) => h.action),
      ["Create"],
      "stopped before it came due",
    );
    // Down until well after it came due.
    await sleep(Math.max(0, dueAt - Date.now()) + 500);

    const restartedAt = Date.now();
    node = await startCharter({ edition: "node", dataDir: node.dataDir, env: ENV });
    api = new ApiClient(node);
    const read = await waitFor(
      "the missed refresh after the restart",
      async () => {
        const answer = await api.call("GET", `/api/artifacts/${id}`, { cookie });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return answer.body.refreshedAt === null ? undefined : answer.body;
      },
      15_000,
    );
    const refreshes = history(id).filter((h) => h.action === "RecordRefresh");
    assert.equal(refreshes.length, 1, "the missed turn runs once");
    assert.deepEqual([refreshes[0]?.outcome, refreshes[0]?.signer], ["accepted", did]);
    assert.ok((refreshes[0]?.committed_at ?? 0) >= restartedAt, "after the restart");
    assert.equal(read.result.panels[0].rows[0].id, "inv-1", "the rows of the query, run after the restart");
    assert.equal(Date.parse(read.schedule.nextAt), Date.parse(read.refreshedAt) + 5 * MINUTE_MS, "and the schedule goes on from there");
  });
});
