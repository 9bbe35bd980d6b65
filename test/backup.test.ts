/**
 * `charter backup` and `charter restore` against a real node: a backup taken while commands keep
 * arriving restores onto a new data directory on which a node starts, whose history replays to the
 * recorded state digests and holds every command acknowledged before the backup began; refusals
 * (a non-empty DEST, a tampered backup, a non-empty or running data directory); a filesystem
 * snapshot (files, `-wal` and `-shm`) taken while the node writes, the node killed at once; and a
 * personal node's account, library blobs and vault notes, backed up and restored.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { cpSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import type { KeyPair } from "../shared/identity/index.ts";
import { replayCheck } from "../shared/backup/replay-check.ts";
import { ApiClient, createAccount, printedSetupCode, signIn } from "./helpers/api-client.ts";
import { cleanup, lockOf, startCharter, stopCharter, tempDataDir, type Charter, waitFor } from "./helpers/charter-process.ts";
import { post, signed } from "./helpers/client.ts";
import { runCharter } from "./helpers/run-charter.ts";
import { example, seed, type Seeded } from "./helpers/seed.ts";

const dirs: string[] = [];
const temp = (prefix: string) => {
  const d = tempDataDir(prefix);
  dirs.push(d);
  return d;
};
after(() => dirs.forEach(cleanup));

let node: Charter;
let seeded: Seeded;

before(async () => {
  const dataDir = temp("charter-backup-src-");
  seeded = await seed(dataDir, { contracts: [example("counter.charter.md")], members: 2 });
  node = await startCharter({ dataDir });
});
after(async () => {
  if (node.child.exitCode === null) await stopCharter(node);
});

/** Sends one Increment as `me`; answers its receipt's seq (retrying a dropped connection). */
async function increment(base: string, me: KeyPair, subject: string): Promise<number> {
  const jws = signed(me, { namespace: "acme.counter", action: "Increment", subject });
  for (let attempt = 0; ; attempt++) {
    const r = await post(`${base}/v1/acme/acme.counter/actions/Increment`, JSON.stringify({ command: jws })).catch(() => null);
    if (r !== null && r.status === 200) return r.body.receipt.seq as number;
    if (attempt > 50) throw new Error(`the command was not acknowledged (${r?.status})`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Commands from every member, in a loop, until `stop` resolves; the seqs acknowledged, with when. */
function writeLoop(base: string, stop: Promise<void>): { acks: { seq: number; at: number }[]; done: Promise<void> } {
  const acks: { seq: number; at: number }[] = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  let n = 0;
  const client = async (me: KeyPair) => {
    while (!stopped) {
      const seq = await increment(base, me, `tally-${n++ % 30}`);
      acks.push({ seq, at: performance.now() });
    }
  };
  return { acks, done: Promise.all(seeded.members.map(client)).then(() => {}) };
}

function storeOf(dataDir: string): DatabaseSync {
  return new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
}

test("a backup taken under write load restores onto a new directory; the node starts, history replays, every acknowledged command is there", async () => {
  for (let i = 0; i < 200; i++) await increment(node.url, seeded.owner, `tally-${i % 30}`);
  let release!: () => void;
  const stop = new Promise<void>((r) => (release = r));
  const load = writeLoop(node.url, stop);
  // Writes are under way before the backup starts.
  while (load.acks.length < 50) await new Promise((r) => setTimeout(r, 10));
  const dest = join(temp("charter-backup-dest-"), "b1");
  const began = performance.now();
  const ackedBefore = Math.max(...load.acks.filter((a) => a.at <= began).map((a) => a.seq));
  const backup = await runCharter(["backup", dest, "--data", node.dataDir]);
  const ended = performance.now();
  const duringBackup = load.acks.filter((a) => a.at > began && a.at < ended).length;
  release();
  await load.done;
  assert.equal(backup.code, 0, backup.stderr);
  assert.match(backup.stdout, /^backup .*: \d+ files, .* history to seq \d+, schema \d+, online, .* replayed\n$/);
  assert.ok(duringBackup > 0, "commands were acknowledged while the backup ran");

  const manifest = JSON.parse(readFileSync(join(dest, "backup.json"), "utf8"));
  assert.ok(manifest.historySeq >= ackedBefore, `the backup holds history up to ${manifest.historySeq}, at least ${ackedBefore}`);
  const paths = manifest.files.map((f: { path: string }) => f.path);
  for (const p of ["charter.db", "node-key.jwk", "keys/tenant-acme.jwk"]) assert.ok(paths.includes(p), `${p} is backed up`);
  assert.ok(!paths.some((p: string) => /^(run|logs)\/|charter\.lock|admin\.sock|-wal$|-shm$/.test(p)), "nothing of the running tree is backed up");
  assert.equal(statSync(join(dest, "keys", "tenant-acme.jwk")).mode & 0o777, 0o600);
  assert.ok(!readdirSync(join(dest, "..")).some((n) => n.endsWith(".partial")), "no partial backup is left");

  const restored = join(temp("charter-restore-"), "data");
  const r = await runCharter(["restore", dest, "--data", restored]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(statSync(restored).mode & 0o777, 0o700);
  assert.equal(statSync(join(restored, "node-key.jwk")).mode & 0o777, 0o600);

  // Every command acknowledged before the backup began is in the restored history.
  const db = storeOf(restored);
  const seqs = new Set((db.prepare("SELECT seq FROM history").all() as { seq: number }[]).map((row) => row.seq));
  for (const a of load.acks) if (a.at <= began) assert.ok(seqs.has(a.seq), `seq ${a.seq}, acknowledged before the backup, is restored`);
  assert.equal(Math.max(...seqs), manifest.historySeq);
  // Its whole history replays to the recorded digests and the stored records.
  const replay = replayCheck(db, { subjects: 10_000, entriesPerSubject: 100_000 });
  db.close();
  assert.deepEqual(replay, { ok: true, subjects: 30, entries: seqs.size });

  // A node starts on it, with the same identity, and takes new commands after the restored ones.
  const again = await startCharter({ dataDir: restored });
  try {
    const identity = async (url: string) => (await (await fetch(`${url}/.well-known/charter.json`)).json()).identity;
    assert.equal(await identity(again.url), await identity(node.url));
    const seq = await increment(again.url, seeded.owner, "tally-0");
    assert.equal(seq, manifest.historySeq + 1);
  } finally {
    await stopCharter(again);
  }
});

test("a backup into a non-empty DEST is refused, and nothing is written", async () => {
  const dest = temp("charter-backup-full-");
  writeFileSync(join(dest, "keep.txt"), "mine");
  const r = await runCharter(["backup", dest, "--data", node.dataDir]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^charter backup: .* is not empty; a backup goes into a new or empty directory\n$/);
  assert.deepEqual(readdirSync(dest), ["keep.txt"]);
  const none = await runCharter(["backup", join(dest, "x"), "--data", join(dest, "nothing-here")]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /holds no store \(charter\.db\)/);
});

test("restore refuses a tampered backup, a non-empty directory and a running node; it restores a backup of a stopped node", async () => {
  const dest = join(temp("charter-backup-t-"), "b");
  const b = await runCharter(["backup", dest, "--data", node.dataDir]);
  assert.equal(b.code, 0, b.stderr);

  // Tampered: one byte of the node key changed, size kept.
  const tampered = join(temp("charter-backup-tampered-"), "b");
  cpSync(dest, tampered, { recursive: true });
  const key = join(tampered, "node-key.jwk");
  const bytes = readFileSync(key);
  bytes[10] = bytes[10] === 0x41 ? 0x42 : 0x41;
  writeFileSync(key, bytes);
  const target = join(temp("charter-restore-t-"), "data");
  const t = await runCharter(["restore", tampered, "--data", target]);
  assert.equal(t.code, 1);
  assert.match(t.stderr, /node-key\.jwk in the backup .* does not match its SHA-256 in the manifest/);
  assert.deepEqual(readdirSync(join(target, "..")), [], "nothing was written");

  // Not empty.
  const full = temp("charter-restore-full-");
  writeFileSync(join(full, "notes.txt"), "x");
  const f = await runCharter(["restore", dest, "--data", full]);
  assert.equal(f.code, 1);
  assert.match(f.stderr, /is not empty .*restore onto an empty or new directory/);
  assert.deepEqual(readdirSync(full), ["notes.txt"]);

  // A node running on it.
  const running = await runCharter(["restore", dest, "--data", node.dataDir]);
  assert.equal(running.code, 1);
  assert.match(running.stderr, /a node is running on .* \(pid \d+\)/);

  // A backup of a stopped node is taken offline, and leaves no -wal or -shm behind.
  await stopCharter(node);
  const before = readdirSync(node.dataDir).sort();
  const offline = join(temp("charter-backup-off-"), "b");
  const o = await runCharter(["backup", offline, "--data", node.dataDir]);
  assert.equal(o.code, 0, o.stderr);
  assert.match(o.stdout, /node stopped/);
  assert.deepEqual(readdirSync(node.dataDir).sort(), before);
  const restored = join(temp("charter-restore-off-"), "data");
  assert.equal((await runCharter(["restore", offline, "--data", restored])).code, 0);
  const again = await startCharter({ dataDir: restored });
  await stopCharter(again);
  node = await startCharter({ dataDir: node.dataDir });
});

test("a filesystem snapshot taken while the node writes, the node killed at once, is a data directory a node starts on", async () => {
  let release!: () => void;
  const stop = new Promise<void>((r) => (release = r));
  const load = writeLoop(node.url, stop);
  while (load.acks.length < 100) await new Promise((r) => setTimeout(r, 10));
  // The snapshot: every file as it is at one instant, -wal and -shm included. A filesystem
  // snapshot is atomic; a copy file by file is not, so the tree is frozen (SIGSTOP) for the copy —
  // caught mid-write, as a snapshot catches it — and killed at once afterwards, never resumed.
  const lock = lockOf(node.dataDir);
  const pids = [lock.pid, ...Object.values(lock.workers)];
  for (const pid of pids) process.kill(pid, "SIGSTOP");
  const snapshot = join(temp("charter-snapshot-"), "data");
  cpSync(node.dataDir, snapshot, { recursive: true, filter: (path) => !lstatSync(path).isSocket() });
  for (const pid of pids) process.kill(pid, "SIGKILL");
  release();
  await load.done.catch(() => {});
  await node.exited;
  assert.ok(readdirSync(snapshot).includes("charter.db-wal"), "the snapshot holds the store's WAL");
  const again = await startCharter({ dataDir: snapshot });
  try {
    const seq = await increment(again.url, seeded.owner, "tally-1");
    assert.ok(seq > 1);
  } finally {
    await stopCharter(again);
  }
  const db = storeOf(snapshot);
  const replay = replayCheck(db, { subjects: 10_000, entriesPerSubject: 100_000 });
  const count = (db.prepare("SELECT count(*) AS n FROM history").get() as { n: number }).n;
  db.close();
  assert.equal(replay.ok, true, JSON.stringify(replay));
  assert.ok(replay.ok && replay.entries === count, "every entry of the snapshot's history replays");
});

test("a personal node's backup holds its account, library blobs and vault notes; restored, the person signs in and finds them", async () => {
  const personal = await startCharter({ edition: "node" });
  const api = new ApiClient(personal);
  const { cookie, auth } = await createAccount(api, printedSetupCode(personal));
  await waitFor("std.library in the personal tenant", async () => ((await api.call("GET", "/api/library", { cookie })).status === 200 ? true : undefined), 20_000);
  const bytes = randomBytes(300_000);
  const up = await fetch(`${personal.url}/api/library?name=kept.bin`, { method: "POST", headers: { cookie, origin: api.origin, "content-type": "application/octet-stream" }, body: bytes });
  assert.equal(up.status, 201);
  const file = (await up.json()) as { id: string; sha256: string };
  mkdirSync(join(personal.dataDir, "vaults", "personal"), { recursive: true });
  writeFileSync(join(personal.dataDir, "vaults", "personal", "kept-note.md"), "# Kept\n\nA note that outlives the machine.\n");
  mkdirSync(join(personal.dataDir, "blobs", "tmp"), { recursive: true });
  writeFileSync(join(personal.dataDir, "blobs", "tmp", "upload.part"), "in progress");

  const dest = join(temp("charter-backup-node-"), "b");
  const b = await runCharter(["backup", dest, "--data", personal.dataDir]);
  await stopCharter(personal);
  assert.equal(b.code, 0, b.stderr);
  const paths: string[] = JSON.parse(readFileSync(join(dest, "backup.json"), "utf8")).files.map((f: { path: string }) => f.path);
  for (const p of ["charter.db", "accounts.db", "node-key.jwk", "keys/account-kek", `blobs/${file.sha256.slice(0, 2)}/${file.sha256}`, "vaults/personal/kept-note.md"]) assert.ok(paths.includes(p), `${p} is backed up`);
  assert.ok(!paths.some((p) => p.startsWith("blobs/tmp/") || p.startsWith("knowledge/") || p.startsWith("logs/") || p.startsWith("run/")), paths.join(" "));

  const restored = join(temp("charter-restore-node-"), "data");
  assert.equal((await runCharter(["restore", dest, "--data", restored])).code, 0);
  const again = await startCharter({ edition: "node", dataDir: restored });
  try {
    const api2 = new ApiClient(again);
    assert.doesNotMatch(again.stdout, /set-up code/, "the restored node is set up already");
    const cookie2 = await signIn(api2, auth);
    const content = await fetch(`${again.url}/api/library/${file.id}/content`, { headers: { cookie: cookie2 } });
    assert.equal(content.status, 200);
    assert.deepEqual(Buffer.from(await content.arrayBuffer()), bytes);
    assert.equal(readFileSync(join(restored, "vaults", "personal", "kept-note.md"), "utf8"), "# Kept\n\nA note that outlives the machine.\n");
  } finally {
    await stopCharter(again);
    cleanup(personal.dataDir);
  }
});
