/**
 * Issue 16, the fuzz properties: arbitrary JSON (deep, wide, huge strings, odd numbers, unicode)
 * sent to every surface of a running node, and of three voters, never restarts a worker, and every
 * answer is a receipt, rows, a GraphQL answer or a problem document. `npm test` runs a short
 * version; `npm run fuzz` (CHARTER_FUZZ_RUNS) a long one.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import type { KeyPair } from "../shared/identity/index.ts";
import { type Charter, cleanup, lockOf, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { Cluster } from "./helpers/cluster.ts";
import { attack, attackNode } from "./helpers/fuzz-surfaces.ts";
import { grpcAddress } from "./helpers/grpc-client.ts";
import { example, seed } from "./helpers/seed.ts";
import { generateKeyPair } from "../shared/identity/index.ts";

const RUNS = Number(process.env.CHARTER_FUZZ_RUNS ?? 20);

const treePids = (dataDir: string) => JSON.stringify(lockOf(dataDir));

describe("one node", () => {
  let c: Charter;
  let ada: KeyPair;
  before(async () => {
    const dataDir = tempDataDir();
    const s = await seed(dataDir, { contracts: [example("shipping.charter.md"), example("counter.charter.md")] });
    ada = s.members[0] as KeyPair;
    c = await startCharter({ dataDir });
  });
  after(async () => {
    await stopCharter(c);
    cleanup(c.dataDir);
  });

  test("issue 16 fuzz: arbitrary JSON on every surface never restarts a worker; every answer is a receipt, rows or a problem", { timeout: 30 * 60_000 }, async () => {
    const pids = treePids(c.dataDir);
    const address = await grpcAddress(c.url);
    await fc.assert(
      fc.asyncProperty(attack, async (a) => {
        await attackNode(c.url, address, ada, a);
        assert.equal(treePids(c.dataDir), pids, "no worker restarted");
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    const health = await fetch(`${c.url}/health`);
    assert.equal(health.status, 200);
  });
});

describe("three voters", () => {
  let cluster: Cluster;
  const owner = generateKeyPair();
  before(async () => {
    cluster = await Cluster.start();
    await cluster.leader();
    const a = cluster.voter("a").dataDir;
    await cluster.cli(["tenant", "create", "acme", "--owner", owner.did, "--data", a]);
    for (const name of ["shipping.charter.md", "counter.charter.md"]) await cluster.cli(["install", new URL(`../contracts/examples/${name}`, import.meta.url).pathname, "--tenant", "acme", "--data", a]);
  });
  after(async () => {
    await cluster?.stop();
  });

  test("issue 16 fuzz: arbitrary JSON sent to any of three voters never restarts one; the log stays applicable", { timeout: 30 * 60_000 }, async () => {
    const pids = cluster.voters.map((v) => treePids(v.dataDir)).join();
    let i = 0;
    await fc.assert(
      fc.asyncProperty(attack, async (a) => {
        const v = cluster.voters[i++ % cluster.voters.length];
        await attackNode(v?.url as string, null, owner, a);
      }),
      { numRuns: Math.max(5, Math.floor(RUNS / 2)), endOnFailure: true },
    );
    // Every voter applied everything the log holds and still runs with the pids it had.
    await cluster.converged();
    assert.equal(cluster.voters.map((v) => treePids(v.dataDir)).join(), pids, "no voter restarted");
    for (const v of cluster.voters) assert.equal((await fetch(`${v.url}/health`)).status, 200, `voter ${v.id} is healthy`);
  });
});
