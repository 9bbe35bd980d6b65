/** Issue 8: upgrading an installed contract migrates its records, or refuses and changes nothing. */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import type { KeyPair } from "../shared/identity/index.ts";
import { charterBin, type Charter, cleanup, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { act } from "./helpers/client.ts";
import { example, seed } from "./helpers/seed.ts";

const run = promisify(execFile);
const v1 = example("shipping.charter.md");
let c: Charter;
let v1Id: string;
let ada: KeyPair;
let bob: KeyPair;
let db: DatabaseSync;

/** Shipping 1.1.0: a new field `priority` and `customer` narrowed to 12 characters. */
function v2(options: { upgrades: string; migrate?: string[] }): string {
  const lines = options.migrate ?? ["state.priority = old.units * 10", "state.customer = old.customer"];
  return v1
    .replace("version 1.0.0", `version 1.1.0\nupgrades ${options.upgrades}`)
    .replace("public customer: Text(len=200)", "public customer: Text(len=12)\n  public priority: Int")
    .replace("action Request(customer: Text(len=200)", "action Request(customer: Text(len=12)")
    .replace(/\n```\s*$/, `\nmigrate Order {\n${lines.map((l) => `  ${l}`).join("\n")}\n}\n\`\`\`\n`);
}

async function install(source: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(c.dataDir, `upgrade-${Math.random().toString(36).slice(2)}.charter.md`);
  writeFileSync(file, source);
  try {
    const { stdout, stderr } = await run(process.execPath, [charterBin, "install", file, "--tenant", "acme", "--data", c.dataDir]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const order = (customer: string, units: number) => ({ customer, destination: "Oslo", units, crates: 1, credit_terms: false });
const activeArtifact = () => (db.prepare("SELECT artifact FROM installs WHERE namespace = 'acme.shipping' AND status = 'active'").get() as { artifact: string }).artifact;

before(async () => {
  const dataDir = tempDataDir();
  const s = await seed(dataDir, { contracts: [v1] });
  v1Id = s.artifacts["acme.shipping"] as string;
  [ada, bob] = s.members as [KeyPair, KeyPair];
  c = await startCharter({ dataDir });
  for (const [i, name] of ["Ada", "Bo", "Cy"].entries()) assert.equal((await act(c.url, ada, { namespace: "acme.shipping", action: "Request", subject: `o-${i}`, args: order(name, i + 1) })).status, 200);
  db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
});
after(async () => {
  db.close();
  await stopCharter(c);
  cleanup(c.dataDir);
});

test("an upgrade missing a migrate line is refused with the checker's diagnostic", async () => {
  const r = await install(v2({ upgrades: v1Id, migrate: ["state.priority = old.units * 10"] }));
  assert.equal(r.code, 1);
  assert.match(r.stderr, /upgrade error: .*customer.* at line \d+:\d+/);
  assert.equal(activeArtifact(), v1Id);
});

test("an upgrade naming another artifact is refused", async () => {
  const r = await install(v2({ upgrades: `art_${"0".repeat(64)}` }));
  assert.equal(r.code, 1);
  assert.match(r.stderr, /upgrades art_0+, but acme has art_[0-9a-f]{64} installed/);
  assert.equal(activeArtifact(), v1Id);
});

test("one record that cannot migrate refuses the whole upgrade, naming it and the line; nothing changes", async () => {
  await act(c.url, bob, { namespace: "acme.shipping", action: "Request", subject: "o-long", args: order("A customer with a long name", 5) });
  const historyBefore = (db.prepare("SELECT count(*) AS n FROM history").get() as { n: number }).n;
  const source = v2({ upgrades: v1Id });
  const r = await install(source);
  assert.equal(r.code, 1);
  const line = source.split("\n").findIndex((l) => l.trim() === "state.customer = old.customer") + 1;
  assert.match(r.stderr, new RegExp(`record Order 'o-long' cannot migrate: text longer than 12 characters in state.customer = old.customer \\(line ${line}\\)`));
  assert.equal(activeArtifact(), v1Id);
  assert.equal((db.prepare("SELECT count(*) AS n FROM history").get() as { n: number }).n, historyBefore);
});

test("records migrate in one transaction, each with a history entry bound to the new artifact naming the old one", async () => {
  // The same upgrade with `customer` narrowed only to 40 characters, which every record fits.
  const source = v2({ upgrades: v1Id, migrate: ["state.priority = old.units * 10", 'state.customer = old.customer + ""'] })
    .replace("public customer: Text(len=12)", "public customer: Text(len=40)")
    .replace("action Request(customer: Text(len=12)", "action Request(customer: Text(len=40)");
  const r = await install(source);
  assert.equal(r.code, 0, r.stderr);
  const v2Id = r.stdout.trim();
  assert.match(r.stderr, new RegExp(`upgraded ${v1Id} → ${v2Id}: 4 record\\(s\\) migrated`));
  assert.equal(activeArtifact(), v2Id);
  const migrated = db.prepare("SELECT subject, artifact, args, signer FROM history WHERE action = 'migrate' ORDER BY subject").all() as { subject: string; artifact: string; args: string }[];
  assert.deepEqual(migrated.map((m) => m.subject), ["o-0", "o-1", "o-2", "o-long"]);
  for (const m of migrated) {
    assert.equal(m.artifact, v2Id);
    assert.deepEqual(JSON.parse(m.args), { from: v1Id });
  }
  // Commands now run under the new version, on the migrated state.
  const confirm = await act(c.url, bob, { namespace: "acme.shipping", action: "Confirm", subject: "o-2" });
  assert.equal(confirm.status, 200);
  assert.equal(confirm.body.receipt.artifact, v2Id);
  assert.equal(confirm.body.receipt.state.priority, 30);
  assert.equal(confirm.body.receipt.state.customer, "Cy");
  assert.equal(confirm.body.receipt.state.status, "Confirmed");
  const stale = await install(v1);
  assert.equal(stale.code, 1, "the old version cannot be installed over the new one without an upgrade line");
});
