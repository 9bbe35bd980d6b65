/**
 * Issue 9: each of the console's six views rendered with ink-testing-library from a prepared data
 * directory (read through the console's own read-only source), at 80 columns.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createElement as h, type ReactElement } from "react";
import { cleanup, tempDataDir } from "../../test/helpers/charter-process.ts";
import { type ConsoleData, prepareConsoleData } from "../../test/helpers/console-data.ts";
import { closedUrl, startFakeNode } from "../../test/helpers/fake-node.ts";
import { frameOf } from "../../test/helpers/ink-frame.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { PeerStore } from "../../workers/sync/peer-store.ts";
import { type Filter, noFilter, parseFilter } from "../filter.ts";
import { LiveSource } from "../live-source.ts";
import type { Snapshot } from "../snapshot.ts";
import { asciiGlyphs, type Glyphs, unicodeGlyphs } from "../terminal.ts";
import { ActivityView } from "./activity.ts";
import { ConnectView } from "./connect.ts";
import { ContractsView } from "./contracts.ts";
import { LogsView } from "./logs.ts";
import { OverviewView } from "./overview.ts";
import { TenantsView } from "./tenants.ts";
import type { ViewProps } from "./view-body.ts";

let dataDir: string;
let data: ConsoleData;
let stopped: Snapshot;

before(async () => {
  dataDir = tempDataDir("charter-tui-views-");
  data = await prepareConsoleData(dataDir);
  stopped = await snapshotOf();
});
after(() => cleanup(dataDir));

async function snapshotOf(options: { url?: string; activity?: Filter } = {}): Promise<Snapshot> {
  const source = new LiveSource(dataDir, options.url === undefined ? {} : { url: options.url });
  if (options.activity !== undefined) source.setActivityFilter(options.activity);
  try {
    return await source.refresh();
  } finally {
    source.close();
  }
}

/** The lines `view` draws with `props`, each checked to fit in 80 columns. */
function frame(view: (p: ViewProps) => ReactElement, props: Partial<ViewProps> & { snapshot?: Snapshot } = {}): string[] {
  const glyphs: Glyphs = props.glyphs ?? unicodeGlyphs;
  const lines = frameOf(h(view, { snapshot: stopped, filter: noFilter, width: 80, height: 21, scroll: 0, ...props, glyphs }));
  for (const l of lines) assert.ok([...l].length <= 80, `a line is wider than 80 columns: ${JSON.stringify(l)}`);
  return lines;
}
const has = (lines: string[], pattern: RegExp) => lines.some((l) => pattern.test(l));

describe("Overview", () => {
  test("a stopped node: state, store, disk, the node as its only voter, recent errors newest first", () => {
    const lines = frame(OverviewView);
    assert.ok(has(lines, /^Node {6}stopped$/));
    assert.ok(has(lines, /^Store {5}stopped, read as it is; 1 tenant, 2 active contracts, history to #6/));
    assert.ok(has(lines, /^Disk {6}\d+(\.\d)? KB in \d+ files under .*; .* free of /));
    assert.ok(has(lines, /^Voters \(1; leader unknown\)/));
    assert.ok(has(lines, new RegExp(`^${data.nodeDid.slice(0, 20)}.*\\(this node\\) +— +— +—`)));
    const errors = lines.slice(lines.findIndex((l) => l.startsWith("Recent errors")) + 1);
    assert.match(errors[0] ?? "", /^09:00:04 ERROR gateway +could not bind {2}error=EADDRINUSE/);
    assert.match(errors[1] ?? "", /^09:00:03 WARN {2}supervisor worker exited {2}worker=gateway code=1/);
    assert.ok(!has(errors, /INFO|DEBUG/), "only warnings and errors");
  });

  test("three voters as the node reports them: role, leader, term and lag", async () => {
    const [b, c] = ["did:key:z6MkB000000000000000000000000000000000000000000", "did:key:z6MkC000000000000000000000000000000000000000000"];
    const node = await startFakeNode({
      health: { status: "ok", workers: { engine: "running", gateway: "running" }, raft: { role: "leader", term: 7, leader: data.nodeDid, voters: [{ id: data.nodeDid, role: "leader", lag: 0 }, { id: b, role: "follower", lag: 3 }, { id: c, role: "follower", lag: 0 }] } },
      wellKnown: { identity: data.nodeDid, version: "0.1.0", voters: [data.nodeDid, b, c] },
    });
    try {
      const lines = frame(OverviewView, { snapshot: await snapshotOf({ url: node.url }) });
      assert.ok(has(lines, /^Voters \(3; leader did:key:.*, term 7\)/));
      assert.ok(has(lines, /\(this node\) +leader +0 yes, \d+ ms/));
      assert.ok(has(lines, /^did:key:z6MkB0+…0+ +follower +3 +—/));
      assert.ok(has(lines, new RegExp(`^Address   ${node.url}  answers in \\d+ ms$`)));
    } finally {
      await node.close();
    }
  });
  test("a running node: one line a worker in start order, its pid, state and status line; one waiting to be restarted", () => {
    const pids = { engine: 4001, gateway: 4002, assistant: 4003, outbox: 4004, sync: 4006 };
    const health = {
      status: "degraded",
      workers: { engine: "running", gateway: "running", assistant: "running", outbox: "running", sync: "running", updater: "failed" },
      statuses: { assistant: "idle: no model configured", outbox: "idle: no connector configured", sync: "idle: no device to sync with" },
    };
    const url = "http://127.0.0.1:8787";
    const snapshot: Snapshot = {
      ...stopped,
      node: { running: true, pid: 4000, startedAt: "2024-05-01T09:00:00.000Z", workers: Object.entries(pids).map(([name, pid]) => ({ name, pid, alive: true })) },
      nodeUrl: url,
      connect: [{ target: { kind: "this node", id: data.nodeDid, url }, probe: { url, answers: true, rttMs: 2, status: 200, error: null, health, wellKnown: null, at: 0 } }],
    };
    const lines = frame(OverviewView, { snapshot });
    const at = lines.findIndex((l) => l.startsWith("Workers"));
    assert.deepEqual(lines.slice(at, at + 6).map((l) => l.trimEnd()), [
      "Workers   engine    4001    running",
      "          gateway   4002    running",
      "          assistant 4003    running  idle: no model configured",
      "          outbox    4004    running  idle: no connector configured",
      "          sync      4006    running  idle: no device to sync with",
      "          updater   —       failed",
    ]);
    assert.ok(has(lines, /^Node {6}running, pid 4000, since 2024-05-01 09:00:00 UTC$/));
  });
});

describe("Contracts", () => {
  test("installed artifacts per tenant: namespace, version, artifact, status, installed when and by whom", () => {
    const lines = frame(ContractsView);
    assert.equal(lines[0], "Installed contracts: 4 shown, 2 active");
    assert.match(lines[1] ?? "", /^TENANT +NAMESPACE +VERSION ARTIFACT +STATUS +INSTALLED \(UTC\) +BY/);
    const shipping = lines.filter((l) => l.includes("acme.shipping"));
    assert.match(shipping[0] ?? "", new RegExp(`^acme +acme\\.shipping +1\\.1\\.0 +${data.artifacts["acme.shipping"]?.slice(0, 11)}… active +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d ${data.owner.did.slice(8, 12)}`));
    assert.match(shipping[1] ?? "", new RegExp(`^acme +acme\\.shipping +1\\.0\\.0 +${data.shippingV1.slice(0, 11)}… replaced`));
    assert.ok(has(lines, /^acme +acme\.counter +1\.0\.0 +art_\w+… retired/));
  });

  test("filtered by status", () => {
    const lines = frame(ContractsView, { filter: parseFilter("status:replaced") });
    assert.equal(lines.filter((l) => l.startsWith("acme ")).length, 1);
    assert.match(lines[0] ?? "", /1 shown, 0 active {2}\(filter: status:replaced\)/);
  });
});

describe("Tenants", () => {
  test("identity, owners, members, delegations with scope and expiry", () => {
    const lines = frame(TenantsView);
    assert.match(lines[0] ?? "", /^Tenants: 1 shown, 3 owners and members, 2 delegations/);
    assert.match(lines[1] ?? "", /^acme {2}did:key:z6Mk\w+$/);
    assert.ok(has(lines, new RegExp(`^ {4}owner {5}${data.owner.did}$`)));
    for (const m of data.members) assert.ok(has(lines, new RegExp(`^ {4}member {4}${m.did}$`)));
    assert.ok(has(lines, /^ {4}delegate {2}did:key:\S+ {2}scope tally {2}until 2999-01-01 00:00 UTC$/));
    assert.ok(has(lines, /^ {4}delegate {2}\S+ {2}scope shipping\.dispatch {2}expired 2020-06-01 00:00 UTC$/));
  });
});

describe("Activity", () => {
  test("certified commands newest first, each refusal with its reason", () => {
    const lines = frame(ActivityView);
    assert.match(lines[0] ?? "", /^Activity: 6 commands, 3 refused, newest first; history to #6$/);
    const seqs = lines.map((l) => /^ +(\d+) \d\d:/.exec(l)?.[1]).filter((s) => s !== undefined);
    assert.deepEqual(seqs, ["6", "5", "4", "3", "2", "1"]);
    const at = (seq: number) => lines.findIndex((l) => new RegExp(`^ +${seq} `).test(l));
    assert.match(lines[at(6)] ?? "", /^ +6 09:00:05\.000 ✗ refused +acme +acme\.counter +Start +t-2$/);
    assert.equal(lines[at(6) + 1]?.trim(), "└ condition_failed at line 19: len(label) > 0");
    assert.equal(lines[at(4) + 1]?.trim(), "└ condition_failed at line 31: units > 0");
    // A long reason wraps under its command rather than being cut.
    assert.equal(`${lines[at(3) + 1]?.trim()} ${lines[at(3) + 2]?.trim()}`, "└ unauthorized: only a holder of a delegation with scope tally or an owner may do this");
    assert.match(lines[at(5)] ?? "", /✓ accepted +acme +acme\.shipping +Request +o-2$/);
  });

  test("filtered by tenant, namespace and outcome in the store", async () => {
    const snapshot = await snapshotOf({ activity: parseFilter("tenant:acme ns:acme.shipping outcome:refused") });
    const lines = frame(ActivityView, { snapshot });
    assert.match(lines[0] ?? "", /^Activity: 1 command, 1 refused, newest first; history to #6 \(filtered\)$/);
    assert.equal(lines.filter((l) => /^ +\d+ \d\d:/.test(l)).length, 1);
    assert.ok(has(lines, /units > 0/));
    const none = frame(ActivityView, { snapshot: await snapshotOf({ activity: parseFilter("outcome:refused nosuchword") }) });
    assert.ok(has(none, /no command matches the filter/));
  });

  test("plain ASCII when the terminal is not UTF-8", () => {
    const lines = frame(ActivityView, { glyphs: asciiGlyphs });
    for (const l of lines) assert.match(l, /^[\x20-\x7e]*$/, `not ASCII: ${l}`);
    assert.ok(has(lines, /x refused/) && has(lines, /\+ accepted/) && has(lines, /\\ condition_failed/));
  });
});

describe("Logs", () => {
  test("the tail of the log, newest at the bottom", () => {
    const lines = frame(LogsView).filter((l) => l.trim() !== "");
    assert.match(lines[0] ?? "", /^Logs: 6 of the last 6 lines of logs\/charter\.log, every level$/);
    assert.match(lines.at(-1) ?? "", /^09:00:05\.000 INFO {2}engine +running {2}pid=4001$/);
    assert.match(lines[1] ?? "", /^08:59:58\.000 INFO {2}supervisor worker started {2}worker=engine pid=4001$/);
  });

  test("filtered by level (that level and above) and by component", () => {
    const warn = frame(LogsView, { filter: parseFilter("level:warn") }).filter((l) => /^\d\d:/.test(l));
    assert.deepEqual(
      warn.map((l) => l.slice(13, 18)),
      ["WARN ", "ERROR"],
    );
    const engine = frame(LogsView, { filter: parseFilter("component:engine") }).filter((l) => /^\d\d:/.test(l));
    assert.deepEqual(
      engine.map((l) => l.slice(30).split("  ")[0]),
      ["batch committed", "running"],
    );
  });

  test("a short window shows the newest lines and scrolls back", () => {
    const newest = frame(LogsView, { height: 3 });
    assert.match(newest.at(-1) ?? "", /running {2}pid=4001/);
    const back = frame(LogsView, { height: 3, scroll: 2 });
    assert.match(back.at(-1) ?? "", /worker exited/);
  });
});

describe("Connect", () => {
  test("a stopped node: known by its identity, nothing to ask", () => {
    const lines = frame(ConnectView);
    assert.match(lines[0] ?? "", /^Connect: 1 node; the node is stopped$/);
    assert.match(lines[2] ?? "", /^this node +(did:key:)?z6Mk\S+ +address unknown +— +—$/);
  });

  test("this node, the other voters and a paired home node: whether each answers and the round-trip time", async () => {
    const gone = await closedUrl();
    const peer = await startFakeNode({ health: { status: "ok" }, wellKnown: {} });
    const b = "did:key:z6MkB000000000000000000000000000000000000000000";
    const node = await startFakeNode({
      health: { status: "ok", raft: { role: "leader", term: 2, voters: [{ id: b, role: "follower", lag: 1, url: peer.url }] } },
      // A trusted list is not read: the node never publishes one.
      wellKnown: { identity: data.nodeDid, voters: [data.nodeDid, b], trusted: [{ did: "did:key:z6MkT000000000000000000000000000000000000000000", url: peer.url }] },
    });
    const sync = openDatabase(join(dataDir, "sync.db"));
    new PeerStore(sync);
    sync.prepare("INSERT INTO peers (did, name, role, url, paired_at) VALUES (?, 'home', 'home', ?, ?)").run("did:key:z6MkH000000000000000000000000000000000000000000", gone, Date.now());
    sync.close();
    try {
      const lines = frame(ConnectView, { snapshot: await snapshotOf({ url: node.url }) });
      assert.match(lines[0] ?? "", /^Connect: 3 nodes \(1 paired device\); checked every 2 s, last at \d\d:\d\d:\d\d UTC$/);
      assert.match(lines.find((l) => l.startsWith("this node")) ?? "", new RegExp(`${node.url} +yes +\\d+ ms$`));
      assert.match(lines.find((l) => l.startsWith("voter")) ?? "", new RegExp(`z6MkB0+…0+ +${peer.url} +yes +\\d+ ms$`));
      assert.ok(!has(lines, /^trusted|z6MkT0/));
      const home = lines.findIndex((l) => l.startsWith("device"));
      assert.match(lines[home] ?? "", new RegExp(`z6MkH0+…0+ +${gone} +no +—$`));
      assert.match(lines[home + 1] ?? "", /^ +home \(home\), paired \d{4}-\d\d-\d\d, no contact yet$/);
      assert.ok(lines.slice(home + 1).some((l) => /ECONNREFUSED/.test(l)));
    } finally {
      rmSync(join(dataDir, "sync.db"), { force: true });
      await node.close();
      await peer.close();
    }
  });
});
