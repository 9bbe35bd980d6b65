/**
 * The person's tasks and agenda on a real `charter node`: every task route is a command signed as
 * the person and decided by `std.tasks` (history names the person, `/api/events` carries the commit),
 * its refusals are `422` with the receipt and leave the task as it was, bad input is `400` naming
 * each field, an unknown id `404`, another person's tenant `403`; completing a repeating task moves
 * its due date by its rule; the agenda groups by day in the time zone set in the account settings.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import type { Channel } from "../shared/channel/channel.ts";
import { connectChannel } from "../shared/channel/socket.ts";
import { generateKeyPair } from "../shared/identity/index.ts";
import type { AdminRequests } from "../shared/protocol/admin.ts";
import { ApiClient, createAccount, printedSetupCode } from "./helpers/api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";

/** The local date of `ms` in `zone`, as `YYYY-MM-DD`. */
const dateIn = (zone: string, ms = Date.now()) => new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(ms);
/** `date` moved by `days`. */
const plusDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe("/api/tasks and /api/agenda", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";
  let did = "";
  let admin: Channel<AdminRequests, Record<string, never>>;

  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { cookie, ...(body === undefined ? {} : { body }) });
  /** Creates a task; fails unless the answer is 201. */
  const create = async (body: Record<string, unknown>) => {
    const made = await call("POST", "/api/tasks", body);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return made.body;
  };
  const task = async (id: string) => (await call("GET", `/api/tasks/${id}`)).body;
  const complete = (id: string, body?: unknown) => call("POST", `/api/tasks/${id}/complete`, body);

  before(async () => {
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
    cookie = (await createAccount(api, printedSetupCode(node))).cookie;
    did = (await call("GET", "/api/bootstrap")).body.person.did;
    await waitFor("std.tasks in the personal tenant", async () => {
      const boot = await call("GET", "/api/bootstrap");
      return (boot.body.tenant.contracts as { namespace: string }[]).some((c) => c.namespace === "std.tasks") ? true : undefined;
    });
    admin = await connectChannel<AdminRequests, Record<string, never>>(join(node.dataDir, "admin.sock"));
  });
  after(async () => {
    admin?.close();
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("the time zone is an account setting: the machine's at first, an IANA name Intl knows, else 400", async () => {
    assert.equal((await call("GET", "/api/account/settings")).body.timeZone, Intl.DateTimeFormat().resolvedOptions().timeZone);
    for (const timeZone of ["Mars/Olympus_Mons", "+09:00", 9]) {
      const bad = await call("PUT", "/api/account/settings", { timeZone });
      assert.deepEqual([bad.status, bad.body.code], [400, "bad-settings"], JSON.stringify(timeZone));
    }
    const set = await call("PUT", "/api/account/settings", { timeZone: "asia/tokyo" });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.timeZone, "Asia/Tokyo");
    assert.equal((await call("GET", "/api/account/settings")).body.timeZone, "Asia/Tokyo");
  });

  it("POST /api/tasks is a command signed by the person: 201 with the task and its receipt, in history and on /api/events", async () => {
    const ws = new WebSocket(`${node.url.replace(/^http/, "ws")}/api/events`, { headers: { cookie, origin: api.origin } });
    const frames: { kind: string; namespace?: string; subject?: string; action?: string; outcome?: string; seq?: number }[] = [];
    ws.on("message", (data) => frames.push(JSON.parse(String(data))));
    await once(ws, "open");
    try {
      const made = await create({ title: "Renew the passport", notes: "photos first", due: "2030-06-01", priority: 2, tags: ["admin", "travel"], links: ["std.invoices/Invoice/inv-7"] });
      assert.match(made.id, /^task-[0-9a-z]{9}-[0-9a-f]{12}$/);
      assert.deepEqual(
        { ...made, id: undefined, receipt: undefined, jws: undefined, createdAt: undefined },
        {
          id: undefined,
          title: "Renew the passport",
          notes: "photos first",
          status: "open",
          due: "2030-06-01",
          repeat: null,
          priority: 2,
          tags: ["admin", "travel"],
          links: ["std.invoices/Invoice/inv-7"],
          completions: 0,
          lastCompletedOn: null,
          completedAt: null,
          createdBy: did,
          createdAt: undefined,
          receipt: undefined,
          jws: undefined,
        },
      );
      assert.match(made.createdAt, /^\d{4}-\d{2}-\d{2}T/);
      assert.deepEqual([made.receipt.outcome, made.receipt.signer, made.receipt.namespace, made.receipt.action, made.receipt.subject], ["accepted", did, "std.tasks", "Create", made.id]);
      assert.equal(typeof made.jws, "string");
      const { receipt: _r, jws: _j, ...view } = made;
      assert.deepEqual(await task(made.id), view, "GET /api/tasks/{id} reads what the command wrote");

      await waitFor("the commit frame of the task", () => frames.find((f) => f.kind === "commit" && f.subject === made.id));
      const frame = frames.find((f) => f.kind === "commit" && f.subject === made.id);
      assert.deepEqual([frame?.namespace, frame?.action, frame?.outcome, frame?.seq], ["std.tasks", "Create", "accepted", made.receipt.seq]);

      const done = await complete(made.id);
      assert.equal(done.status, 200, JSON.stringify(done.body));
      const db = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
      try {
        const rows = db.prepare("SELECT action, signer, outcome FROM history WHERE namespace = 'std.tasks' AND subject = ? ORDER BY seq").all(made.id);
        assert.deepEqual(rows.map((r) => ({ ...r })), [
          { action: "Create", signer: did, outcome: "accepted" },
          { action: "Complete", signer: did, outcome: "accepted" },
        ]);
      } finally {
        db.close();
      }
    } finally {
      ws.close();
    }
  });

  it("GET /api/tasks lists open, done or all tasks in creation order, paged by after and limit", async () => {
    const ids: string[] = [];
    for (const title of ["list one", "list two", "list three"]) ids.push((await create({ title })).id);
    const all = async (status: string) => {
      const seen: string[] = [];
      let next: string | null = null;
      do {
        const page = await call("GET", `/api/tasks?status=${status}&limit=2${next === null ? "" : `&after=${next}`}`);
        assert.equal(page.status, 200, JSON.stringify(page.body));
        assert.ok(page.body.items.length <= 2);
        seen.push(...page.body.items.map((t: { id: string }) => t.id));
        next = page.body.next;
      } while (next !== null);
      return seen;
    };
    const open = await all("open");
    assert.deepEqual(open.slice(-3), ids, "newest last: ids sort as tasks were made");
    assert.equal((await complete(ids[1] as string)).status, 200);
    assert.ok(!(await all("open")).includes(ids[1] as string));
    assert.ok((await all("done")).includes(ids[1] as string));
    assert.deepEqual((await all("all")).slice(-3), ids);
    const byDefault = await call("GET", "/api/tasks");
    assert.ok(byDefault.body.items.every((t: { status: string }) => t.status === "open"), "open by default");
    for (const query of ["status=later", "limit=0", "limit=500", "after=!!"]) {
      const bad = await call("GET", `/api/tasks?${query}`);
      assert.deepEqual([bad.status, bad.body.code], [400, "bad-parameters"], query);
    }
  });

  it("the contract decides: completing a done task is 422 with the reason and the receipt, and changes nothing; reopen opens it", async () => {
    const { id } = await create({ title: "Water the plants" });
    const first = await complete(id);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual([first.body.status, first.body.completions, first.body.receipt.action], ["done", 1, "Complete"]);
    assert.match(first.body.completedAt, /^\d{4}-\d{2}-\d{2}T/);
    const before = await task(id);

    const again = await complete(id);
    assert.equal(again.status, 422, JSON.stringify(again.body));
    assert.equal(again.headers.get("content-type"), "application/problem+json");
    assert.deepEqual([again.body.code, again.body.reason], ["refused", "condition_failed"]);
    assert.equal(again.body.receipt.outcome, "refused");
    assert.equal(again.body.receipt.reason.condition, "state.status == Open");
    assert.equal(typeof again.body.jws, "string");
    assert.deepEqual(await task(id), before, "state unchanged");

    const reopened = await call("POST", `/api/tasks/${id}/reopen`);
    assert.equal(reopened.status, 200, JSON.stringify(reopened.body));
    assert.deepEqual([reopened.body.status, reopened.body.completions], ["open", 1]);
    const twice = await call("POST", `/api/tasks/${id}/reopen`);
    assert.deepEqual([twice.status, twice.body.reason, twice.body.receipt.reason.condition], [422, "condition_failed", "state.status == Done"]);
  });

  it("an unknown id is 404 on every task route; a tenant the person is not a member of is 403, an unknown one 404", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/tasks/task-nothing", undefined],
      ["PATCH", "/api/tasks/task-nothing", { title: "x" }],
      ["POST", "/api/tasks/task-nothing/complete", {}],
      ["POST", "/api/tasks/task-nothing/reopen", {}],
      ["POST", "/api/tasks/task-nothing/reschedule", { due: "2030-01-01" }],
      ["POST", "/api/tasks/not%20a%20subject/complete", {}],
    ] as const) {
      const answer = await call(method, path, body);
      assert.deepEqual([answer.status, answer.body.code], [404, "not-found"], `${method} ${path}`);
    }
    const stranger = generateKeyPair();
    assert.ok((await admin.request("tenant-create", { handle: "globex", owners: [stranger.did], by: null })).ok);
    for (const [method, path, body] of [
      ["GET", "/api/tasks?tenant=globex", undefined],
      ["POST", "/api/tasks?tenant=globex", { title: "not mine" }],
      ["GET", "/api/tasks/task-1?tenant=globex", undefined],
      ["POST", "/api/tasks/task-1/complete?tenant=globex", {}],
      ["POST", "/api/tasks/task-1/reschedule?tenant=globex", { due: null }],
      ["GET", "/api/agenda?tenant=globex", undefined],
    ] as const) {
      const answer = await call(method, path, body);
      assert.deepEqual([answer.status, answer.body.code], [403, "not-member"], `${method} ${path}`);
    }
    const nowhere = await call("GET", "/api/tasks?tenant=no-such-tenant");
    assert.equal(nowhere.status, 404);
  });

  it("wrong types are 400 naming each field, and nothing is written", async () => {
    const count = async () => (await call("GET", "/api/tasks?status=all&limit=200")).body.items.length;
    const before = await count();
    const bad = await call("POST", "/api/tasks", { title: 5, notes: [], due: "next tuesday", repeat: 7, priority: "high", tags: [1, "ok", {}], links: ["not a link"] });
    assert.deepEqual([bad.status, bad.body.code], [400, "malformed-body"]);
    assert.deepEqual(
      bad.body.errors.map((e: { pointer: string }) => e.pointer),
      ["#/title", "#/notes", "#/due", "#/repeat", "#/priority", "#/tags/0", "#/tags/2", "#/links/0"],
    );
    const cases: [unknown, string, RegExp][] = [
      [{}, "#/title", /title is required/],
      [{ title: "x", due: "2030-02-30" }, "#/due", /RFC 3339/],
      [{ title: "x", due: "2030-02-03T10:00:00" }, "#/due", /offset/],
      [{ title: "x", priority: 1.5 }, "#/priority", /whole number/],
      [{ title: "x", repeat: "FREQ=DAILY;COUNT=3" }, "#/repeat", /COUNT is not supported/],
      [{ title: "x", repeat: "FREQ=DAILY;INTERVAL=7;BYDAY=MO", due: "2030-01-03" }, "#/repeat", /no occurrence/],
      [{ title: "x", colour: "red" }, "#/colour", /unknown field/],
    ];
    for (const [body, pointer, detail] of cases) {
      const answer = await call("POST", "/api/tasks", body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.errors[0].pointer, pointer, JSON.stringify(body));
      assert.match(answer.body.errors[0].detail, detail);
    }
    const { id } = await create({ title: "typed" });
    const reschedule = await call("POST", `/api/tasks/${id}/reschedule`, {});
    assert.deepEqual([reschedule.status, reschedule.body.errors[0].pointer], [400, "#/due"]);
    const stop = await complete(id, { stop: "yes" });
    assert.deepEqual([stop.status, stop.body.errors[0].pointer], [400, "#/stop"]);
    const patch = await call("PATCH", `/api/tasks/${id}`, { tags: "one" });
    assert.deepEqual([patch.status, patch.body.errors[0].pointer], [400, "#/tags"]);
    assert.equal(await count(), before + 1, "only the good one was made");
  });

  it("lengths, counts and ranges are the contract's: 422 text_too_long, list_full, condition_failed; nothing is made", async () => {
    const count = async () => (await call("GET", "/api/tasks?status=all&limit=200")).body.items.length;
    const before = await count();
    const cases: [Record<string, unknown>, string][] = [
      [{ title: "x".repeat(201) }, "text_too_long"],
      [{ title: "ok", notes: "n".repeat(4001) }, "text_too_long"],
      [{ title: "ok", tags: ["t".repeat(41)] }, "text_too_long"],
      [{ title: "ok", tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, "list_full"],
      [{ title: "ok", priority: 7 }, "condition_failed"],
      [{ title: "" }, "condition_failed"],
    ];
    for (const [body, reason] of cases) {
      const answer = await call("POST", "/api/tasks", body);
      assert.equal(answer.status, 422, JSON.stringify(answer.body).slice(0, 300));
      assert.deepEqual([answer.body.code, answer.body.reason, answer.body.receipt.outcome], ["refused", reason, "refused"]);
    }
    assert.equal(await count(), before, "a refused command creates no task");
    const ok = await create({ title: "x".repeat(200) });
    assert.equal(ok.title.length, 200, "200 characters are allowed");
  });

  it("PATCH changes what a task says; reschedule moves its due date, or removes it", async () => {
    const { id } = await create({ title: "Draft", due: "2030-05-01" });
    const patched = await call("PATCH", `/api/tasks/${id}`, { title: "Final", priority: 3, tags: ["x"] });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual([patched.body.title, patched.body.priority, patched.body.tags, patched.body.due, patched.body.receipt.action], ["Final", 3, ["x"], "2030-05-01", "Update"]);
    const moved = await call("POST", `/api/tasks/${id}/reschedule`, { due: "2030-05-03T23:30:00Z" });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.due, "2030-05-04T08:30:00+09:00", "the time shown in the person's zone (Asia/Tokyo)");
    const cleared = await call("POST", `/api/tasks/${id}/reschedule`, { due: null });
    assert.equal(cleared.body.due, null);
    assert.equal((await complete(id)).status, 200);
    const late = await call("POST", `/api/tasks/${id}/reschedule`, { due: "2030-06-01" });
    assert.deepEqual([late.status, late.body.reason], [422, "condition_failed"], "a done task is not rescheduled");
  });

  it("completing a repeating task moves its due date by its rule and keeps it open; month ends take the month's last day", async () => {
    const moves = async (repeat: string, due: string, times: number) => {
      const made = await create({ title: `repeat ${repeat}`, due, repeat });
      const seen: string[] = [];
      for (let i = 0; i < times; i++) {
        const done = await complete(made.id);
        assert.equal(done.status, 200, JSON.stringify(done.body));
        assert.deepEqual([done.body.status, done.body.completions, done.body.receipt.action], ["open", i + 1, "CompleteOccurrence"]);
        seen.push(done.body.due);
      }
      return { id: made.id as string, repeat: made.repeat as string, seen };
    };
    assert.deepEqual((await moves("daily", "2031-01-31", 2)).seen, ["2031-02-01", "2031-02-02"]);
    assert.deepEqual((await moves("weekly", "2031-01-31", 2)).seen, ["2031-02-07", "2031-02-14"]);
    const monthly = await moves("monthly", "2031-01-31", 3);
    assert.equal(monthly.repeat, "FREQ=MONTHLY;INTERVAL=1");
    assert.deepEqual(monthly.seen, ["2031-02-28", "2031-03-31", "2031-04-30"], "Jan 31 monthly: Feb 28, then back to the 31st");
    assert.deepEqual((await moves("monthly", "2032-01-31", 1)).seen, ["2032-02-29"], "a leap year's February");
    // 2031-01-06 is a Monday: Mondays and Wednesdays of every other week.
    const rrule = await moves("rrule:freq=weekly;interval=2;byday=mo,we", "2031-01-06", 3);
    assert.equal(rrule.repeat, "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE");
    assert.deepEqual(rrule.seen, ["2031-01-08", "2031-01-20", "2031-01-22"]);
    // A time of day is kept, in the person's zone.
    assert.deepEqual((await moves("daily", "2031-03-01T07:15:00+09:00", 1)).seen, ["2031-03-02T07:15:00+09:00"]);

    // An overdue repeating task moves to its first occurrence after today.
    const today = dateIn("Asia/Tokyo");
    const overdue = await moves("daily", "2020-01-01", 1);
    assert.deepEqual(overdue.seen, [plusDays(today, 1)]);

    const stopped = await complete(monthly.id, { stop: true });
    assert.deepEqual([stopped.status, stopped.body.status, stopped.body.receipt.action, stopped.body.due], [200, "done", "Complete", "2031-04-30"]);
    const again = await complete(monthly.id);
    assert.deepEqual([again.status, again.body.reason], [422, "condition_failed"]);
    const unrepeatable = await call("POST", `/api/tasks/${overdue.id}/reschedule`, { due: null });
    assert.deepEqual([unrepeatable.status, unrepeatable.body.reason, unrepeatable.body.receipt.reason.condition], [422, "condition_failed", "has_due or not state.repeats"]);
  });

  it("the agenda groups open tasks by day in the zone of the settings, with repeating occurrences and the overdue", async () => {
    // Asia/Tokyo is UTC+9: 23:30Z is the next morning there; 14:59Z is 23:59 the same day.
    const late = await create({ title: "late call", due: "2030-03-10T23:30:00Z" });
    const night = await create({ title: "before midnight", due: "2030-03-10T14:59:00Z" });
    const plain = await create({ title: "plain day", due: "2030-03-12", priority: 1 });
    const urgent = await create({ title: "urgent day", due: "2030-03-12", priority: 3 });
    const weekly = await create({ title: "weekly review", due: "2030-03-09", repeat: "weekly" });
    const old = await create({ title: "long overdue", due: "2020-02-02" });
    const done = await create({ title: "done already", due: "2030-03-11" });
    assert.equal((await complete(done.id)).status, 200);

    const agenda = await call("GET", "/api/agenda?from=2030-03-09&to=2030-03-16");
    assert.equal(agenda.status, 200, JSON.stringify(agenda.body));
    assert.equal(agenda.body.timeZone, "Asia/Tokyo");
    assert.equal(agenda.body.days.length, 8);
    // Only this test's tasks: the repeating ones of the tests before have occurrences in any range.
    const mine = new Set([late.id, night.id, plain.id, urgent.id, weekly.id, old.id, done.id]);
    const on = (body: { days: { date: string; items: { id: string; due: string; occurrence: boolean }[] }[] }, date: string) =>
      (body.days.find((d) => d.date === date)?.items ?? []).filter((i) => mine.has(i.id)).map((i) => [i.id, i.due, i.occurrence]);
    assert.deepEqual(on(agenda.body, "2030-03-09"), [[weekly.id, "2030-03-09", false]]);
    assert.deepEqual(on(agenda.body, "2030-03-10"), [[night.id, "2030-03-10T23:59:00+09:00", false]]);
    assert.deepEqual(on(agenda.body, "2030-03-11"), [[late.id, "2030-03-11T08:30:00+09:00", false]], "the done task is not listed");
    assert.deepEqual(on(agenda.body, "2030-03-12"), [
      [urgent.id, "2030-03-12", false],
      [plain.id, "2030-03-12", false],
    ]);
    assert.deepEqual(on(agenda.body, "2030-03-16"), [[weekly.id, "2030-03-16", true]], "the weekly task's next occurrence");
    assert.ok(agenda.body.overdue.some((t: { id: string }) => t.id === old.id));
    assert.ok(agenda.body.overdue.every((t: { due: string }) => t.due.slice(0, 10) < dateIn("Asia/Tokyo")));
    assert.equal(agenda.body.truncated, false);

    // Another zone, the same tasks: Los Angeles is UTC-7 on 2030-03-10 (daylight time began that night).
    assert.equal((await call("PUT", "/api/account/settings", { timeZone: "America/Los_Angeles" })).status, 200);
    const west = await call("GET", "/api/agenda?from=2030-03-09&to=2030-03-16");
    assert.equal(west.body.timeZone, "America/Los_Angeles");
    assert.deepEqual(on(west.body, "2030-03-10"), [
      [night.id, "2030-03-10T07:59:00-07:00", false],
      [late.id, "2030-03-10T16:30:00-07:00", false],
    ]);
    assert.deepEqual(on(west.body, "2030-03-11"), []);
    assert.equal((await call("PUT", "/api/account/settings", { timeZone: "Asia/Tokyo" })).status, 200);

    for (const query of ["from=2030-03-09&to=2031-03-10", "from=2030-13-01", "from=2030-03-09&to=2030-03-01", "to=soon"]) {
      const bad = await call("GET", `/api/agenda?${query}`);
      assert.deepEqual([bad.status, bad.body.code], [400, "bad-parameters"], query);
    }
    const year = await call("GET", "/api/agenda?from=2030-01-01&to=2030-12-31");
    assert.equal(year.body.days.length, 365, "a year is allowed");
    const week = await call("GET", "/api/agenda");
    assert.deepEqual([week.body.from, week.body.days.length], [dateIn("Asia/Tokyo"), 7], "the 7 days from today by default");
  });

  it("GET /api/bootstrap counts the open tasks due today or before, in the person's zone", async () => {
    const count = async () => (await call("GET", "/api/bootstrap")).body.counts.tasksDue as number;
    const before = await count();
    assert.equal(typeof before, "number");
    const today = dateIn("Asia/Tokyo");
    const a = await create({ title: "due today", due: today });
    await create({ title: "due yesterday", due: plusDays(today, -1) });
    await create({ title: "due tomorrow", due: plusDays(today, 1) });
    await create({ title: "due in an hour", due: new Date(Date.now() + 3_600_000).toISOString() });
    const expected = before + 2 + (dateIn("Asia/Tokyo", Date.now() + 3_600_000) === today ? 1 : 0);
    assert.equal(await count(), expected);
    assert.equal((await complete(a.id)).status, 200);
    assert.equal(await count(), expected - 1, "a done task is not due");
  });
});
