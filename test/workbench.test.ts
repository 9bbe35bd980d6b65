/** Issue 8: the Workbench runs steps on a throwaway node, each in its own process, touching nothing real. */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import type { KeyPair } from "../shared/identity/index.ts";
import { charterBin, cleanup, spawnCharter, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { act } from "./helpers/client.ts";
import { example, seed } from "./helpers/seed.ts";

const run = promisify(execFile);
const shippingFile = new URL("../contracts/examples/shipping.charter.md", import.meta.url).pathname;
const order = { customer: "Ada", destination: "Oslo", units: 4, crates: 1, credit_terms: false };
/** The spec §3.1 scenario: every transition and a refusal of each kind of condition. */
const scenario = [
  { action: "Pay", subject: "o-1", signer: "alice" },
  { action: "Request", subject: "o-1", args: order, signer: "alice" },
  { action: "Request", subject: "o-1", args: order, signer: "alice" },
  { action: "Ship", subject: "o-1", signer: "owner" },
  { action: "CheckCrate", subject: "o-1", signer: "bob" },
  { action: "CheckCrate", subject: "o-1", signer: "bob" },
  { action: "Confirm", subject: "o-1", signer: "alice" },
  { action: "Confirm", subject: "o-1", signer: "bob" },
  { action: "Pay", subject: "o-1", signer: "alice" },
  { action: "Pay", subject: "o-1", signer: "alice" },
  { action: "Ship", subject: "o-1", signer: "owner" },
  { action: "Ship", subject: "o-1", signer: "owner" },
];

function checksums(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[p.slice(dir.length)] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

test("the §3.1 scenario: the same outcomes as the engine, each step in its own process, the real data directory untouched", async () => {
  // A real data directory with records in it, its node stopped.
  const real = tempDataDir();
  const s = await seed(real, { contracts: [example("shipping.charter.md")] });
  const node = await startCharter({ dataDir: real });
  const names: Record<string, KeyPair> = { owner: s.owner, alice: s.members[0] as KeyPair, bob: s.members[1] as KeyPair };
  const engineOutcomes = [];
  for (const step of scenario) {
    const a = await act(node.url, names[step.signer] as KeyPair, { namespace: "acme.shipping", action: step.action, subject: step.subject, args: step.args ?? {} });
    engineOutcomes.push({ outcome: a.body.receipt.outcome, reason: a.body.receipt.reason?.condition ?? null, status: a.body.receipt.state.status, checked: a.body.receipt.state.crates_checked });
  }
  await stopCharter(node);
  const before = checksums(real);

  const stepsFile = join(tempDataDir(), "steps.json");
  writeFileSync(stepsFile, JSON.stringify(scenario));
  const { stdout } = await run(process.execPath, [charterBin, "workbench", shippingFile, "--steps", stepsFile, "--json"], { env: { ...process.env, CHARTER_DATA: real } });
  const result = JSON.parse(stdout) as { ok: boolean; steps: { pid: number; outcome: string; reason?: { condition: string }; state: { status: string; crates_checked: number } }[] };
  assert.equal(result.ok, true);
  const benchOutcomes = result.steps.map((r) => ({ outcome: r.outcome, reason: r.reason?.condition ?? null, status: r.state.status, checked: r.state.crates_checked }));
  assert.deepEqual(benchOutcomes, engineOutcomes);
  assert.equal(new Set(result.steps.map((r) => r.pid)).size, scenario.length, "every step ran in a different process");
  assert.ok(!result.steps.some((r) => r.pid === process.pid));
  assert.deepEqual(checksums(real), before, "the real data directory is byte-for-byte unchanged");
  cleanup(real);
});

test("a step that does not answer in time is killed and reported; nothing is left behind", async () => {
  const leftovers = () => readdirSync(tmpdir()).filter((n) => n.startsWith("charter-workbench-")).sort();
  const was = leftovers();
  const stepsFile = join(tempDataDir(), "steps.json");
  writeFileSync(stepsFile, JSON.stringify([{ action: "Request", subject: "o-1", args: order }]));
  const wb = spawnCharter(["workbench", shippingFile, "--steps", stepsFile, "--step-timeout", "1"]);
  const { code } = await wb.exited;
  assert.equal(code, 1);
  assert.match(wb.stdout, /1\. Request o-1 by alice \(pid \d+\): timeout — no answer within 1 ms; the step was killed/);
  assert.deepEqual(leftovers(), was, "the throwaway directory is gone");
});

test("Ctrl-C mid-run removes the throwaway node and its directory", async () => {
  const leftovers = () => readdirSync(tmpdir()).filter((n) => n.startsWith("charter-workbench-")).sort();
  const was = leftovers();
  const stepsFile = join(tempDataDir(), "steps.json");
  writeFileSync(stepsFile, JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ action: "Request", subject: `o-${i}`, args: order }))));
  const wb = spawnCharter(["workbench", shippingFile, "--steps", stepsFile]);
  while (!wb.stdout.includes("1. Request")) await new Promise((r) => setTimeout(r, 20));
  wb.child.kill("SIGINT");
  const { code } = await wb.exited;
  assert.equal(code, 130, JSON.stringify({ code, signal: (await wb.exited).signal, stderr: wb.stderr, stdout: wb.stdout.slice(-300) }));
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(leftovers(), was, "the throwaway directory is gone");
});

test("a malformed steps file is a one-line error", async () => {
  const stepsFile = join(tempDataDir(), "steps.json");
  writeFileSync(stepsFile, JSON.stringify([{ action: "Request" }]));
  const wb = spawnCharter(["workbench", shippingFile, "--steps", stepsFile]);
  assert.equal((await wb.exited).code, 2);
  assert.match(wb.stderr, /steps\.json: step 1 needs "subject" \(a string\)/);
});
