/**
 * Issue 4: crash safety. A load generator sends thousands of signed commands while the engine is
 * killed with SIGKILL at random moments; afterwards every command that got a receipt is in history
 * exactly once, and the stored state equals replaying history from the start.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { loadArtifact } from "../contracts/runtime/index.ts";
import type { KeyPair } from "../shared/identity/index.ts";
import { stateDigest } from "../workers/engine/commands.ts";
import { tableName } from "../contracts/storage/columns.ts";
import { StateTable } from "../workers/engine/state-table.ts";
import { cleanup, lockOf, sleep, startCharter, stopCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";
import { post, signed } from "./helpers/client.ts";
import { example, seed } from "./helpers/seed.ts";

const TOTAL = Number(process.env.CHARTER_CRASH_COMMANDS ?? 2000);
const KILLS = Number(process.env.CHARTER_CRASH_KILLS ?? 3);

test(`${TOTAL} commands, ${KILLS} engine kills: receipts are history, exactly once; state is the replay of history`, async () => {
  const dataDir = tempDataDir();
  const s = await seed(dataDir, { contracts: [example("counter.charter.md"), example("shipping.charter.md")], members: 4 });
  // Contract programs on the executor thread pool (the default on bigger machines), crash after crash.
  // Every kill is a restart: allow them all within the supervisor's 60 s window (--restart-limit).
  const c = await startCharter({ dataDir, env: { CHARTER_EXECUTORS: "1" }, args: ["--restart-limit", String(KILLS + 1)] });
  const receipts = new Map<string, { seq: number; jws: string }>();
  let next = 0;
  let retries = 0;

  async function client(me: KeyPair): Promise<void> {
    while (next < TOTAL) {
      const n = next++;
      const shipping = n % 5 === 0;
      const jws = signed(me, shipping
        ? { namespace: "acme.shipping", action: n % 10 === 0 ? "Request" : "CheckCrate", subject: `order-${n % 40}`, args: n % 10 === 0 ? { customer: "C", destination: "D", units: 3, crates: 4, credit_terms: true } : {} }
        : { namespace: "acme.counter", action: "Increment", subject: `tally-${n % 25}` });
      for (;;) {
        const r = await post(`${c.url}/v1/acme/${shipping ? "acme.shipping" : "acme.counter"}/actions/${shipping ? (n % 10 === 0 ? "Request" : "CheckCrate") : "Increment"}`, JSON.stringify({ command: jws })).catch(() => null);
        if (r !== null && (r.status === 200 || r.status === 422)) {
          receipts.set(jws, { seq: r.body.receipt.seq, jws });
          break;
        }
        // Engine restarting (503) or the connection dropped: send the same command again.
        retries++;
        await sleep(20);
      }
    }
  }

  async function killer(): Promise<void> {
    for (let k = 0; k < KILLS; k++) {
      await sleep(300 + Math.random() * 700);
      const engine = lockOf(dataDir).workers.engine as number;
      process.kill(engine, "SIGKILL");
      await waitFor("a new engine", () => (lockOf(dataDir).workers.engine !== engine ? true : undefined));
    }
  }

  await Promise.all([killer(), ...s.members.map((m) => client(m))]);
  await stopCharter(c);
  assert.equal(receipts.size, TOTAL);
  assert.ok(retries > 0, "the kills interrupted some commands");

  const db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
  // Every receipt is in history, at its seq, once.
  const bySeq = db.prepare("SELECT command FROM history WHERE seq = ?");
  for (const { seq, jws } of receipts.values()) assert.equal((bySeq.get(seq) as { command: string } | undefined)?.command, jws, `receipt seq ${seq} is in history`);
  const dupes = db.prepare("SELECT count(*) AS n FROM (SELECT command FROM history GROUP BY command HAVING count(*) > 1)").get() as { n: number };
  assert.equal(dupes.n, 0, "no command decided twice");
  assert.equal((db.prepare("SELECT count(*) AS n FROM history").get() as { n: number }).n, TOTAL, "nothing in history that has no receipt");

  // Replaying history from the start through the artifact gives the stored state of every subject.
  const states = new Map<string, Record<string, unknown>>();
  const programs = new Map<string, ReturnType<typeof loadArtifact>>();
  const rows = db.prepare("SELECT seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, args, committed_at, before_digest, after_digest FROM history ORDER BY seq").all() as any[];
  for (const h of rows) {
    let program = programs.get(h.artifact);
    if (program === undefined) {
      const a = db.prepare("SELECT schema, wasm FROM artifacts WHERE id = ?").get(h.artifact) as { schema: string; wasm: Uint8Array };
      program = loadArtifact({ schema: a.schema, wasm: a.wasm });
      programs.set(h.artifact, program);
    }
    const key = `${h.namespace}/${h.aggregate}/${h.subject}`;
    const fields = program.schema.aggregates[h.aggregate]?.fields ?? [];
    const before = states.get(key) ?? program.defaultState(h.aggregate);
    assert.equal(stateDigest(fields, before), h.before_digest, `state before seq ${h.seq}`);
    const outcome = program.execute(`${h.aggregate}.${h.action}`, { state: before, args: JSON.parse(h.args), context: { signer: h.signer, time: h.committed_at } });
    assert.equal(outcome.outcome, h.outcome, `outcome of seq ${h.seq}`);
    const after = outcome.outcome === "accepted" ? outcome.state : before;
    assert.equal(stateDigest(fields, after), h.after_digest, `state after seq ${h.seq}`);
    if (outcome.outcome === "accepted") states.set(key, after);
  }
  for (const [key, state] of states) {
    const [namespace, aggregate, subject] = key.split("/") as [string, string, string];
    const program = [...programs.values()].find((p) => p.schema.namespace === namespace) as ReturnType<typeof loadArtifact>;
    const stored = new StateTable(db, program.schema, aggregate).read("acme", subject);
    assert.deepEqual(stored?.state, state, `stored state of ${key}`);
  }
  const tables = [...programs.values()].flatMap((p) => Object.keys(p.schema.aggregates).map((a) => `"${tableName(p.schema, a)}"`));
  const subjects = db.prepare(`SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t})`).join(" + ")} AS n`).get() as { n: number };
  assert.equal(subjects.n, states.size, "no stored record that history does not explain");
  db.close();
  cleanup(dataDir);
});
