/**
 * Issue 7, acceptance: a linearizability check (Wing & Gong, test/raft/linearizability.ts) over a
 * history taken from three real voters while faults are injected. Writer clients Increment a few
 * counters (the receipt's state says the count each one made); reader clients read the counters
 * with the default, linearizable consistency; both spread over all three voters. Meanwhile the
 * leader is killed with `kill -9` and restarted, and then the new leader is cut off from the
 * others by the proxies and healed. Each operation's call and return times are recorded; a command
 * that never got a receipt is pending (it may or may not have happened); a read that got no answer
 * is left out (it changed nothing).
 *
 * `CHARTER_SOAK=1` repeats the faults (cutting off by resetting connections every other time).
 *
 * The check can fail: during the cut, a `?consistency=local` read at the cut-off voter after a
 * write acknowledged by the majority returns the stale count, and the same checker, given that
 * read as if it were a linearizable one, rejects the history.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { generateKeyPair, signBearer } from "../shared/identity/index.ts";
import { sleep } from "./helpers/charter-process.ts";
import { signed } from "./helpers/client.ts";
import { Cluster, sendUntilReceipt } from "./helpers/cluster.ts";
import { checkLinearizable, type Model, type Operation } from "./raft/linearizability.ts";

const SOAK = process.env.CHARTER_SOAK === "1";
const PHASE_MS = SOAK ? 3000 : 1500;
/** Rounds of faults: a leader killed and restarted, then a leader cut off and healed. */
const CYCLES = SOAK ? 5 : 1;
const WRITERS = 3;
const READERS = 3;
const KEYS = ["k0", "k1", "k2"];
const NS = "acme.counter";

/** A counter per key: an increment answers the count it made, a read the count. */
type CounterInput = { readonly kind: "inc" | "read"; readonly key: string };
/** The count; null for an increment whose answer never came. */
type CounterOutput = number | null;

const counterModel: Model<number, CounterInput, CounterOutput> = {
  init: () => 0,
  step: (count, input, output) => (input.kind === "inc" ? [output === null || output === count + 1, count + 1] : [output === count, count]),
  key: (count) => String(count),
  partition: (history) => {
    const byKey = new Map<string, Operation<CounterInput, CounterOutput>[]>();
    for (const op of history) byKey.set(op.input.key, [...(byKey.get(op.input.key) ?? []), op]);
    return [...byKey.values()];
  },
};

type Op = Operation<CounterInput, CounterOutput>;
const inc = (key: string, output: CounterOutput, call: number, ret: number): Op => ({ input: { kind: "inc", key }, output, call, ret });
const read = (key: string, output: number, call: number, ret: number): Op => ({ input: { kind: "read", key }, output, call, ret });

test("the counter model: the checker accepts and rejects what it should", () => {
  const ok = (h: Op[]) => checkLinearizable(counterModel, h).ok;
  assert.equal(ok([inc("x", 1, 0, 1), read("x", 1, 2, 3), inc("x", 2, 4, 5), read("x", 2, 6, 7)]), true);
  assert.equal(ok([inc("x", 1, 0, 1), read("x", 0, 2, 3)]), false, "a read that misses an acknowledged increment");
  assert.equal(ok([inc("x", 1, 0, 10), read("x", 0, 2, 3), read("x", 1, 4, 5)]), true, "a read during the increment may see either");
  assert.equal(ok([inc("x", 1, 0, 10), read("x", 1, 2, 3), read("x", 0, 4, 5)]), false, "but not go back");
  assert.equal(ok([inc("x", 2, 0, 1), inc("x", 1, 2, 3)]), false, "counts follow real time");
  assert.equal(ok([inc("x", null, 0, Infinity), read("x", 0, 2, 3), read("x", 1, 4, 5)]), true, "a pending increment may land late");
  assert.equal(ok([inc("x", null, 0, Infinity), read("x", 1, 2, 3), read("x", 0, 4, 5)]), false);
  assert.equal(ok([inc("x", 1, 0, 1), inc("y", 1, 0, 1), read("y", 1, 2, 3), read("x", 1, 2, 3)]), true);
});

describe("three voters under faults", () => {
  const owner = generateKeyPair();
  let cluster: Cluster;

  before(async () => {
    cluster = await Cluster.start({ proxies: true });
    await cluster.leader();
    await cluster.cli(["tenant", "create", "acme", "--owner", owner.did, "--data", cluster.voter("a").dataDir]);
    await cluster.cli(["install", new URL("../contracts/examples/counter.charter.md", import.meta.url).pathname, "--tenant", "acme", "--data", cluster.voter("a").dataDir]);
  });

  after(async () => {
    await cluster?.stop();
  });

  /** A read of `key`'s count at voter `id` (0 before its first increment); null without an answer. */
  async function readCount(id: string, key: string, consistency: "strong" | "local" = "strong"): Promise<{ count: number; status: number } | null> {
    try {
      const r = await fetch(`${cluster.voter(id).url}/v1/acme/${NS}/records/Tally/${key}${consistency === "local" ? "?consistency=local" : ""}`, {
        headers: { authorization: `Bearer ${signBearer(owner, { tenant: "acme", namespace: NS, now: Date.now() })}` },
        signal: AbortSignal.timeout(6000),
      });
      const body = (await r.json()) as { state?: { count: number } };
      if (r.status === 404) return { count: 0, status: 404 };
      if (r.status !== 200) return null;
      return { count: body.state?.count as number, status: 200 };
    } catch {
      return null;
    }
  }

  test("concurrent Increments and linearizable reads on three voters, through a leader kill and a leader cut off, are linearizable", async (t) => {
    const history: Op[] = [];
    let stopped = false;
    let n = 0;
    let unanswered = 0;
    const writer = async (): Promise<void> => {
      while (!stopped) {
        const i = n++;
        const key = KEYS[i % KEYS.length] as string;
        const s = await sendUntilReceipt(cluster, `/v1/acme/${NS}/actions/Increment`, signed(owner, { namespace: NS, action: "Increment", subject: key }), { first: i, deadline: Date.now() + 30_000 });
        history.push(inc(key, s.receipt === null ? null : (s.receipt.state?.count as number), s.call, s.ret));
      }
    };
    const reader = async (r: number): Promise<void> => {
      for (let i = r; !stopped; i++) {
        const key = KEYS[i % KEYS.length] as string;
        const id = cluster.voters[i % cluster.voters.length]?.id as string;
        const call = Date.now();
        const answer = await readCount(id, key);
        if (answer === null) {
          unanswered++;
          await sleep(20);
        } else history.push(read(key, answer.count, call, Date.now()));
      }
    };
    const clients = [...Array.from({ length: WRITERS }, () => writer()), ...Array.from({ length: READERS }, (_, r) => reader(r))];

    const faults: string[] = [];
    let stale: { op: Op; acknowledged: number } | null = null;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      await sleep(PHASE_MS);
      const killed = await cluster.leader();
      let t0 = Date.now();
      await cluster.kill(killed);
      faults.push(`leader ${killed} killed: ${await cluster.leader({ not: killed })} led after ${Date.now() - t0} ms`);
      await sleep(PHASE_MS);
      await cluster.restart(killed);
      await sleep(PHASE_MS);

      const cut = await cluster.leader();
      const mode = cycle % 2 === 0 ? "blackhole" : "reset";
      t0 = Date.now();
      cluster.isolate(cut, mode);
      faults.push(`leader ${cut} cut off (${mode}): ${await cluster.leader({ not: cut })} led after ${Date.now() - t0} ms`);
      if (stale === null) {
        // The stale read: a write acknowledged by the majority, then a local read at the cut-off voter.
        const majority = cluster.voters.map((v) => v.id).filter((id) => id !== cut);
        const w = await sendUntilReceipt(cluster, `/v1/acme/${NS}/actions/Increment`, signed(owner, { namespace: NS, action: "Increment", subject: "k0" }), { only: majority });
        assert.equal(w.status, 200);
        const acknowledged = w.receipt?.state?.count as number;
        history.push(inc("k0", acknowledged, w.call, w.ret));
        await sleep(5);
        const call = Date.now();
        const answer = await readCount(cut, "k0", "local");
        assert.ok(answer !== null, "the cut-off voter answers a local read");
        stale = { op: read("k0", answer.count, call, Date.now()), acknowledged };
      }
      await sleep(PHASE_MS);
      cluster.heal();
    }
    await sleep(PHASE_MS);
    stopped = true;
    await Promise.all(clients);
    await cluster.converged();

    const pending = history.filter((op) => op.ret === Infinity).length;
    const reads = history.filter((op) => op.input.kind === "read").length;
    const started = Date.now();
    const verdict = checkLinearizable(counterModel, history);
    const checkMs = Date.now() - started;
    t.diagnostic(
      `${history.length} operations (${history.length - reads} increments, ${pending} pending; ${reads} reads, ${unanswered} reads unanswered) checked in ${checkMs} ms; ` +
        faults.join("; "),
    );
    assert.ok(reads > 50 && history.length - reads > 50, "enough of both kinds");
    assert.ok(verdict.ok, `not linearizable: ${verdict.ok ? "" : JSON.stringify(verdict.part.slice(0, 20))}`);

    // The same history with the stale local read taken as a linearizable one is rejected.
    assert.ok(stale !== null);
    assert.ok(stale.op.output !== null && stale.op.output < stale.acknowledged, `the cut-off voter's local count ${stale.op.output} is behind the acknowledged ${stale.acknowledged}`);
    const withStale = [...history, stale.op];
    assert.equal(checkLinearizable(counterModel, withStale).ok, false, "the checker rejects the stale read");
  });
});
