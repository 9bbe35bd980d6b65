import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { type LogEntry, type Message, raftConfig, type Snapshot } from "../raft/index.ts";
import { RaftStorage } from "./raft-storage.ts";
import { type ProposeResult, RaftRuntime, type StateMachine } from "./runtime.ts";

const dir = mkdtempSync(join(tmpdir(), "charter-raft-runtime-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const quiet = { info() {}, warn() {}, error() {} };

/** A key-value state machine whose "store" survives restarts of its runtime. */
class Machine implements StateMachine {
  applied = 0;
  values: string[] = [];
  installs = 0;
  appliedIndex(): number {
    return this.applied;
  }
  async apply(entry: LogEntry): Promise<void> {
    assert.equal(entry.index, this.applied + 1, "entries are applied once each, in order, with no gap");
    if (entry.type === "command") this.values.push(entry.data);
    this.applied = entry.index;
  }
  sync(): void {}
  async makeImage(): Promise<Uint8Array> {
    return Buffer.from(JSON.stringify({ applied: this.applied, values: this.values }));
  }
  async installImage(image: Uint8Array, snapshot: Snapshot): Promise<void> {
    const { applied, values } = JSON.parse(Buffer.from(image).toString("utf8")) as { applied: number; values: string[] };
    assert.ok(applied >= snapshot.lastIndex);
    this.applied = applied;
    this.values = values;
    this.installs++;
  }
}

interface Voter {
  readonly id: string;
  readonly machine: Machine;
  runtime: RaftRuntime;
  cut: boolean;
}

function cluster(name: string, snapshotEvery = 1000): Voter[] {
  const ids = ["a", "b", "c"];
  const voters: Voter[] = [];
  const make = (id: string, machine: Machine): RaftRuntime =>
    new RaftRuntime({
      config: raftConfig(id, ids, { electionTicks: 10, heartbeatTicks: 2 }),
      storage: new RaftStorage(join(dir, `${name}-${id}.db`)),
      machine,
      links: {
        send(to, body, attachment) {
          const from = voters.find((v) => v.id === id) as Voter;
          const target = voters.find((v) => v.id === to) as Voter;
          if (from.cut || target.cut) return false;
          setImmediate(() => {
            if (from.cut || target.cut) return;
            const m = body as Message;
            if (attachment !== undefined) target.runtime.receiveSnapshot(m, attachment);
            else target.runtime.receive(m);
          });
          return true;
        },
        lastContact: () => null,
      },
      tickMs: 5,
      snapshotEvery,
      snapshotKeep: 3,
      recovering: false,
      log: quiet,
      onFatal: (error) => assert.fail(error),
    });
  for (const id of ids) {
    const machine = new Machine();
    voters.push({ id, machine, runtime: make(id, machine), cut: false });
  }
  for (const v of voters) v.runtime.start();
  return voters;
}

async function until<T>(what: string, check: () => T | undefined | false): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const leaderOf = (voters: Voter[]) => until("a leader", () => voters.find((v) => !v.cut && v.runtime.isLeader));
const propose = (v: Voter, data: string) => new Promise<ProposeResult>((resolve) => v.runtime.propose(data, resolve));

test("three runtimes elect a leader, replicate proposals to every machine in order, and refuse proposals on followers", async () => {
  const voters = cluster("basic");
  try {
    const leader = await leaderOf(voters);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => propose(leader, `v${i}`)));
    assert.ok(results.every((r) => r.ok));
    const last = Math.max(...results.map((r) => (r.ok ? r.index : 0)));
    await until("every machine applied", () => voters.every((v) => v.machine.applied >= last));
    for (const v of voters) assert.deepEqual(v.machine.values, Array.from({ length: 50 }, (_, i) => `v${i}`));
    const follower = voters.find((v) => v !== leader) as Voter;
    const refused = await propose(follower, "x");
    assert.deepEqual(refused, { ok: false, leader: leader.id });
    const read = await leader.runtime.readIndex();
    assert.ok(read.ok && read.index >= last);
  } finally {
    for (const v of voters) await v.runtime.stop();
  }
});

test("a voter cut off while the log is compacted catches up by snapshot, and a cut-off leader is replaced", async () => {
  const voters = cluster("snapshot", 10);
  try {
    const leader = await leaderOf(voters);
    const lagging = voters.find((v) => v !== leader) as Voter;
    lagging.cut = true;
    for (let i = 0; i < 40; i++) assert.ok((await propose(leader, `w${i}`)).ok);
    await until("the leader compacted its log", () => leader.runtime.status().snapshotIndex > 0);
    lagging.cut = false;
    await until("the lagging voter caught up", () => lagging.machine.applied >= leader.machine.applied && leader.machine.applied > 0);
    assert.ok(lagging.machine.installs > 0, "it was sent a snapshot");
    assert.deepEqual(lagging.machine.values, leader.machine.values);

    // The leader is cut off: the other two elect one of themselves, and proposals go on there.
    leader.cut = true;
    const next = await until("a new leader", () => voters.find((v) => v !== leader && v.runtime.isLeader));
    assert.ok((await propose(next, "after")).ok);
    leader.cut = false;
    await until("the old leader follows, and every voter has the new entry", () => !leader.runtime.isLeader && voters.every((v) => v.machine.values.at(-1) === "after"));
    for (const v of voters) assert.deepEqual(v.machine.values, next.machine.values);
  } finally {
    for (const v of voters) await v.runtime.stop();
  }
});
