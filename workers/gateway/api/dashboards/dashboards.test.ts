import assert from "node:assert/strict";
import { test } from "node:test";
import { ManualClock } from "../../../../shared/clock.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { SignedCommandAnswer } from "../../../../shared/protocol/engine.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWrite } from "../personal/person-writer.ts";
import { Dashboards } from "./dashboards.ts";

const MINUTE = 1000;

/** A dashboard's stored state as std.dashboards keeps it. */
function stored(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: "Money",
    panel_namespaces: ["std.invoices", "std.invoices"],
    panel_queries: ["Due", "Find"],
    panel_params: ['{"on":"2026-12-31"}', '{"text":"acme"}'],
    result: "",
    refreshed_at: 0,
    last_error: "",
    failed_at: 0,
    every_minutes: 5,
    next_at: 7,
    creator: "did:key:z6MkPerson",
    created_at: 1,
    deleted: false,
    ...over,
  };
}

/** The store in memory: the reader reads it, the writer's commands change it (as the contract would). */
function fakeNode(clock: ManualClock) {
  let state: Record<string, unknown> | null = stored();
  const writes: PersonWrite[] = [];
  let writing = 0;
  let overlapped = false;
  const failing = new Set<string>();
  const reader = {
    record: () => (state === null ? null : { subject: "d-1", aggregate: "Dashboard", artifact: "art", seq: 1, state }),
    query: (_tenant: unknown, namespace: string, name: string, params: unknown) => {
      if (failing.has(name)) throw new HttpProblem(problem(422, "query-failed", `${name} overflowed`));
      return { artifact: "art", rows: [{ namespace, name, params }] };
    },
  } as unknown as PersonReader;
  const writer = {
    act: async (write: PersonWrite): Promise<SignedCommandAnswer> => {
      writes.push(write);
      if (writing > 0) overlapped = true;
      writing++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      writing--;
      if (write.action === "RecordRefresh") state = { ...state, result: write.args.result, refreshed_at: write.args.refreshed_at, next_at: write.args.next_at, last_error: "" };
      if (write.action === "RecordFailure") state = { ...state, last_error: write.args.error, failed_at: write.args.failed_at, next_at: write.args.next_at };
      const receipt = { outcome: "accepted", state, signer: "did:key:z6MkPerson" };
      return { kind: "receipt", jws: `h.${Buffer.from(JSON.stringify(receipt)).toString("base64url")}.s`, outcome: "accepted", replayed: false };
    },
  };
  const dashboards = new Dashboards({ reader, writer, now: () => clock.now(), minuteMs: MINUTE });
  return { dashboards, writes, failing, overlapped: () => overlapped, clear: () => (state = null) };
}

test("a refresh runs each panel's query with its parameters and records the rows, the time and the next turn", async () => {
  const clock = new ManualClock(50_000);
  const node = fakeNode(clock);
  const answer = await node.dashboards.refresh("d-1");
  assert.equal(answer.kind, "done");
  const [write] = node.writes;
  assert.equal(write?.action, "RecordRefresh");
  assert.deepEqual({ ...write?.args, result: undefined }, { result: undefined, refreshed_at: 50_000, next_at: 50_000 + 5 * MINUTE });
  assert.deepEqual(JSON.parse(write?.args.result as string), [
    { rows: [{ namespace: "std.invoices", name: "Due", params: { on: "2026-12-31" } }], truncated: false },
    { rows: [{ namespace: "std.invoices", name: "Find", params: { text: "acme" } }], truncated: false },
  ]);
  if (answer.kind === "done") assert.equal(answer.dashboard.result?.panels.length, 2);
});

test("a panel whose query fails records the failure and moves the schedule on; the answer names the panel", async () => {
  const clock = new ManualClock(50_000);
  const node = fakeNode(clock);
  node.failing.add("Find");
  const answer = await node.dashboards.refresh("d-1");
  assert.equal(answer.kind, "failed");
  if (answer.kind === "failed") {
    assert.equal(answer.problem.status, 422);
    assert.match(answer.problem.detail, /^panel 1 \(std\.invoices\.Find\): Find overflowed/);
  }
  assert.deepEqual(
    node.writes.map((w) => [w.action, w.args.next_at]),
    [["RecordFailure", 50_000 + 5 * MINUTE]],
  );
});

test("the node's writes to dashboards never overlap, whoever asks", async () => {
  const clock = new ManualClock(50_000);
  const node = fakeNode(clock);
  const heard: number[] = [];
  node.dashboards.onChange(() => heard.push(1));
  const answers = await Promise.all([node.dashboards.refresh("d-1"), node.dashboards.refresh("d-1", "schedule"), node.dashboards.schedule("d-1", 10), node.dashboards.refresh("d-1")]);
  assert.deepEqual(
    answers.map((a) => a.kind),
    ["done", "done", "done", "done"],
  );
  assert.equal(node.overlapped(), false);
  assert.deepEqual(
    node.writes.map((w) => w.action),
    ["RecordRefresh", "RecordRefresh", "SetSchedule", "RecordRefresh"],
  );
  assert.equal(heard.length, 3, "the person's changes are heard; the schedule's own refreshes are not");
});

test("an unknown dashboard is 404 and nothing is written", async () => {
  const node = fakeNode(new ManualClock(1));
  node.clear();
  await assert.rejects(node.dashboards.refresh("d-1"), (e: unknown) => e instanceof HttpProblem && e.problem.status === 404);
  await assert.rejects(node.dashboards.schedule("d-1", 5), (e: unknown) => e instanceof HttpProblem && e.problem.status === 404);
  assert.throws(() => node.dashboards.read("d-1"), (e: unknown) => e instanceof HttpProblem && e.problem.status === 404);
  assert.equal(node.writes.length, 0);
});
