import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, it } from "node:test";
import { backupDatabases, rollBack, settle, settleInTree } from "./switch.ts";
import { currentRelease, readUpdateState, setCurrent, type SwitchPlan, updatePaths, writeUpdateState, writesHeld } from "./update-state.ts";
import { WriteHold } from "./write-hold.ts";

const work = mkdtempSync(join(tmpdir(), "charter-switch-"));
after(() => rmSync(work, { recursive: true, force: true }));
let n = 0;

/** A data directory with a store holding `rows` rows and an installed release folder for each version. */
function dataDir(rows: number, releases: string[]): string {
  const dir = join(work, `data-${n++}`);
  mkdirSync(dir);
  const db = new DatabaseSync(join(dir, "charter.db"));
  db.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)");
  for (let i = 0; i < rows; i++) db.prepare("INSERT INTO t VALUES (?)").run(i);
  db.close();
  for (const v of releases) {
    mkdirSync(join(dir, "releases", v, "bin"), { recursive: true });
    writeFileSync(join(dir, "releases", v, "bin", "charter.js"), "");
  }
  return dir;
}

const count = (dir: string) => {
  const db = new DatabaseSync(join(dir, "charter.db"), { readOnly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe("switching releases", () => {
  it("a rollback puts back the databases backed up before the switch and the previous link", async () => {
    const dir = dataDir(3, ["0.2.0", "0.3.0"]);
    const paths = updatePaths(dir);
    setCurrent(paths, "0.2.0");
    const plan: SwitchPlan = { from: { version: "0.2.0", release: "0.2.0" }, to: "0.3.0", backup: join(paths.backups, "0.3.0") };
    assert.deepEqual(await backupDatabases(dir, plan.backup), ["charter.db"]);
    setCurrent(paths, "0.3.0");
    writeUpdateState(paths, { phase: { phase: "trial", ...plan, switchedAt: Date.now(), failedStarts: 2 }, history: [], rolledBack: [] });
    // The new release migrated the store and wrote.
    const db = new DatabaseSync(join(dir, "charter.db"));
    db.exec("CREATE TABLE migrated (y INTEGER); INSERT INTO t VALUES (99)");
    db.close();
    const state = rollBack(paths, plan, "failed to start 3 times");
    assert.equal(count(dir), 3);
    assert.equal(currentRelease(paths), "0.2.0");
    assert.equal(state.phase.phase, "idle");
    assert.deepEqual(state.rolledBack, ["0.3.0"]);
    assert.equal(state.history[0]?.kind, "rolled-back");
  });

  it("settles what a crash left: a switch before the link moved is undone, after it goes on trial, a half rollback is finished", async () => {
    // Before the link moved: undone, the running release stays.
    const a = dataDir(1, ["0.2.0"]);
    const pa = updatePaths(a);
    writeUpdateState(pa, { phase: { phase: "switching", at: Date.now(), from: { version: "0.1.0", release: null }, to: "0.2.0", backup: join(pa.backups, "0.2.0") }, history: [], rolledBack: [] });
    assert.equal(writesHeld(readUpdateState(pa)), true);
    assert.equal(settleInTree(pa, "0.1.0"), "undone");
    assert.equal(readUpdateState(pa).phase.phase, "idle");
    assert.equal(readUpdateState(pa).history[0]?.kind, "interrupted");
    assert.equal(currentRelease(pa), null);

    // After the link moved (the backup was whole before it): on trial; the old tree restarts into it.
    const b = dataDir(1, ["0.2.0"]);
    const pb = updatePaths(b);
    const plan: SwitchPlan = { from: { version: "0.1.0", release: null }, to: "0.2.0", backup: join(pb.backups, "0.2.0") };
    await backupDatabases(b, plan.backup);
    setCurrent(pb, "0.2.0");
    writeUpdateState(pb, { phase: { phase: "switching", at: Date.now(), ...plan }, history: [], rolledBack: [] });
    assert.equal(settleInTree(pb, "0.1.0"), "relaunch");
    assert.equal(readUpdateState(pb).phase.phase, "trial");
    assert.equal(settleInTree(pb, "0.2.0"), "none");

    // A rollback that put the link back but not the state: finished.
    setCurrent(pb, null);
    const settled = settle(pb);
    assert.equal(settled.phase.phase, "idle");
    assert.equal(settled.history[0]?.kind, "rolled-back");
    assert.ok(!existsSync(pb.current));
  });

  it("holds writes while a switch or a trial is under way, seen at once when asked", () => {
    const dir = dataDir(0, []);
    const paths = updatePaths(dir);
    const hold = new WriteHold(paths);
    try {
      assert.equal(hold.problem(), null);
      writeUpdateState(paths, { phase: { phase: "switching", at: Date.now(), from: { version: "0.1.0", release: null }, to: "0.2.0", backup: "x" }, history: [], rolledBack: [] });
      assert.equal(hold.refresh(), true);
      assert.equal(hold.problem()?.code, "updating");
      assert.equal(hold.problem()?.status, 503);
      writeUpdateState(paths, { phase: { phase: "idle" }, history: [], rolledBack: [] });
      assert.equal(hold.refresh(), false);
    } finally {
      hold.close();
    }
  });
});
