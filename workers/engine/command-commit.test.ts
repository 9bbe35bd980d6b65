/** Committing planned batches to an in-memory store: history, idempotency keys, records and receipts in one transaction. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CommandAnswer } from "../../shared/protocol/engine.ts";
import { BatchCommitter, REFUSED_PAYLOAD_MAX } from "./command-commit.ts";
import { stateDigest } from "../../shared/store/state-digest.ts";
import { callers, command, memoryStore, NOW, order, pending } from "./command-fixture.ts";
import { BatchPlanner, type PlannedWrite } from "./command-plan.ts";

const { ada, bob, carol } = callers;
const NODE = "did:key:z6MkNode";

interface HistoryRow {
  seq: number;
  subject: string;
  action: string;
  outcome: string;
  args: string;
  command: string;
  before_digest: string;
  after_digest: string;
  committed_at: number;
}

async function planned(f: ReturnType<typeof memoryStore>, commands: Parameters<typeof pending>[0], now = NOW) {
  return new BatchPlanner(f.deps).plan(pending(commands).batch, now);
}

const writesOf = (plan: Awaited<ReturnType<typeof planned>>): PlannedWrite[] => plan.commands.flatMap((c) => (c.kind === "write" ? [c.write] : []));
const history = (f: ReturnType<typeof memoryStore>) => f.db.prepare("SELECT seq, subject, action, outcome, args, command, before_digest, after_digest, committed_at FROM history ORDER BY seq").all() as unknown as HistoryRow[];

describe("BatchCommitter.commit", () => {
  it("writes each planned entry with the next seq, its idempotency key and each subject's last state, and makes the receipts", async () => {
    const f = memoryStore();
    const committer = new BatchCommitter(f.db, f.artifacts);
    committer.commit(await planned(f, [command(ada, "Request", "o-0", order())]), { node: NODE });
    const plan = await planned(f, [command(ada, "Request", "o-1", order(7)), command(ada, "Confirm", "o-1"), command(bob, "Confirm", "o-1"), command(carol, "Ship", "o-1")], NOW + 5);
    const done = committer.commit(plan, { node: NODE });

    assert.deepEqual(history(f).map((r) => [r.seq, r.subject, r.action, r.outcome, r.committed_at]), [
      [1, "o-0", "Request", "accepted", NOW],
      [2, "o-1", "Request", "accepted", NOW + 5],
      [3, "o-1", "Confirm", "refused", NOW + 5],
      [4, "o-1", "Confirm", "accepted", NOW + 5],
      [5, "o-1", "Ship", "refused", NOW + 5],
    ]);
    const receipts = writesOf(plan).map((w) => done.answers.get(w) as CommandAnswer & { kind: "receipt" });
    assert.deepEqual(receipts.map((a) => [a.receipt.seq, a.receipt.outcome, a.receipt.node, a.receipt.committedAt, a.replayed]), [
      [2, "accepted", NODE, new Date(NOW + 5).toISOString(), false],
      [3, "refused", NODE, new Date(NOW + 5).toISOString(), false],
      [4, "accepted", NODE, new Date(NOW + 5).toISOString(), false],
      [5, "refused", NODE, new Date(NOW + 5).toISOString(), false],
    ]);
    assert.deepEqual(done.receipts, receipts.map((a) => a.receipt));
    assert.equal(receipts[0]?.json, JSON.stringify(receipts[0]?.receipt), "the receipt as history stores it");
    assert.equal(done.usage.get("acme")?.entries, 4);

    const record = f.artifacts.get(f.shipping).tables.get("Order")?.read("acme", "o-1");
    assert.equal(record?.seq, 4, "the record carries the seq of its last accepted command");
    assert.deepEqual([record?.state.status, record?.state.units, record?.state.confirmed_by], ["Confirmed", 7, bob]);
    const fields = f.artifacts.get(f.shipping).schema.aggregates.Order?.fields ?? [];
    const refused = history(f)[2] as HistoryRow;
    assert.equal(refused.after_digest, refused.before_digest, "a refusal leaves the state as it was");
    assert.equal(history(f)[3]?.after_digest, stateDigest(fields, record?.state ?? {}));
  });

  it("keys each entry, so the same command planned again is the stored receipt, replayed", async () => {
    const f = memoryStore();
    const committer = new BatchCommitter(f.db, f.artifacts);
    const request = command(ada, "Request", "o-1", order());
    const first = await planned(f, [request]);
    const done = committer.commit(first, { node: NODE });
    const again = await planned(f, [{ ...request, jws: "re-signed", digest: "re-signed" }], NOW + 60_000);
    const [replayed] = again.commands;
    assert.ok(replayed?.kind === "answer" && replayed.answer.kind === "receipt");
    assert.equal(replayed.answer.replayed, true);
    assert.deepEqual(replayed.answer.receipt, (done.answers.get(writesOf(first)[0] as PlannedWrite) as CommandAnswer & { kind: "receipt" }).receipt);
  });

  it("keeps only a digest of a refused command's oversized arguments and JWS, and all of an accepted one's", async () => {
    const f = memoryStore();
    const long = "c".repeat(REFUSED_PAYLOAD_MAX);
    const refused = { ...command(ada, "Request", "o-1", { ...order(), customer: long }), jws: "j".repeat(REFUSED_PAYLOAD_MAX + 1) };
    const accepted = { ...command(ada, "Request", "o-2", order()), jws: "k".repeat(REFUSED_PAYLOAD_MAX + 1) };
    new BatchCommitter(f.db, f.artifacts).commit(await planned(f, [refused, accepted]), { node: NODE });
    const [r, a] = history(f);
    assert.equal(r?.outcome, "refused", "text_too_long");
    assert.equal(r?.command, `omitted:sha256:${refused.digest}`);
    assert.deepEqual(Object.keys(JSON.parse(r?.args ?? "{}") as object), ["omitted"]);
    assert.equal(a?.outcome, "accepted");
    assert.equal(a?.command, accepted.jws);
    assert.deepEqual(JSON.parse(a?.args ?? "{}"), order());
  });

  it("rolls everything back when the transaction fails, and throws", async () => {
    const f = memoryStore();
    const plan = await planned(f, [command(ada, "Request", "o-1", order()), command(ada, "CheckCrate", "o-1")]);
    assert.throws(
      () =>
        new BatchCommitter(f.db, f.artifacts).commit(plan, {
          node: NODE,
          inTransaction: () => {
            throw new Error("disk full");
          },
        }),
      /disk full/,
    );
    assert.equal(f.db.isTransaction, false);
    assert.deepEqual(history(f), []);
    assert.equal((f.db.prepare("SELECT count(*) AS n FROM idempotency").get() as { n: number }).n, 0);
    assert.equal(f.artifacts.get(f.shipping).tables.get("Order")?.read("acme", "o-1"), null);
    // The same plan commits once the store takes it.
    new BatchCommitter(f.db, f.artifacts).commit(plan, { node: NODE });
    assert.deepEqual(history(f).map((r) => [r.seq, r.action]), [[1, "Request"], [2, "CheckCrate"]]);
  });
});
