/**
 * The Connect view's paired devices and exchange relationships: read from `sync.db`, `charter.db`
 * and `accounts.db` as the workers write them, without creating or changing a file; a missing
 * file or table is none; the view lists them with their state and filters by kind.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, test } from "node:test";
import { openDatabase } from "../shared/store/open.ts";
import { ExchangeStore } from "../workers/gateway/api/exchange/exchange-store.ts";
import { PeerStore } from "../workers/sync/peer-store.ts";
import { clusterFrom, connectTargets, probed } from "./cluster.ts";
import { parseFilter } from "./filter.ts";
import { LiveSource } from "./live-source.ts";
import { noPeers, readPeers } from "./read-peers.ts";
import { asciiGlyphs } from "./terminal.ts";
import { connectModel } from "./views/connect.ts";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "charter-tui-peers-"));
  dirs.push(d);
  return d;
};

/** Every file in `dir` with its size and mtime: what must not change. */
const listing = (dir: string) =>
  readdirSync(dir)
    .sort()
    .map((n) => {
      const st = statSync(join(dir, n));
      return `${n} ${st.size} ${st.mtimeMs}`;
    });

const NOW = Date.UTC(2025, 10, 21, 12, 0, 0);
const PHONE = "did:key:z6MkPhone1111111111111111111111111111111111";
const HOME = "did:key:z6MkHome22222222222222222222222222222222222";
const OLD = "did:key:z6MkOld333333333333333333333333333333333333";
const BOB = "did:key:z6MkBob444444444444444444444444444444444444";

/** A data directory as the workers leave it: WAL databases, cleanly closed unless `keepOpen`. */
function prepare(dir: string, keepOpen = false): DatabaseSync[] {
  const sync = openDatabase(join(dir, "sync.db"));
  new PeerStore(sync);
  sync.prepare("INSERT INTO settings (key, value) VALUES ('tenant', 'acme')").run();
  const peer = sync.prepare("INSERT INTO peers (did, name, role, url, paired_at, revoked_at, last_contact, last_error, their_vv) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  peer.run(PHONE, "Ada's phone", "device", null, NOW - 3 * 86_400_000, null, NOW - 5 * 60_000, null, JSON.stringify({ [PHONE]: 7, [HOME]: 2 }));
  peer.run(HOME, "home", "home", "http://127.0.0.1:1", NOW - 2 * 86_400_000, null, null, "connect ECONNREFUSED", null);
  peer.run(OLD, "old laptop", "device", null, NOW - 9 * 86_400_000, NOW - 86_400_000, NOW - 86_400_000, null, JSON.stringify({ [HOME]: 9 }));
  const store = openDatabase(join(dir, "charter.db"));
  store.exec("CREATE TABLE sync_entries (tenant TEXT NOT NULL, origin TEXT NOT NULL, oseq INTEGER NOT NULL, PRIMARY KEY (tenant, origin, oseq))");
  const entry = store.prepare("INSERT INTO sync_entries (tenant, origin, oseq) VALUES (?, ?, ?)");
  for (let i = 1; i <= 5; i++) entry.run("acme", HOME, i);
  for (let i = 1; i <= 4; i++) entry.run("acme", PHONE, i);
  entry.run("other", HOME, 99);
  const accounts = openDatabase(join(dir, "accounts.db"));
  new ExchangeStore(accounts);
  accounts.prepare("INSERT INTO exchange_relationships (id, did, url, name, added_at, last_contact, last_error) VALUES (?, ?, ?, ?, ?, ?, ?)").run("r1", BOB, "https://bob.example", "Bob's node", NOW - 86_400_000, NOW - 3_600_000, "503 from /exchange");
  const dbs = [sync, store, accounts];
  if (!keepOpen) for (const db of dbs) db.close();
  return dbs;
}

test("paired devices with pending counts from their version vector against the synced tenant's, and relationships", () => {
  const dir = tempDir();
  prepare(dir);
  const before = listing(dir);
  const peers = readPeers(dir, false);
  assert.deepEqual(listing(dir), before, "reading creates and changes nothing");
  assert.deepEqual(
    peers.devices.map((d) => [d.name, d.role, d.url, d.revokedAt !== null, d.lastError, d.pendingIn, d.pendingOut]),
    [
      // The old laptop holds 9 of home's where this node holds 5; it lacks all 4 of the phone's.
      ["old laptop", "device", null, true, null, 4, 4],
      // The phone holds 3 of its own this node lacks; it lacks 3 of home's.
      ["Ada's phone", "device", null, false, null, 3, 3],
      ["home", "home", "http://127.0.0.1:1", false, "connect ECONNREFUSED", null, null],
    ],
  );
  assert.deepEqual(peers.relationships, [{ did: BOB, name: "Bob's node", url: "https://bob.example", addedAt: NOW - 86_400_000, lastContact: NOW - 3_600_000, lastError: "503 from /exchange" }]);
});

test("a running node's open files (WAL present) and a killed node's WAL are read without a trace", () => {
  const dir = tempDir();
  const open = prepare(dir, true);
  const before = listing(dir);
  assert.ok(before.some((l) => l.startsWith("sync.db-wal")));
  assert.equal(readPeers(dir, true).devices.length, 3, "live");
  assert.equal(readPeers(dir, false).relationships.length, 1, "a copy of the file and its WAL");
  assert.deepEqual(listing(dir), before);
  for (const db of open) db.close();
});

test("missing files and tables are no paired devices, and nothing is created", () => {
  const dir = tempDir();
  assert.deepEqual(readPeers(dir, false), { devices: [], relationships: [] });
  assert.deepEqual(readPeers(dir, true), { devices: [], relationships: [] });
  new DatabaseSync(join(dir, "sync.db")).close();
  new DatabaseSync(join(dir, "accounts.db")).close();
  const before = listing(dir);
  assert.deepEqual(readPeers(dir, true), { devices: [], relationships: [] });
  assert.deepEqual(listing(dir), before);
});

test("the Connect view lists this node, paired devices and relationships; only a reachable home node is probed; kind: filters", () => {
  const dir = tempDir();
  prepare(dir);
  const peers = readPeers(dir, false);
  const self = "did:key:z6MkSelf55555555555555555555555555555555555";
  const targets = connectTargets(self, "http://127.0.0.1:8787", clusterFrom(self, null), peers);
  assert.deepEqual(
    targets.map((t) => [t.kind, t.id, probed(t)]),
    [
      ["this node", self, true],
      ["device", OLD, false],
      ["device", PHONE, false],
      ["device", HOME, true],
      ["relationship", BOB, false],
    ],
  );
  assert.deepEqual(connectTargets(null, null, clusterFrom(null, null), noPeers).map((t) => t.kind), ["this node"]);

  const base = new LiveSource(dir, { now: () => NOW }).current();
  const snapshot = { ...base, at: NOW, connect: targets.map((target) => ({ target, probe: null })) };
  const text = (filter: string) => {
    const m = connectModel(snapshot, parseFilter(filter), 80, asciiGlyphs);
    return [...m.headings, ...m.rows].map((l) => l.text.trimEnd());
  };
  const all = text("");
  assert.match(all[0] ?? "", /^Connect: 5 nodes \(2 paired devices\); the node is stopped/);
  const joined = all.join("\n");
  assert.match(joined, /Ada's phone \(device\), paired 2025-11-18, last contact 5 min ago\n +pending in 3, out 3/);
  assert.match(joined, /old laptop \(device\), revoked 2025-11-20, last contact 1 d ago\n +pending in 4, out 4/);
  assert.match(joined, /home \(home\), paired 2025-11-19, no contact yet\n +pending unknown until a first exchange\n +last error: connect ECONNREFUSED/);
  assert.match(joined, /^relationship +\S+ +https:\/\/bob\.example/m);
  assert.match(joined, /Bob's node, added 2025-11-20, last contact 1 h ago\n +last error: 503 from \/exchange/);
  assert.match(text("kind:device")[0] ?? "", /^Connect: 3 nodes/);
  assert.match(text("kind:relationship")[0] ?? "", /^Connect: 1 node /);
  assert.match(text("phone")[0] ?? "", /^Connect: 1 node /, "a bare word matches a device's name");
  for (const l of all) assert.ok(l.length <= 80, l);
});
