/**
 * `charter tenant|install|contracts` as an operator runs them: offline on a stopped data directory
 * (the command takes the lock and writes the store itself) and through the admin socket while a
 * node runs on it — with the same output either way.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { generateKeyPair } from "../shared/identity/key-pair.ts";
import { charterBin, cleanup, lockOf, startCharter, stopCharter, tempDataDir, type Charter } from "./helpers/charter-process.ts";

const shipping = fileURLToPath(new URL("../contracts/examples/shipping.charter.md", import.meta.url));
const ada = generateKeyPair().did;
const bob = generateKeyPair().did;
const cy = generateKeyPair().did;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function charter(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env };
    delete env.CHARTER_DATA;
    execFile(process.execPath, [charterBin, ...args], { env }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

/** The operator's session on `dataDir`: every output, in order, with the values that differ per run masked. */
async function session(dataDir: string): Promise<string[]> {
  const d = ["--data", dataDir];
  const outputs: string[] = [];
  const step = async (args: string[], expectCode = 0) => {
    const r = await charter([...args, ...d]);
    assert.equal(r.code, expectCode, `charter ${args.join(" ")}: ${r.stderr}`);
    outputs.push(`${r.code}|${r.stdout}|${r.stderr}`);
    return r;
  };
  const created = await step(["tenant", "create", "acme", "--owner", ada]);
  assert.match(created.stdout, /^did:key:z6Mk\w+\n$/);
  const tenantDid = created.stdout.trim();
  await step(["tenant", "create", "acme", "--owner", bob], 1);
  await step(["tenant", "member", "add", "acme", bob]);
  await step(["tenant", "owner", "add", "acme", cy]);
  await step(["tenant", "owner", "remove", "acme", cy]);
  await step(["tenant", "owner", "remove", "acme", ada], 1);
  await step(["tenant", "delegate", "acme", cy, "--scope", "shipping", "--until", "2099-01-01"]);
  const installed = await step(["install", shipping, "--tenant", "acme"]);
  assert.match(installed.stdout, /^art_[0-9a-f]{64}\n$/);
  await step(["install", shipping, "--tenant", "nobody"], 1);
  const rotated = await step(["tenant", "rotate-key", "acme"]);
  assert.match(rotated.stdout, /^did:key:z6Mk\w+\n$/);
  const rotatedDid = rotated.stdout.trim();
  assert.notEqual(rotatedDid, tenantDid);
  await step(["tenant", "rotate-key", "nobody"], 1);
  await step(["tenant", "show", "acme"]);
  const shown = await step(["tenant", "show", "acme", "--json"]);
  const described = JSON.parse(shown.stdout);
  assert.equal(described.did, rotatedDid);
  assert.deepEqual(described.retiredDids.map((r: { did: string }) => r.did), [tenantDid]);
  assert.deepEqual(described.owners, [ada]);
  assert.deepEqual(described.members, [bob]);
  assert.deepEqual(described.delegations, [{ did: cy, scope: "shipping", until: "2099-01-01T00:00:00.000Z" }]);
  assert.deepEqual(
    // Every tenant also has the standard library (std.*) from its creation.
    described.namespaces.filter((n: { namespace: string }) => !n.namespace.startsWith("std.")).map((n: { namespace: string; artifact: string; status: string }) => [n.namespace, n.artifact, n.status]),
    [["acme.shipping", installed.stdout.trim(), "active"]],
  );
  await step(["tenant", "list"]);
  await step(["contracts", "list", "--tenant", "acme", "--json"]);
  await step(["tenant", "show", "nobody"], 1);
  return outputs.map((o) => o.replaceAll(tenantDid, "<tenant-did>").replaceAll(rotatedDid, "<rotated-did>").replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, (t) => (t.startsWith("2099") ? t : "<time>")));
}

const dirs: string[] = [];
after(() => dirs.forEach(cleanup));

describe("charter tenant, install and contracts", () => {
  let offline: string[];

  it("work offline on a stopped data directory, under its lock", async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    // The operator commands need the directory to exist (only node, serve and identity create one).
    mkdirSync(join(dir, "data"), { mode: 0o700 });
    offline = await session(join(dir, "data"));
    assert.throws(() => statSync(join(dir, "data", "charter.lock")), "the lock is released afterwards");
    assert.equal(statSync(join(dir, "data", "keys", "tenant-acme.jwk")).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, "data", "keys", "tenant-acme.retired-1.jwk")).mode & 0o777, 0o600, "the rotated-out key is kept");
  });

  it("go through the admin socket while a node runs, with the same output", async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const node: Charter = await startCharter({ dataDir: dir });
    try {
      assert.equal(statSync(join(dir, "admin.sock")).mode & 0o777, 0o600);
      const live = await session(dir);
      assert.deepEqual(live, offline);
      assert.equal(lockOf(dir).pid, node.child.pid, "the node kept its lock: the engine did the writes");
    } finally {
      assert.equal((await stopCharter(node)).code, 0);
    }
    // What the node wrote is there for the offline commands once it has stopped.
    const shown = await charter(["tenant", "show", "acme", "--json", "--data", dir]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stdout).members, [bob]);
  });

  it("print a contract's diagnostics as FILE: <phase> error: … at line N:C and exit 1", async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const broken = join(dir, "broken.charter.md");
    writeFileSync(broken, readFileSync(shipping, "utf8").replace("units > 0", 'units > "zero"'));
    const r = await charter(["install", broken, "--tenant", "acme", "--data", dir]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^.*broken\.charter\.md: type error: .* at line 30:7\n$/);
  });

  it("have --help, and answer usage mistakes with one line and exit 2", async () => {
    for (const args of [["tenant", "--help"], ["tenant", "create", "--help"], ["tenant", "member", "--help"], ["tenant", "rotate-key", "--help"], ["install", "--help"], ["contracts", "--help"]]) {
      const r = await charter(args);
      assert.equal(r.code, 0, args.join(" "));
      assert.match(r.stdout, /^Usage: charter /);
    }
    for (const args of [["tenant", "create", "acme"], ["tenant", "frob"], ["tenant", "member", "promote", "acme", ada], ["tenant", "delegate", "acme", ada], ["install", shipping], ["contracts", "show"], ["tenant", "list", "extra"], ["tenant", "rotate-key"], ["tenant", "rotate-key", "acme", "extra"]]) {
      const r = await charter(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.stderr.split("\n").length, 2, `one line: ${r.stderr}`);
    }
  });
});
