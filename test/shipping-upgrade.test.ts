/**
 * The README's session, on a running node: a tenant with members and a `shipping` delegate, the
 * shipping example installed with `charter install`, records made by signed commands, then the
 * shipped upgrade installed the same way (`charter install contracts/examples/shipping-v2.charter.md
 * --tenant acme`): every record migrates to 1.1.0, and the actions of 1.0.0 and the new one work.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { compileContract } from "../contracts/compile.ts";
import { generateKeyPair, type KeyPair, signBearer } from "../shared/identity/index.ts";
import { type Charter, charterBin, cleanup, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { act, type Answer } from "./helpers/client.ts";
import { example } from "./helpers/seed.ts";

const NS = "acme.shipping";
const repo = fileURLToPath(new URL("..", import.meta.url));
const owner = generateKeyPair();
const ada = generateKeyPair();
const bob = generateKeyPair();
const carol = generateKeyPair();
let c: Charter;

/** `npx charter ARGS` in the repository, on the node's data directory (CHARTER_DATA, as a shell session would set it). */
function charter(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [charterBin, ...args], { cwd: repo, env: { ...process.env, CHARTER_DATA: c.dataDir } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

async function ok(args: string[]): Promise<string> {
  const r = await charter(args);
  assert.equal(r.code, 0, `charter ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

const go = (who: KeyPair, action: string, subject: string, args: Record<string, unknown> = {}) => act(c.url, who, { namespace: NS, action, subject, args });

async function read(path: string, init: RequestInit = {}): Promise<Answer> {
  const bearer = signBearer(ada, { tenant: "acme", namespace: NS, now: Date.now() });
  const r = await fetch(`${c.url}/v1/acme/${NS}/${path}`, { ...init, headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` } });
  return { status: r.status, headers: r.headers, body: await r.json() };
}

function accepted(a: Answer): Record<string, unknown> {
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.equal(a.body.receipt.outcome, "accepted");
  return a.body.receipt.state as Record<string, unknown>;
}

const order = { customer: "Ada Ltd", destination: "Oslo", units: 40, crates: 1, credit_terms: true };
let v1: string;

before(async () => {
  c = await startCharter({ dataDir: tempDataDir() });
  await ok(["tenant", "create", "acme", "--owner", owner.did]);
  await ok(["tenant", "member", "add", "acme", ada.did]);
  await ok(["tenant", "member", "add", "acme", bob.did]);
  await ok(["tenant", "delegate", "acme", carol.did, "--scope", "shipping"]);
  v1 = await ok(["install", "contracts/examples/shipping.charter.md", "--tenant", "acme"]);
  assert.equal(v1, compileContract(example("shipping.charter.md")).artifact?.id);
  accepted(await go(ada, "Request", "o-1", order));
  accepted(await go(ada, "Request", "o-2", { ...order, units: 3 }));
  accepted(await go(bob, "CheckCrate", "o-2"));
});
after(async () => {
  await stopCharter(c);
  cleanup(c.dataDir);
});

test("a delegate with scope shipping ships under 1.0.0", async () => {
  assert.equal(accepted(await go(carol, "Ship", "o-2")).status, "Shipped");
});

test("charter install shipping-v2 upgrades the installed example: its records migrate, its actions go on working", async () => {
  const r = await charter(["install", "contracts/examples/shipping-v2.charter.md", "--tenant", "acme"]);
  assert.equal(r.code, 0, r.stderr);
  const v2 = r.stdout.trim();
  assert.equal(v2, compileContract(example("shipping-v2.charter.md")).artifact?.id);
  assert.equal(r.stderr, `upgraded ${v1} → ${v2}: 2 record(s) migrated\n`);

  const record = await read("records/Order/o-1");
  assert.equal(record.status, 200, JSON.stringify(record.body));
  assert.equal(record.body.artifact, v2, "the record is bound to the new version");
  assert.deepEqual(record.body.state, {
    status: "Requested", customer: "Ada Ltd", destination: "Oslo", units: 40, crates: 1, crates_checked: 0,
    paid: false, credit_terms: true, requested_by: ada.did, confirmed_by: null, priority: 40,
  }, "every field kept; priority = old.units");

  // The actions of 1.0.0, as they were: the requester still may not confirm, a delegate still ships.
  assert.equal(accepted(await go(ada, "CheckCrate", "o-1")).crates_checked, 1);
  assert.equal((await go(ada, "Confirm", "o-1")).status, 422);
  assert.equal(accepted(await go(bob, "Confirm", "o-1")).status, "Confirmed");
  const requested = accepted(await go(ada, "Request", "o-3", { ...order, units: 2 }));
  assert.equal(requested.priority, 0, "a record made under 1.1.0 starts at the default");
  assert.equal(accepted(await go(bob, "Prioritize", "o-3", { priority: 7 })).priority, 7);
  const urgent = await read("queries/Urgent", { method: "POST", body: JSON.stringify({ params: { min: 1 } }) });
  assert.equal(urgent.status, 200, JSON.stringify(urgent.body));
  assert.deepEqual(urgent.body.rows.map((row: { subject: string; priority: number }) => [row.subject, row.priority]), [["o-1", 40], ["o-3", 7]], "shipped o-2 is not urgent");
  const shipped = accepted(await go(carol, "Ship", "o-1"));
  assert.deepEqual([shipped.status, shipped.priority], ["Shipped", 40]);
});
