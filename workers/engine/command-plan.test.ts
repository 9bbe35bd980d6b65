/** Planning a batch on an in-memory store: checks, authorization, outcomes and the writes they make — and nothing written. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SchemaAction, SchemaAuthorize } from "../../contracts/schema.ts";
import { NOT_FOUND_FOR_CALLER } from "../../shared/problem.ts";
import { authorizationRefusal, BatchPlanner, type PlannedCommand } from "./command-plan.ts";
import { callers, command, memoryStore, NOW, order, pending } from "./command-fixture.ts";

const { owner, ada, bob, carol, dave, stranger } = callers;

/** What was decided, in a form to compare: a problem's status and code, or a write's outcome and resulting status. */
function summary(c: PlannedCommand): string {
  switch (c.kind) {
    case "answer":
      return c.answer.kind === "problem" ? `problem ${c.answer.problem.status} ${c.answer.problem.code}` : `replayed ${c.answer.receipt.seq}`;
    case "write":
      return c.write.reason === null ? `accepted ${String(c.write.after.status)}` : `refused ${c.write.reason.code}`;
    case "repeat":
      return `repeat of ${summary(c.of)}`;
  }
}

const count = (db: ReturnType<typeof memoryStore>["db"], table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe("BatchPlanner.plan", () => {
  it("decides each command with what it would write, subject by subject in order, and writes nothing", async () => {
    const f = memoryStore();
    const request = command(ada, "Request", "o-1", order());
    const { batch, answers } = pending([
      request,
      command(ada, "CheckCrate", "o-1"),
      command(ada, "Confirm", "o-1"),
      command(ada, "Ship", "o-1"),
      command(carol, "Ship", "o-1"),
      { ...request, digest: "again" },
      command(ada, "Request", "o-2", order(), { key: request.payload.idempotencyKey }),
      command(ada, "Request", "o-3", order(0)),
    ]);
    const plan = await new BatchPlanner(f.deps).plan(batch, NOW);
    assert.deepEqual(plan.commands.map(summary), [
      "accepted Requested",
      "accepted Requested",
      "refused condition_failed",
      "refused unauthorized",
      "accepted Shipped",
      "repeat of accepted Requested",
      "problem 409 idempotency-conflict",
      "refused condition_failed",
    ]);
    assert.equal(plan.failure, null);
    assert.deepEqual(
      plan.states.map((s) => [s.subject, s.previous, s.state.status, s.state.crates_checked]),
      [["o-1", null, "Shipped", 1]],
      "one final state per subject, as its last accepted command left it; o-3 was refused and gets none",
    );
    const ship = plan.commands[4];
    assert.ok(ship?.kind === "write" && plan.states[0]?.last === ship.write, "the record takes the seq of its last accepted command");
    assert.deepEqual(answers, [], "planning answers no one");
    assert.deepEqual([count(f.db, "history"), count(f.db, "idempotency")], [0, 0], "planning writes nothing");
  });

  it("lets a delegate act only in a contract that delegates to its scope; to others it is a stranger", async () => {
    const f = memoryStore();
    const plan = await new BatchPlanner(f.deps).plan(
      pending([
        command(carol, "Request", "o-1", order()),
        command(dave, "Ship", "o-1"),
        command(stranger, "Ship", "o-1"),
        command(dave, "Request", "o-1", order()),
        command(carol, "Void", "inv-1", {}, { namespace: "std.invoices" }),
        command(carol, "Ship", "o-1", {}, { namespace: "acme.nothing" }),
        command(ada, "Ship", "o-1", {}, { namespace: "acme.nothing" }),
      ]).batch,
      NOW,
    );
    const [carolRequest, daveShip, strangerShip, daveRequest, carolInvoice, carolMissing, adaMissing] = plan.commands;
    assert.equal(carolRequest && summary(carolRequest), "refused unauthorized", "a shipping delegate may not do a member's action");
    for (const c of [daveShip, strangerShip, daveRequest, carolInvoice]) assert.equal(c && summary(c), "problem 403 unknown-caller");
    assert.ok(carolMissing?.kind === "answer" && carolMissing.answer.kind === "problem");
    assert.deepEqual(carolMissing.answer.problem, NOT_FOUND_FOR_CALLER, "a delegate is not told what the tenant lacks");
    assert.ok(adaMissing?.kind === "answer" && adaMissing.answer.kind === "problem");
    assert.equal(adaMissing.answer.problem.code, "unknown-namespace", "a member is");
  });

  it("counts a lapsed delegation as none", async () => {
    const f = memoryStore();
    const planner = new BatchPlanner(f.deps);
    f.db.prepare("UPDATE delegations SET until = ? WHERE did = ?").run(NOW + 1000, carol);
    const ready = [command(owner, "Request", "o-1", order()), command(owner, "CheckCrate", "o-1")];
    const inForce = await planner.plan(pending([...ready, command(carol, "Ship", "o-1")]).batch, NOW);
    assert.equal(summary(inForce.commands[2] as PlannedCommand), "accepted Shipped");
    const lapsed = await planner.plan(pending([...ready, command(carol, "Ship", "o-1")]).batch, NOW + 1000);
    assert.equal(summary(lapsed.commands[2] as PlannedCommand), "problem 403 unknown-caller");
  });

  it("answers ill-typed arguments with a 400 and plans no write for them", async () => {
    const f = memoryStore();
    const plan = await new BatchPlanner(f.deps).plan(pending([command(bob, "Request", "o-1", { ...order(), units: "four" })]).batch, NOW);
    const [bad] = plan.commands;
    assert.ok(bad?.kind === "answer" && bad.answer.kind === "problem");
    assert.equal(bad.answer.problem.status, 400);
    assert.deepEqual(bad.answer.problem.errors?.map((e) => (e as { pointer: string }).pointer), ["#/args/units"]);
    assert.deepEqual(plan.states, []);
  });

  it("answers 500 to the commands that needed a program that could not run, and keeps the others' answers", async () => {
    const f = memoryStore();
    const planner = new BatchPlanner({ ...f.deps, executor: { run: () => Promise.reject(new Error("the pool is gone")) } });
    const plan = await planner.plan(pending([command(ada, "Request", "o-1", order()), command(stranger, "Request", "o-2", order())]).batch, NOW);
    assert.equal(plan.failure?.message, "the pool is gone");
    assert.deepEqual(plan.commands.map(summary), ["problem 500 internal", "problem 403 unknown-caller"]);
    assert.deepEqual(plan.states, []);
  });
});

describe("authorizationRefusal", () => {
  const action = (authorize: SchemaAuthorize, exposure = "authenticated") => ({ authorize, exposure }) as SchemaAction;
  const roles = (r: { owner?: boolean; member?: boolean; scopes?: string[] }) => ({ known: true, owner: r.owner ?? false, member: r.member ?? r.owner ?? false, scopes: r.scopes ?? [] });

  it("decides every mode but field, which the program checks", () => {
    const cases: [SchemaAuthorize, ReturnType<typeof roles>, string | undefined][] = [
      [{ mode: "anyone" }, roles({ member: true }), undefined],
      [{ mode: "anyone" }, roles({ scopes: ["shipping"] }), "only a member or owner of the tenant (a delegate acts only through the actions delegated to its scope) may do this"],
      [{ mode: "field", field: "requested_by" }, roles({}), undefined],
      [{ mode: "member" }, roles({ member: true }), undefined],
      [{ mode: "member" }, roles({ scopes: ["shipping"] }), "only a member or owner of the tenant may do this"],
      [{ mode: "owner" }, roles({ member: true }), "only an owner of the tenant may do this"],
      [{ mode: "owner" }, roles({ owner: true }), undefined],
      [{ mode: "delegate", scope: "shipping" }, roles({ scopes: ["shipping"] }), undefined],
      [{ mode: "delegate", scope: "shipping" }, roles({ owner: true }), undefined],
      [{ mode: "delegate", scope: "shipping" }, roles({ member: true, scopes: ["tally"] }), "only a holder of a delegation with scope shipping or an owner may do this"],
    ];
    for (const [authorize, who, message] of cases) {
      assert.equal(authorizationRefusal(action(authorize), who)?.message, message, `${JSON.stringify(authorize)} for ${JSON.stringify(who)}`);
    }
    // A public action authorizing anyone is open to a delegate as to any key.
    assert.equal(authorizationRefusal(action({ mode: "anyone" }, "public"), roles({ scopes: ["shipping"] })), undefined);
  });
});
