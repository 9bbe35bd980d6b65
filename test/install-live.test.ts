/** Issue 8: installing, upgrading, retiring and restoring on a running node, without a restart. */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { type KeyPair, signBearer } from "../shared/identity/index.ts";
import { charterBin, type Charter, cleanup, lockOf, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { act } from "./helpers/client.ts";
import { example, seed } from "./helpers/seed.ts";

const run = promisify(execFile);
let c: Charter;
let owner: KeyPair;
let ada: KeyPair;
let counterId: string;

before(async () => {
  const dataDir = tempDataDir();
  const s = await seed(dataDir, { contracts: [example("counter.charter.md"), example("shipping.charter.md")] });
  owner = s.owner;
  ada = s.members[0] as KeyPair;
  counterId = s.artifacts["acme.counter"] as string;
  c = await startCharter({ dataDir });
});
after(async () => {
  await stopCharter(c);
  cleanup(c.dataDir);
});

async function charter(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [charterBin, ...args, "--data", c.dataDir]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test("installing and upgrading during a steady load loses no command and refuses none the old version would accept", async () => {
  const engine = lockOf(c.dataDir).workers.engine;
  let stop = false;
  let sent = 0;
  const outcomes: number[] = [];
  const client = async (n: number) => {
    while (!stop) {
      sent++;
      outcomes.push((await act(c.url, ada, { namespace: "acme.counter", action: "Increment", subject: `t-${n}` })).status);
    }
  };
  const load = Promise.all([0, 1, 2, 3].map(client));
  await new Promise((r) => setTimeout(r, 300));
  const inventory = join(c.dataDir, "inventory.charter.md");
  writeFileSync(inventory, example("inventory.charter.md"));
  assert.equal((await charter("install", inventory, "--tenant", "acme")).code, 0);
  const upgraded = example("counter.charter.md")
    .replace("version 1.0.0", `version 1.1.0\nupgrades ${counterId}`)
    .replace("public count: Int = 0", "public count: Int = 0\n  public note: Text(len=40) = \"since 1.1\"");
  const file = join(c.dataDir, "counter-1.1.charter.md");
  writeFileSync(file, upgraded);
  const up = await charter("install", file, "--tenant", "acme");
  assert.equal(up.code, 0, up.stderr);
  await new Promise((r) => setTimeout(r, 300));
  stop = true;
  await load;
  assert.ok(sent > 20, `a steady load (${sent} commands)`);
  assert.deepEqual([...new Set(outcomes)], [200], "every command accepted");
  assert.equal(lockOf(c.dataDir).workers.engine, engine, "no restart");
  const db = new DatabaseSync(join(c.dataDir, "charter.db"), { readOnly: true });
  const decided = db.prepare("SELECT count(*) AS n FROM history WHERE namespace = 'acme.counter' AND action = 'Increment'").get() as { n: number };
  assert.equal(decided.n, sent, "every command is in history once");
  db.close();
  const after = await act(c.url, ada, { namespace: "acme.counter", action: "Increment", subject: "t-0" });
  assert.equal(after.body.receipt.artifact, up.stdout.trim());
  assert.equal(after.body.receipt.state.note, "since 1.1");
});

test("a retired namespace is not served; owners still read its records; restoring serves it again", async () => {
  const ns = "acme.shipping";
  const args = { customer: "Ada", destination: "Oslo", units: 2, crates: 1, credit_terms: false };
  assert.equal((await act(c.url, ada, { namespace: ns, action: "Request", subject: "o-1", args })).status, 200);
  const retire = await charter("contracts", "retire", ns, "--tenant", "acme");
  assert.equal(retire.code, 0, retire.stderr);
  assert.match(retire.stdout, /^retired acme\.shipping \(art_[0-9a-f]{64}\) for acme\n$/);
  const refused = await act(c.url, ada, { namespace: ns, action: "Pay", subject: "o-1" });
  assert.equal(refused.status, 404);
  assert.match(refused.body.detail, /namespace 'acme\.shipping' is retired for tenant 'acme'/);
  const record = (who: KeyPair) =>
    fetch(`${c.url}/v1/acme/${ns}/records/Order/o-1`, { headers: { authorization: `Bearer ${signBearer(who, { tenant: "acme", namespace: ns, now: Date.now() })}` } });
  const asOwner = await record(owner);
  assert.equal(asOwner.status, 200);
  assert.equal(((await asOwner.json()) as { state: { status: string } }).state.status, "Requested");
  assert.equal((await record(ada)).status, 403, "members no longer read a retired namespace");
  assert.equal((await charter("contracts", "retire", ns, "--tenant", "acme")).code, 1, "nothing left to retire");
  const restore = await charter("contracts", "restore", ns, "--tenant", "acme");
  assert.equal(restore.code, 0, restore.stderr);
  assert.equal((await act(c.url, ada, { namespace: ns, action: "Pay", subject: "o-1" })).status, 200);
  const list = await charter("contracts", "list", "--tenant", "acme", "--json");
  const rows = JSON.parse(list.stdout) as { namespace: string; status: string }[];
  assert.ok(rows.some((r) => r.namespace === ns && r.status === "active"));
});
