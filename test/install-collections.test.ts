/**
 * Issue 5/8: a contract whose queries read another installed contract or the standard library
 * installs through the real paths — `charter install` (through a running node, and offline) and
 * `POST /v1/{tenant}/_install` — checked against what the tenant has installed.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { newInstallId, signInstall } from "../shared/identity/index.ts";
import { charterBin, cleanup, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { post } from "./helpers/client.ts";
import { seed } from "./helpers/seed.ts";

const run = promisify(execFile);
const payables = readFileSync(new URL("./fixtures/payables.charter.md", import.meta.url), "utf8");

async function install(dataDir: string, source: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(dataDir, `c-${Math.random().toString(36).slice(2)}.charter.md`);
  writeFileSync(file, source);
  try {
    const { stdout, stderr } = await run(process.execPath, [charterBin, "install", file, "--tenant", "acme", "--data", dataDir]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test("a contract reading std.invoices installs offline, through a running node, and over HTTP", async () => {
  const dataDir = tempDataDir();
  const s = await seed(dataDir, { contracts: [] });
  const offline = await install(dataDir, payables);
  assert.equal(offline.code, 0, offline.stderr);
  const c = await startCharter({ dataDir });
  try {
    const renamed = (ns: string) => payables.replace(/namespace acme\.payables/, `namespace ${ns}`);
    const live = await install(dataDir, renamed("acme.payables2"));
    assert.equal(live.code, 0, live.stderr);
    const r = await post(`${c.url}/v1/acme/_install`, JSON.stringify({ install: signInstall(s.owner, { tenant: "acme", source: renamed("acme.payables3"), issuedAt: new Date().toISOString(), id: newInstallId() }) }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.namespace, "acme.payables3");
    // A source the tenant does not have is the checker's diagnostic, not a runtime error.
    const missing = await install(dataDir, renamed("acme.payables4").replaceAll("std.invoices", "acme.nothing.Invoice"));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /query error: .*acme\.nothing\.Invoice.* at line \d+:\d+/);
  } finally {
    await stopCharter(c);
    cleanup(dataDir);
  }
});
