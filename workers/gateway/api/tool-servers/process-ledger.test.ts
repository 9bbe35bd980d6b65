import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { silentLogger } from "../../../../shared/log.ts";
import { ProcessLedger } from "./process-ledger.ts";

const dir = mkdtempSync(join(tmpdir(), "charter-ledger-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return true;
  }
}

async function until(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  return check();
}

describe("the ledger of tool server processes", () => {
  it("a later gateway kills the groups an earlier one left running, and only those still the same process", async () => {
    const file = join(dir, "run", "tool-servers.json");
    const left = spawn("sh", ["-c", "sleep 300 & wait"], { detached: true, stdio: "ignore" });
    const other = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
    try {
      const earlier = new ProcessLedger(file, silentLogger);
      earlier.started(left.pid!);
      earlier.started(other.pid!);
      // The second entry's start time no longer matches: its pid is taken to be another process now.
      const entries = JSON.parse(readFileSync(file, "utf8")) as { pid: number; start: string }[];
      writeFileSync(file, JSON.stringify(entries.map((e) => (e.pid === other.pid ? { ...e, start: "1" } : e))));
      new ProcessLedger(file, silentLogger).sweep();
      assert.ok(await until(() => gone(left.pid!)), "the group left running is killed");
      assert.ok(!gone(other.pid!), "a pid that is another process now is left alone");
      assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), []);
    } finally {
      for (const c of [left, other]) {
        try {
          process.kill(-c.pid!, "SIGKILL");
        } catch {
          // Gone.
        }
      }
    }
  });

  it("a group that ended is struck off", () => {
    const file = join(dir, "b.json");
    const ledger = new ProcessLedger(file, silentLogger);
    ledger.started(process.pid);
    assert.equal((JSON.parse(readFileSync(file, "utf8")) as unknown[]).length, 1);
    ledger.ended(process.pid);
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), []);
  });
});
