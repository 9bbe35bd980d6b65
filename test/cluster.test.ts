/**
 * Issue 7, acceptance with real processes: three voters (`charter serve --voter-id … --peers …`) on
 * 127.0.0.1, each peer link through a proxy, under a steady load of signed commands from several
 * clients spread over all voters. One after the other, on the same cluster:
 *
 *   (a) `kill -9` of the leader's whole process tree; a new leader is elected and serves; the old
 *       one is restarted;
 *   (b) the same with a follower;
 *   (c) the leader cut off by the proxies (its peer traffic black-holed both ways): the others
 *       elect a new leader, the old one steps down (check-quorum) and serves no linearizable read;
 *       once healed it follows and catches up;
 *   (d) a voter restarted on an empty data directory that keeps only its node key: it catches up by
 *       installing a snapshot (the voters compact after CHARTER_RAFT_SNAPSHOT_EVERY + _KEEP entries,
 *       set small here).
 *
 * After each: every command that got a receipt (200 or 422) is in every voter's history exactly
 * once, at its receipt's seq, and nothing else is (each client retries the same signed command
 * until it gets a receipt); every replicated table (history, idempotency, state tables, tenants,
 * retired tenant dids, artifacts, applied index…) is equal across the voters; the tenant key files
 * too — the tenant's key was rotated at the start, so its retired key travels in snapshots as well.
 *
 * Times (to a new leader, to the first receipt after a kill) are printed as diagnostics, not
 * asserted: this machine is shared. `CHARTER_SOAK=1` runs longer loads and repeats the rounds.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import type { TestContext } from "node:test";
import { generateKeyPair, loadKeyFile, signBearer } from "../shared/identity/index.ts";
import { sleep } from "./helpers/charter-process.ts";
import { signed } from "./helpers/client.ts";
import { Cluster, historyCommands, type Sent, sendUntilReceipt, storeDigest } from "./helpers/cluster.ts";

const SOAK = process.env.CHARTER_SOAK === "1";
/** Load before and after each fault (ms), clients, and rounds of the four scenarios. */
const PHASE_MS = SOAK ? 5000 : 1200;
const CLIENTS = SOAK ? 8 : 5;
const ROUNDS = SOAK ? 4 : 1;
const SUBJECTS = 12;
// Small enough that the leader has compacted by (d), large enough that a voter down for a phase
// or two catches up from the log in (a)-(c).
const SNAPSHOT_EVERY = 300;
const SNAPSHOT_KEEP = 800;

const NS = "acme.counter";
const owner = generateKeyPair();
let cluster: Cluster;
/** Every command that got a receipt, since the start. */
const receipts: Sent[] = [];
/** The tenant's did after its key rotation. */
let acmeDid = "";

before(async () => {
  cluster = await Cluster.start({ proxies: true, env: { CHARTER_RAFT_SNAPSHOT_EVERY: String(SNAPSHOT_EVERY), CHARTER_RAFT_SNAPSHOT_KEEP: String(SNAPSHOT_KEEP) } });
  await cluster.leader();
  // Through two different voters' admin sockets: both go through the log.
  await cluster.cli(["tenant", "create", "acme", "--owner", owner.did, "--data", cluster.voter("b").dataDir]);
  // Through a third voter: the rotation's key is made by the proposer and carried in its log entry.
  acmeDid = (await cluster.cli(["tenant", "rotate-key", "acme", "--data", cluster.voter("a").dataDir])).trim();
  assert.match(acmeDid, /^did:key:z6Mk/);
  await cluster.cli(["install", new URL("../contracts/examples/counter.charter.md", import.meta.url).pathname, "--tenant", "acme", "--data", cluster.voter("c").dataDir]);
  for (let i = 0; i < SUBJECTS; i++) {
    const s = await sendUntilReceipt(cluster, `/v1/acme/${NS}/actions/Start`, signed(owner, { namespace: NS, action: "Start", subject: `t${i}`, args: { label: `tally ${i}` } }), { first: i });
    assert.equal(s.status, 200, `Start t${i}: ${s.failures.join(" ")}`);
    receipts.push(s);
  }
});

after(async () => {
  await cluster?.stop();
});

/** Clients that each send one command at a time, round robin over the voters, until stopped. */
class Load {
  #stopped = false;
  #aborted = false;
  readonly #clients: Promise<void>[];
  readonly sent: Sent[] = [];
  #n = 0;

  constructor(clients: number) {
    this.#clients = Array.from({ length: clients }, () => this.#client());
  }

  async #client(): Promise<void> {
    while (!this.#stopped) {
      const n = this.#n++;
      const jws = signed(owner, { namespace: NS, action: "Increment", subject: `t${n % SUBJECTS}` });
      const s = await sendUntilReceipt(cluster, `/v1/acme/${NS}/actions/Increment`, jws, { first: n, cancelled: () => this.#aborted });
      this.sent.push(s);
      if (s.receipt !== null) receipts.push(s);
    }
  }

  /** Stops at once, without waiting for receipts (a failed scenario). */
  abort(): Promise<void> {
    this.#stopped = this.#aborted = true;
    return Promise.all(this.#clients).then(() => undefined);
  }

  /** Stops sending; resolves once every client's last command has its receipt (or gave up). */
  async stop(): Promise<Sent[]> {
    this.#stopped = true;
    await Promise.all(this.#clients);
    return this.sent;
  }
}

/** When the first command sent after t0 got its receipt, the slowest command, and how many needed more than one attempt. */
function loadFigures(sent: readonly Sent[], t0: number): string {
  const after = sent.filter((s) => s.call >= t0 && s.receipt !== null).map((s) => s.ret - t0);
  const slowest = Math.max(...sent.filter((s) => s.receipt !== null).map((s) => s.ret - s.call));
  return `the load's first receipt for a command sent after the fault ${after.length === 0 ? "never came" : `came ${Math.min(...after)} ms after it`}; ${sent.length} commands, ${sent.filter((s) => s.attempts > 1).length} retried, the slowest took ${slowest} ms`;
}

/** Milliseconds from t0 until a fresh command sent to `id` alone gets its receipt. */
async function probe(id: string, t0: number): Promise<number> {
  const s = await sendUntilReceipt(cluster, `/v1/acme/${NS}/actions/Increment`, signed(owner, { namespace: NS, action: "Increment", subject: "t0" }), { only: [id] });
  assert.equal(s.status, 200, `the probe at ${id}: ${s.failures.join(" ")}`);
  receipts.push(s);
  return s.ret - t0;
}

/**
 * The scenario's common checks, once the load stopped and the voters converged: receipts are
 * history on every voter, exactly once; the stores are equal.
 */
async function checkVoters(t: TestContext, sent: readonly Sent[]): Promise<void> {
  const unanswered = sent.filter((s) => s.receipt === null);
  assert.equal(unanswered.length, 0, `commands without a receipt after a minute of retries: ${unanswered.slice(0, 3).map((s) => s.failures.join(" ")).join(" | ")}`);
  const applied = await cluster.converged();
  const digests = cluster.voters.map((v) => storeDigest(v.dataDir));
  for (const v of cluster.voters) {
    const history = historyCommands(v.dataDir);
    for (const s of receipts) assert.deepEqual(history.get(s.jws), [s.receipt?.seq], `voter ${v.id}: the command of receipt seq ${s.receipt?.seq} is in history once, at that seq`);
    assert.equal(history.size, receipts.length, `voter ${v.id}: history holds exactly the ${receipts.length} commands with receipts`);
    const rows = [...history.values()].reduce((n, seqs) => n + seqs.length, 0);
    assert.equal(rows, receipts.length, `voter ${v.id}: no command decided twice`);
  }
  for (let i = 1; i < digests.length; i++) assert.deepEqual(digests[i], digests[0], `voter ${cluster.voters[i]?.id}'s replicated tables equal voter a's`);
  assert.equal(Number((digests[0] as Record<string, { rows: number }>).replication?.rows), 1);
  const keys = cluster.voters.map((v) => readdirSync(join(v.dataDir, "keys")).sort().map((name) => `${name}:${readFileSync(join(v.dataDir, "keys", name), "utf8")}`));
  for (let i = 1; i < keys.length; i++) assert.deepEqual(keys[i], keys[0], `voter ${cluster.voters[i]?.id}'s tenant keys equal voter a's`);
  for (const v of cluster.voters) {
    const names = readdirSync(join(v.dataDir, "keys")).filter((n) => n.startsWith("tenant-acme."));
    assert.deepEqual(names.sort(), ["tenant-acme.jwk", "tenant-acme.retired-1.jwk"], `voter ${v.id} holds acme's current and retired keys`);
    const key = await loadKeyFile(join(v.dataDir, "keys", "tenant-acme.jwk"));
    assert.ok(key.ok && key.value.did === acmeDid, `voter ${v.id}'s key file of acme is its rotated did`);
    assert.equal(tenantDid(v.dataDir, "acme"), acmeDid, `voter ${v.id}'s store names the rotated did`);
  }
  // The counts add up: every accepted Increment counted once, on every voter, read linearizably.
  const total = receipts.filter((s) => s.path.endsWith("/Increment") && s.receipt?.outcome === "accepted").length;
  const counts = await Promise.all(cluster.voters.map(async (v) => {
    let sum = 0;
    for (let i = 0; i < SUBJECTS; i++) {
      const read = () => fetch(`${v.url}/v1/acme/${NS}/records/Tally/t${i}`, { headers: { authorization: `Bearer ${signBearer(owner, { tenant: "acme", namespace: NS, now: Date.now() })}` } });
      // A pooled keep-alive connection the server closed for idleness just as it was reused fails
      // once with "other side closed"; a read may be sent again. A second failure is reported with
      // the voter's log.
      const r = await read().catch(async (error: unknown) => {
        await sleep(200);
        return read().catch((again: unknown) => assert.fail(`reading t${i} from ${v.id} failed twice (${String(error)}; ${String(again)}):\n${cluster.tail(v.id)}`));
      });
      assert.equal(r.status, 200);
      sum += ((await r.json()) as { state: { count: number } }).state.count;
    }
    return sum;
  }));
  assert.deepEqual(counts, cluster.voters.map(() => total), "each voter's counters sum to the accepted Increments");
  t.diagnostic(`${receipts.length} receipts in all; applied index ${applied} on every voter; ${Object.keys(digests[0] ?? {}).length} tables equal`);
}

/** The did a voter's store names for `tenant`. */
function tenantDid(dataDir: string, tenant: string): string | undefined {
  const db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
  try {
    return (db.prepare("SELECT did FROM tenants WHERE handle = ?").get(tenant) as { did: string } | undefined)?.did;
  } finally {
    db.close();
  }
}

/** How many snapshots voter `id` installed from a leader in its latest incarnation. */
function snapshotInstalls(id: string): number {
  const out = cluster.voter(id).output;
  return out.slice(out.lastIndexOf("--- start")).split("installed a snapshot from the leader").length - 1;
}

test("a read asking for a consistency that does not exist is a 400 naming the two there are; the read headers say how fresh", async () => {
  const bearer = () => `Bearer ${signBearer(owner, { tenant: "acme", namespace: NS, now: Date.now() })}`;
  const v = cluster.voters[0] as (typeof cluster.voters)[number];
  const bad = await fetch(`${v.url}/v1/acme/${NS}/records/Tally/t0?consistency=eventual`, { headers: { authorization: bearer() } });
  assert.equal(bad.status, 400);
  const body = (await bad.json()) as { type: string; detail: string };
  assert.match(body.type, /bad-consistency/);
  assert.match(body.detail, /'strong'.*'local'.*not 'eventual'/);
  for (const consistency of ["strong", "local"]) {
    const r = await fetch(`${v.url}/v1/acme/${NS}/records/Tally/t0?consistency=${consistency}`, { headers: { authorization: bearer() } });
    assert.ok(r.status === 200 || r.status === 404, `a ${consistency} read answers (${r.status})`);
    assert.equal(r.headers.get("charter-consistency"), consistency);
    assert.match(r.headers.get("charter-applied-index") ?? "", /^\d+$/);
    assert.equal(r.headers.has("charter-staleness-ms"), consistency === "local");
  }
});

for (let round = 1; round <= ROUNDS; round++) {
  const r = ROUNDS > 1 ? ` (round ${round})` : "";

  test(`(a) kill -9 of the leader under load: a new leader serves; receipts are history on all three; states equal${r}`, async (t) => {
    // A scenario starts on a healthy cluster (the one before may have left it catching up).
    await cluster.converged(60_000);
    const load = new Load(CLIENTS);
    t.after(() => load.abort());
    await sleep(PHASE_MS);
    const old = await cluster.leader();
    const t0 = Date.now();
    await cluster.kill(old);
    const killedMs = Date.now() - t0;
    const next = await cluster.leader({ not: old, timeoutMs: 20_000 });
    const electedMs = Date.now() - t0;
    const servedMs = await probe(next, t0);
    await sleep(PHASE_MS);
    await cluster.restart(old);
    await sleep(PHASE_MS);
    const sent = await load.stop();
    t.diagnostic(`killed leader ${old} (tree gone in ${killedMs} ms); ${next} led, per /health, ${electedMs} ms after the kill and gave a receipt to a command sent to it ${servedMs} ms after the kill; ${loadFigures(sent, t0)}; restarted ${old} installed ${snapshotInstalls(old)} snapshot(s)`);
    await checkVoters(t, sent);
  });

  test(`(b) kill -9 of a follower under load: the leader goes on; receipts are history on all three; states equal${r}`, async (t) => {
    // A scenario starts on a healthy cluster (the one before may have left it catching up).
    await cluster.converged(60_000);
    const load = new Load(CLIENTS);
    t.after(() => load.abort());
    await sleep(PHASE_MS);
    const leader = await cluster.leader();
    const follower = cluster.voters.find((v) => v.id !== leader)?.id as string;
    const t0 = Date.now();
    await cluster.kill(follower);
    const servedMs = await probe(leader, t0);
    await sleep(PHASE_MS);
    const leaderAfter = await cluster.leader();
    await cluster.restart(follower);
    await sleep(PHASE_MS);
    const sent = await load.stop();
    t.diagnostic(`killed follower ${follower} of ${leader}; ${leader} gave a receipt ${servedMs} ms after the kill; leader afterwards ${leaderAfter}; ${loadFigures(sent, t0)}; restarted ${follower} installed ${snapshotInstalls(follower)} snapshot(s)`);
    await checkVoters(t, sent);
  });

  test(`(c) the leader cut off by the proxies: a new leader, the old one steps down and catches up once healed${r}`, async (t) => {
    // A scenario starts on a healthy cluster (the one before may have left it catching up).
    await cluster.converged(60_000);
    const load = new Load(CLIENTS);
    t.after(() => load.abort());
    await sleep(PHASE_MS);
    const old = await cluster.leader();
    const t0 = Date.now();
    cluster.isolate(old);
    // A linearizable read at the cut-off voter must not be served from its state (it cannot confirm it leads).
    const strongRead = fetch(`${cluster.voter(old).url}/v1/acme/${NS}/records/Tally/t0`, {
      headers: { authorization: `Bearer ${signBearer(owner, { tenant: "acme", namespace: NS, now: Date.now() })}` },
      signal: AbortSignal.timeout(15_000),
    }).then((x) => x.status, (e: Error) => e.name);
    const next = await cluster.leader({ not: old, timeoutMs: 20_000 });
    const electedMs = Date.now() - t0;
    const servedMs = await probe(next, t0);
    let stepDownMs: number | null = null;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const c = await cluster.consensus(old);
      if (c !== null && c.role !== "leader") {
        stepDownMs = Date.now() - t0;
        break;
      }
      await sleep(25);
    }
    assert.notEqual(stepDownMs, null, `the cut-off leader ${old} stepped down (check-quorum)`);
    const local = await fetch(`${cluster.voter(old).url}/v1/acme/${NS}/records/Tally/t0?consistency=local`, {
      headers: { authorization: `Bearer ${signBearer(owner, { tenant: "acme", namespace: NS, now: Date.now() })}` },
    });
    assert.equal(local.status, 200, "a local read is served by the cut-off voter");
    assert.equal(local.headers.get("charter-consistency"), "local");
    const staleness = local.headers.get("charter-staleness-ms");
    await sleep(PHASE_MS);
    const strong = await strongRead;
    assert.notEqual(strong, 200, "the cut-off voter did not answer a linearizable read");
    const healAt = Date.now();
    cluster.heal();
    let rejoinMs: number | null = null;
    while (Date.now() < healAt + 20_000) {
      const c = await cluster.consensus(old);
      if (c !== null && c.leader === next && c.role === "follower") {
        rejoinMs = Date.now() - healAt;
        break;
      }
      await sleep(25);
    }
    assert.notEqual(rejoinMs, null, `${old} follows ${next} after healing`);
    await sleep(PHASE_MS);
    const sent = await load.stop();
    t.diagnostic(`cut off leader ${old}: ${next} led ${electedMs} ms later and gave a receipt ${servedMs} ms after the cut; ${old} stepped down after ${stepDownMs} ms; its local read said staleness ${staleness} ms; its strong read answered ${strong}; after healing it followed ${next} in ${rejoinMs} ms; ${loadFigures(sent, t0)}`);
    await checkVoters(t, sent);
  });

  test(`(d) a voter restarted on an empty data directory (same key) catches up by snapshot${r}`, async (t) => {
    // A scenario starts on a healthy cluster (the one before may have left it catching up).
    await cluster.converged(60_000);
    const load = new Load(CLIENTS);
    t.after(() => load.abort());
    // The leader must have compacted its log, so the empty voter cannot be sent entries from 1.
    const started = Date.now();
    for (;;) {
      const c = await cluster.consensus(await cluster.leader());
      if (c !== null && c.snapshotIndex > 0 && Date.now() - started >= PHASE_MS) break;
      assert.ok(Date.now() < started + 60_000, "the leader took a snapshot");
      await sleep(100);
    }
    const leader = await cluster.leader();
    const victim = cluster.voters.filter((v) => v.id !== leader)[round % 2]?.id as string;
    await cluster.kill(victim);
    await sleep(PHASE_MS / 2);
    const marks = cluster.voters.map((v) => v.output.length);
    const t0 = Date.now();
    await cluster.restart(victim, { emptyDataDir: true });
    let caughtUpMs: number | null = null;
    while (Date.now() < t0 + 90_000) {
      const s = await cluster.statuses();
      const c = s.get(victim);
      const l = [...s.values()].find((x) => x?.role === "leader");
      if (c && l && !c.recovering && c.snapshotIndex > 0 && c.appliedIndex >= l.snapshotIndex) {
        caughtUpMs = Date.now() - t0;
        break;
      }
      await sleep(50);
    }
    // How many images the leaders made and sent it meanwhile (each a full copy of the store).
    const sends = cluster.voters.map((v, i) => v.output.slice(marks[i]).split("\n").filter((line) => line.includes("sent a snapshot to a voter") && line.includes(`to=${victim} `))).flat();
    const bytes = sends.map((line) => Number(/bytes=(\d+)/.exec(line)?.[1] ?? 0));
    t.diagnostic(`${sends.length} snapshot image(s) sent to ${victim} while it caught up (${Math.round(Math.max(0, ...bytes) / 1e6)} MB each, ${Math.round(bytes.reduce((a, b) => a + b, 0) / 1e6)} MB in all)`);
    assert.notEqual(caughtUpMs, null, `${victim} caught up within 90 s:\n${cluster.tail(victim)}`);
    await sleep(PHASE_MS);
    const sent = await load.stop();
    await cluster.converged();
    assert.ok(snapshotInstalls(victim) >= 1, `${victim} logged "installed a snapshot from the leader":\n${cluster.tail(victim)}`);
    const c = await cluster.consensus(victim);
    assert.ok(c !== null && c.snapshotIndex > 0, `${victim}'s /health shows a snapshot index`);
    t.diagnostic(`${victim} wiped (key kept) and restarted: caught up past the leader's snapshot in ${caughtUpMs} ms (from the start of its process); its snapshot index ${c.snapshotIndex}`);
    await checkVoters(t, sent);
  });
}
