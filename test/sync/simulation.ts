/**
 * @module A deterministic simulation of a person's devices syncing (issue: "convergence is a
 * property"). Each device is a real engine store in memory — migrated, the tenant made, a contract
 * installed — with the engine's own write path (CommandProcessor, stamping) and sync (SyncEngine);
 * only the network is simulated. Devices make random commands on a few shared records while
 * partitioned, exchange what the other lacks when they can reach each other (sometimes only part
 * of it, sometimes with entries lost on the way), and at the end every partition heals. Then:
 *
 * - every device holds the same commands with the same outcomes (the same history set);
 * - every record's state, and its digest, is the same on every device, and equals a fold of every
 *   command in the merged order from nothing (the incremental merges took no short cut that a
 *   full replay would not);
 * - no command is recorded twice, and every history entry's latest outcome is the one synced;
 * - no refusal is lost: a command refused where it was made is refused everywhere, with its reason.
 */
import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { compileContract } from "../../contracts/compile.ts";
import type { State } from "../../contracts/runtime/index.ts";
import { keyPairFromSeed, type KeyPair, signCommand } from "../../shared/identity/index.ts";
import type { SubmittedCommand } from "../../shared/protocol/engine.ts";
import { Random } from "../../shared/random.ts";
import { migrate } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { rolesOf, tenantExists } from "../../shared/store/roles.ts";
import { stateDigest } from "../../shared/store/state-digest.ts";
import { jwsDigest, compareEntries, EntryReader, type SyncEntry, verifyEntry, type VerifiedEntry } from "../../shared/devices/entries.ts";
import { ArtifactCache } from "../../workers/engine/artifact-cache.ts";
import { CommandProcessor } from "../../workers/engine/commands.ts";
import { runGroups } from "../../workers/engine/executor/run-groups.ts";
import { installArtifact } from "../../workers/engine/install.ts";
import { SyncEngine } from "../../workers/engine/merge/sync-engine.ts";
import { addRole } from "../../workers/engine/tenants.ts";

export const TENANT = "ada";
export const NS = "sim.boxes";

/** The contract the devices use: every merge mode, conditions that a merge can break. */
export const SOURCE = `# sim.boxes

\`\`\`charter
namespace sim.boxes
version 1.0.0

aggregate Box {
  public n: Int = 0
  public hits: Int = 0
  public label: Text(len=20)
  public closed: Bool = false

  action Add(k: Int) api authenticated {
    authorize owner
    validate {
      not state.closed
      k > 0
      state.n + k <= 12
    }
    apply {
      state.n = state.n + k
    }
  }

  action Take(k: Int) api authenticated {
    authorize owner
    validate {
      k > 0
      k <= state.n
    }
    apply {
      state.n = state.n - k
    }
  }

  action Label(text: Text(len=20)) api authenticated {
    authorize owner
    merge reject
    apply {
      state.label = text
    }
  }

  action Close() api authenticated {
    authorize owner
    validate {
      not state.closed
    }
    apply {
      state.closed = true
    }
  }

  action Reopen() api authenticated {
    authorize owner
    validate {
      state.closed
    }
    apply {
      state.closed = false
    }
  }

  action Hit() api authenticated {
    authorize owner
    merge commute
    apply {
      state.hits = state.hits + 1
    }
  }
}
\`\`\`
`;

let compiled: { id: string; schemaJson: string; wasm: Uint8Array } | null = null;
function artifact(): { id: string; schemaJson: string; wasm: Uint8Array } {
  if (compiled === null) {
    const a = compileContract(SOURCE).artifact;
    if (a === undefined) throw new Error("the simulation's contract does not compile");
    compiled = { id: a.id, schemaJson: new TextDecoder().decode(a.schemaBytes), wasm: a.wasm };
  }
  return compiled;
}

const EPOCH = Date.parse("2026-11-28T10:00:00Z");

/** One device: its store, write path and sync. */
export class Device {
  readonly name: string;
  readonly db: DatabaseSync;
  readonly key: KeyPair;
  readonly commands: CommandProcessor;
  readonly sync: SyncEngine;
  readonly reader: EntryReader;
  readonly artifacts: ArtifactCache;
  #time: number;

  /** `path`: a store file (a benchmark's); in memory by default. */
  constructor(name: string, seed: number, person: KeyPair, path = ":memory:") {
    this.name = name;
    this.key = keyPairFromSeed(seedBytes(seed));
    this.#time = EPOCH;
    const db = openDatabase(path);
    migrate(db);
    this.db = db;
    db.prepare("INSERT INTO tenants (handle, did, created_at, created_by) VALUES (?, ?, ?, NULL)").run(TENANT, person.did, EPOCH);
    addRole(db, TENANT, person.did, "owner", EPOCH);
    const a = artifact();
    const installed = installArtifact(db, { tenant: TENANT, artifact: { ...a, source: SOURCE }, installedBy: person.did, now: EPOCH });
    if (!installed.ok) throw new Error(installed.error.message);
    const artifacts = new ArtifactCache(db);
    this.artifacts = artifacts;
    const executor = { run: async (groups: Parameters<typeof runGroups>[1]) => runGroups((id) => artifacts.get(id).program, groups) };
    const roles = (tenant: string, did: string, now: number) => (tenantExists(db, tenant) ? rolesOf(db, tenant, did, now) : null);
    let sync: SyncEngine | null = null;
    const clock = { now: () => this.#time };
    this.commands = new CommandProcessor({
      db,
      artifacts,
      executor,
      clock,
      nodeDid: this.key.did,
      roles,
      onCommitted: () => {},
      stamper: { stamp: (c) => sync?.log.stamp(c) ?? false, forget: () => sync?.log.forget() },
    });
    sync = new SyncEngine({ db, artifacts, executor, nodeKey: this.key, roles, exclusive: (fn) => this.commands.exclusive(fn) as never, now: clock.now, onCommitted: () => {} });
    this.sync = sync;
    db.exec("BEGIN");
    sync.log.enable(TENANT, EPOCH);
    db.exec("COMMIT");
    this.reader = new EntryReader(db);
  }

  tick(ms: number): void {
    this.#time += ms;
  }

  async submit(command: SubmittedCommand): Promise<void> {
    const answer = await this.commands.submit(command);
    assert.equal(answer.kind, "receipt", `${this.name}: ${JSON.stringify(answer)}`);
  }

  /** The records' states, by subject. */
  states(): Map<string, State> {
    const table = this.artifacts.active(TENANT, NS)?.tables.get("Box");
    const out = new Map<string, State>();
    for (const s of SUBJECTS) {
      const r = table?.read(TENANT, s);
      if (r) out.set(s, r.state);
    }
    return out;
  }
}

const SUBJECTS = ["b1", "b2", "b3"];

export function seedBytes(n: number): Uint8Array {
  const out = new Uint8Array(32);
  new DataView(out.buffer).setUint32(0, n >>> 0);
  new DataView(out.buffer).setUint32(4, 0x5eed);
  return out;
}

/** One way of one exchange: `from` sends what `to` lacks (maybe only part of it, maybe losing some). */
async function deliver(from: Device, to: Device, rnd: Random, faults: boolean): Promise<number> {
  const theirs = to.reader.versionVector(TENANT);
  const limit = faults && rnd.chance(0.3) ? 1 + rnd.int(4) : 500;
  let { entries } = from.reader.missing(TENANT, theirs, limit, 1 << 20);
  // Lost on the way: the receiver holds back what comes after a gap, and gets it again next time.
  if (faults && entries.length > 1 && rnd.chance(0.15)) entries = entries.filter((_, i) => i !== rnd.int(entries.length));
  if (entries.length === 0) return 0;
  const verified = entries.map((e) => {
    const v = verifyEntry(TENANT, e);
    assert.ok(v.ok, v.ok ? "" : v.error);
    return v.value;
  });
  const r = await to.sync.apply(TENANT, verified);
  return r.applied;
}

export interface SimOptions {
  readonly seed: number;
  /** Devices (2–4). */
  readonly devices?: number;
  readonly steps?: number;
  readonly trace?: (line: string) => void;
}

export interface SimResult {
  readonly commands: number;
  readonly refused: number;
  readonly conflicts: number;
  readonly redecided: number;
}

/** Runs one seed; throws (an assertion) when a property fails. */
export async function simulate(options: SimOptions): Promise<SimResult> {
  const rnd = new Random(options.seed * 7919 + 13);
  const n = options.devices ?? 2 + rnd.int(3);
  const person = keyPairFromSeed(seedBytes(1_000_000 + options.seed));
  const devices = Array.from({ length: n }, (_, i) => new Device(`d${i}`, options.seed * 10 + i, person));
  const steps = options.steps ?? 40 + rnd.int(60);
  // Which devices can reach each other now: a partition is a group label per device.
  let groups = devices.map(() => 0);
  let made = 0;
  const trace = options.trace ?? (() => {});
  const sync = async (a: Device, b: Device, faults: boolean) => {
    const x = await deliver(a, b, rnd, faults);
    const y = await deliver(b, a, rnd, faults);
    if (x + y > 0) trace(`sync ${a.name}<->${b.name}: ${x} / ${y}`);
  };
  for (let step = 0; step < steps; step++) {
    const roll = rnd.int(100);
    if (roll < 60) {
      const d = rnd.pick(devices);
      const subject = rnd.pick(SUBJECTS);
      const [action, args] = randomAction(rnd);
      made += 1;
      d.tick(1 + rnd.int(1000));
      const jws = signCommand(person, { tenant: TENANT, namespace: NS, action, subject, args, idempotencyKey: `k-${options.seed}-${made}`, issuedAt: new Date(EPOCH).toISOString() });
      trace(`${d.name}: ${action} ${subject} ${JSON.stringify(args)}`);
      await d.submit({ jws, digest: jwsDigest(jws), signer: person.did, payload: { tenant: TENANT, namespace: NS, action, subject, args, idempotencyKey: `k-${options.seed}-${made}`, issuedAt: new Date(EPOCH).toISOString() } });
    } else if (roll < 85) {
      const a = rnd.pick(devices);
      const b = rnd.pick(devices);
      if (a !== b && groups[devices.indexOf(a)] === groups[devices.indexOf(b)]) await sync(a, b, true);
    } else {
      groups = devices.map(() => rnd.int(2));
      trace(`partition ${groups.join("")}`);
    }
  }
  // Every partition heals; devices exchange until nothing is missing anywhere.
  for (let round = 0; round < 6; round++) for (const a of devices) for (const b of devices) if (a !== b) await sync(a, b, false);
  const result = check(devices, person);
  assert.equal(result.commands, made, "every command made on any device is on every device");
  return result;
}

function randomAction(rnd: Random): [string, Record<string, unknown>] {
  switch (rnd.int(7)) {
    case 0:
    case 1:
      return ["Add", { k: 1 + rnd.int(5) }];
    case 2:
      return ["Take", { k: 1 + rnd.int(4) }];
    case 3:
      return ["Label", { text: `l${rnd.int(100)}` }];
    case 4:
      return ["Close", {}];
    case 5:
      return ["Reopen", {}];
    default:
      return ["Hit", {}];
  }
}

interface Row {
  origin: string;
  oseq: number;
  digest: string;
  first_outcome: string;
  first_reason: string | null;
  outcome: string;
  reason: string | null;
  seq: number;
}

function check(devices: readonly Device[], person: KeyPair): SimResult {
  const rowsOf = (d: Device) => d.db.prepare("SELECT origin, oseq, digest, first_outcome, first_reason, outcome, reason, seq FROM sync_entries WHERE tenant = ? ORDER BY lamport, origin, oseq").all(TENANT) as unknown as Row[];
  const reference = rowsOf(devices[0] as Device);
  const strip = (rows: Row[]) => rows.map(({ seq: _seq, ...rest }) => rest);
  for (const d of devices) {
    const rows = rowsOf(d);
    assert.deepEqual(strip(rows), strip(reference), `${d.name} holds the same commands with the same outcomes as d0`);
    assert.equal(new Set(rows.map((r) => r.digest)).size, rows.length, `${d.name}: no command recorded twice`);
    for (const r of rows) {
      // No refusal lost: refused where it was made, refused everywhere with that reason.
      if (r.first_outcome === "refused") assert.deepEqual([r.outcome, r.reason], ["refused", r.first_reason], `${d.name}: a refusal made at its origin stays`);
      // The history entry the sync log points at is this command's latest decision, with the same outcome.
      const h = d.db.prepare("SELECT outcome, reason, command FROM history WHERE seq = ?").get(r.seq) as { outcome: string; reason: string | null; command: string };
      assert.equal(jwsDigest(h.command), r.digest);
      assert.deepEqual([h.outcome, h.reason], [r.outcome, r.reason], `${d.name}: history says what the sync log says`);
      const latest = d.db.prepare("SELECT max(seq) AS seq FROM history WHERE command = (SELECT command FROM history WHERE seq = ?)").get(r.seq) as { seq: number };
      assert.equal(Number(latest.seq), Number(r.seq), `${d.name}: the latest history entry of a command is the one the sync log names`);
    }
    // Every open conflict is a refused merge-reject command.
    for (const c of d.db.prepare("SELECT id FROM sync_conflicts").all() as { id: string }[]) {
      const row = rows.find((r) => r.digest === c.id);
      assert.ok(row !== undefined && row.outcome === "refused" && (row.reason ?? "").includes("merge_conflict"), `${d.name}: conflict ${c.id} is a refused command`);
    }
  }
  const conflicts = (d: Device) => (d.db.prepare("SELECT id, against FROM sync_conflicts ORDER BY id").all() as { id: string; against: string }[]).map((c) => `${c.id}/${c.against}`);
  for (const d of devices) assert.deepEqual(conflicts(d), conflicts(devices[0] as Device), `${d.name} holds the same conflicts`);
  const fields = (devices[0] as Device).artifacts.active(TENANT, NS)?.schema.aggregates.Box?.fields ?? [];
  const expected = replayAll(devices[0] as Device);
  for (const d of devices) {
    const states = d.states();
    for (const s of SUBJECTS) {
      const got = states.get(s);
      const want = expected.get(s);
      assert.equal(got === undefined ? null : stateDigest(fields, got), want === undefined ? null : stateDigest(fields, want), `${d.name}: ${s}'s state digest equals a replay of every command in the merged order`);
    }
  }
  void person;
  const refused = reference.filter((r) => r.outcome === "refused").length;
  const redecided = (devices[0] as Device).db.prepare("SELECT count(*) AS n FROM history").get() as { n: number };
  return { commands: reference.length, refused, conflicts: conflicts(devices[0] as Device).length, redecided: Number(redecided.n) - reference.length };
}

/** Every record folded from nothing over every command in the merged order, with the sync log's outcomes. */
function replayAll(d: Device): Map<string, State> {
  const entries: SyncEntry[] = d.reader.missing(TENANT, {}, 1_000_000, Number.MAX_SAFE_INTEGER).entries;
  const program = d.artifacts.active(TENANT, NS)?.program;
  assert.ok(program);
  const out = new Map<string, State>();
  const outcomes = new Map((d.db.prepare("SELECT digest, outcome FROM sync_entries").all() as { digest: string; outcome: string }[]).map((r) => [r.digest, r.outcome]));
  for (const e of [...entries].sort(compareEntries)) {
    const v = verifyEntry(TENANT, e);
    assert.ok(v.ok);
    const entry: VerifiedEntry = v.value;
    const before: State = out.get(entry.payload.subject) ?? program.defaultState("Box");
    const outcome: ReturnType<typeof program.execute> | null = outcomes.get(entry.digest) === "accepted" ? program.execute(`Box.${entry.payload.action}`, { state: before, args: entry.payload.args, context: { signer: entry.signer, time: entry.time } }) : null;
    if (outcome !== null) {
      assert.equal(outcome.outcome, "accepted", `a command accepted in the merged order is accepted when replayed (${entry.payload.action})`);
      if (outcome.outcome === "accepted") out.set(entry.payload.subject, outcome.state);
    } else if (!out.has(entry.payload.subject)) {
      // A refused command never creates a record.
    }
  }
  return out;
}
