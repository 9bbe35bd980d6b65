/** Previewing commands on an in-memory store: the write path's own decision, and nothing written — beside batches in flight too. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileContract } from "../../contracts/compile.ts";
import { ManualClock } from "../../shared/clock.ts";
import type { Receipt } from "../../shared/identity/index.ts";
import type { CommandAnswer, PreviewAnswer } from "../../shared/protocol/engine.ts";
import { CommandProcessor } from "./commands.ts";
import { callers, command, type Fixture, memoryStore, NOW, order } from "./command-fixture.ts";
import { CommandPreviewer } from "./command-preview.ts";
import type { ExecGroup } from "./executor/run-groups.ts";
import { installArtifact } from "./install.ts";

const { owner, ada, bob, carol, stranger } = callers;

/** Everything a preview must leave as it was: history, idempotency keys, records, and the connection's change counter. */
function footprint(f: Fixture): string {
  const n = (sql: string) => (f.db.prepare(sql).get() as { n: number }).n;
  const orders = f.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'st_acme_shipping_%__Order'").get() as { name: string };
  return JSON.stringify([
    n("SELECT count(*) AS n FROM history"),
    n("SELECT count(*) AS n FROM idempotency"),
    f.db.prepare(`SELECT * FROM "${orders.name}" ORDER BY subject`).all(),
    n("SELECT total_changes() AS n"),
  ]);
}

function previewer(f: Fixture, now = NOW): CommandPreviewer {
  return new CommandPreviewer({ ...f.deps, clock: new ManualClock(now) });
}

/** A processor committing to the fixture's store; the receipts it announces are kept. */
function processor(f: Fixture, executor = f.deps.executor): { commands: CommandProcessor; announced: Receipt[] } {
  const announced: Receipt[] = [];
  const commands = new CommandProcessor({ ...f.deps, artifacts: f.artifacts, executor, clock: new ManualClock(NOW), nodeDid: "did:key:z6MkNode", onCommitted: (r) => announced.push(...r) });
  return { commands, announced };
}

const outcome = (a: PreviewAnswer) => (a.kind === "problem" ? `problem ${a.problem.status} ${a.problem.code}` : a.outcome === "accepted" ? `accepted ${String(a.state.status)}` : `refused ${a.reason.code}`);

describe("CommandPreviewer.preview", () => {
  it("answers the state an accepted command would leave, as the receipt would show it, and writes nothing", async () => {
    const f = memoryStore();
    const before = footprint(f);
    const answer = await previewer(f).preview(command(ada, "Request", "o-1", order(7)));
    assert.deepEqual(answer, {
      kind: "preview",
      outcome: "accepted",
      state: { status: "Requested", customer: "Ada Ltd", destination: "Oslo", units: 7, crates: 1, crates_checked: 0, paid: false, credit_terms: true, requested_by: ada, confirmed_by: null },
    });
    assert.equal(footprint(f), before, "no history, no idempotency key, no record, no change at all");
  });

  it("answers the contract's refusal, with the condition and its line, for a refused command", async () => {
    const f = memoryStore();
    const { commands } = processor(f);
    await commands.submit(command(ada, "Request", "o-1", order()));
    const before = footprint(f);
    const p = previewer(f);
    const confirm = await p.preview(command(ada, "Confirm", "o-1"));
    assert.ok(confirm.kind === "preview" && confirm.outcome === "refused", JSON.stringify(confirm));
    assert.deepEqual({ ...confirm.reason, line: typeof confirm.reason.line }, { code: "condition_failed", condition: "context.signer != state.requested_by", line: "number", message: "condition does not hold: context.signer != state.requested_by" });
    // The signer is the one `authorize` and `context.signer` see.
    assert.equal(outcome(await p.preview(command(bob, "Confirm", "o-1"))), "accepted Confirmed");
    assert.equal(outcome(await p.preview(command(ada, "Ship", "o-1"))), "refused unauthorized", "a member without the shipping delegation");
    const ship = await p.preview(command(carol, "Ship", "o-1"));
    assert.ok(ship.kind === "preview" && ship.outcome === "refused", "the delegate may ship, but no crate is checked yet");
    assert.equal(ship.reason.condition, "state.crates_checked == state.crates");
    assert.equal(footprint(f), before);
    // And the command itself, sent, is decided the same way.
    const sent = (await commands.submit(command(ada, "Confirm", "o-1"))) as CommandAnswer & { kind: "receipt" };
    assert.deepEqual(sent.receipt.reason, confirm.reason);
  });

  it("answers what a command would get for a missing tenant, namespace or action, a stranger, or ill-typed arguments", async () => {
    const f = memoryStore();
    const before = footprint(f);
    const p = previewer(f);
    const elsewhere = command(ada, "Request", "o-1", order());
    const cases: [ReturnType<typeof command>, string][] = [
      [{ ...elsewhere, payload: { ...elsewhere.payload, tenant: "globex" } }, "problem 404 not-found"],
      [command(ada, "Request", "o-1", order(), { namespace: "acme.nothing" }), "problem 404 unknown-namespace"],
      [command(ada, "Fly", "o-1"), "problem 404 unknown-action"],
      [command(stranger, "Request", "o-1", order()), "problem 403 unknown-caller"],
      [command(owner, "Request", "o-1", { ...order(), units: "four" }), "problem 400 bad-arguments"],
    ];
    for (const [c, expected] of cases) assert.equal(outcome(await p.preview(c)), expected, JSON.stringify(c.payload));
    assert.equal(footprint(f), before);
  });

  it("neither reads as used nor spends the idempotency key it carries; a key already spent answers what sending it again would", async () => {
    const f = memoryStore();
    const { commands } = processor(f);
    const p = previewer(f);
    const first = command(ada, "Request", "o-1", order(), { key: "k-1" });
    assert.equal(outcome(await p.preview(first)), "accepted Requested");
    assert.equal(outcome(await p.preview(first)), "accepted Requested", "previewing twice is not a repeat");
    const sent = (await commands.submit(first)) as CommandAnswer & { kind: "receipt" };
    assert.equal(sent.replayed, false, "the key was still free when the command came");
    assert.equal(outcome(await p.preview({ ...first, digest: "resigned" })), "accepted Requested", "the stored receipt's outcome");
    assert.equal(outcome(await p.preview(command(ada, "Request", "o-2", order(), { key: "k-1" }))), "problem 409 idempotency-conflict");
  });

  it("serves public fields only", async () => {
    const f = memoryStore();
    const source = [
      "```charter",
      "namespace acme.notes",
      "version 1.0.0",
      "aggregate Note {",
      "  public title: Text(len=20)",
      "  private secret: Text(len=20)",
      "  action Write(title: Text(len=20), secret: Text(len=20)) api authenticated {",
      "    authorize member",
      "    apply {",
      "      state.title = title",
      "      state.secret = secret",
      "    }",
      "  }",
      "}",
      "```",
    ].join("\n");
    const artifact = compileContract(source).artifact;
    assert.ok(artifact !== undefined);
    const installed = installArtifact(f.db, { tenant: "acme", artifact: { id: artifact.id, schemaJson: new TextDecoder().decode(artifact.schemaBytes), wasm: artifact.wasm, source }, installedBy: owner, now: NOW });
    assert.ok(installed.ok);
    const p = previewer(f);
    assert.deepEqual(await p.preview(command(ada, "Write", "n-1", { title: "hello", secret: "s3cret" }, { namespace: "acme.notes" })), { kind: "preview", outcome: "accepted", state: { title: "hello" } });
    const long = await p.preview(command(ada, "Write", "n-1", { title: "x".repeat(21), secret: "" }, { namespace: "acme.notes" }));
    assert.equal(outcome(long), "refused text_too_long", "a text over its length is the contract's refusal");
  });

  it("runs beside a batch in flight without joining, delaying or changing it", async () => {
    const f = memoryStore();
    // Programs that take a while, so previews are checked and run while the batch waits for them.
    let runs = 0;
    const slow = {
      run: async (groups: readonly ExecGroup[]) => {
        runs += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return f.deps.executor.run(groups);
      },
    };
    const { commands, announced } = processor(f, slow);
    const p = new CommandPreviewer({ ...f.deps, executor: slow, clock: new ManualClock(NOW) });
    const batch = [command(ada, "Request", "o-1", order()), command(ada, "CheckCrate", "o-1"), command(bob, "Confirm", "o-1"), command(carol, "Ship", "o-1")];
    const sent = batch.map((c) => commands.submit(c));
    const previews = [p.preview(command(bob, "Confirm", "o-1")), p.preview(command(ada, "Request", "o-2", order())), p.preview(command(ada, "Pay", "o-1"))];
    // One more preview once the batch's programs are running.
    await new Promise((resolve) => setTimeout(resolve, 5));
    previews.push(p.preview(command(ada, "Pay", "o-1")));
    const answers = (await Promise.all(sent)) as (CommandAnswer & { kind: "receipt" })[];
    const previewed = await Promise.all(previews);

    assert.deepEqual(answers.map((a) => [a.receipt.seq, a.receipt.outcome]), [[1, "accepted"], [2, "accepted"], [3, "accepted"], [4, "accepted"]], "the batch, whole and in order");
    assert.deepEqual(announced.map((r) => r.seq), [1, 2, 3, 4], "only the batch's commits are announced");
    assert.equal((f.db.prepare("SELECT count(*) AS n FROM history").get() as { n: number }).n, 4);
    assert.equal((f.db.prepare("SELECT count(*) AS n FROM idempotency").get() as { n: number }).n, 4);
    assert.equal(runs, 1 + previews.length, "one program run for the batch, one per preview: none joined it");
    // Previews decided before the batch committed saw the state before it: o-1 had no record.
    assert.deepEqual(previewed.slice(0, 3).map(outcome), ["refused condition_failed", "accepted Requested", "refused condition_failed"]);
    assert.equal(outcome(previewed[3] as PreviewAnswer), "refused condition_failed", "o-1 is not requested yet when that preview was checked");
    // After it, a preview sees what the batch committed.
    assert.equal(outcome(await p.preview(command(ada, "Pay", "o-1"))), "accepted Shipped");
  });
});
