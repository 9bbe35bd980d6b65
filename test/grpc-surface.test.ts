/**
 * Issue 6, the gRPC surface's lifecycle against a running tree: a node without contracts serves no
 * gRPC; installing one over HTTP starts it (its methods callable as soon as the install answers),
 * installing another through `charter install` (the admin socket) adds its service — both without
 * a restart; a `--grpc` port in use or spelled wrong is a one-line error.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { generateKeyPair, type KeyPair, newInstallId, signInstall } from "../shared/identity/index.ts";
import { type Charter, charterBin, cleanup, spawnCharter, startCharter, stopCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";
import { post, signed } from "./helpers/client.ts";
import { describeProto, grpc, grpcAddress, removeDir, serviceClient } from "./helpers/grpc-client.ts";
import { example } from "./helpers/seed.ts";

let c: Charter;
let owner: KeyPair;
let ada: KeyPair;

before(async () => {
  // No tenant at all: a tenant may come with contracts of its own (the standard library).
  c = await startCharter({ dataDir: tempDataDir() });
  owner = generateKeyPair();
  ada = generateKeyPair();
});
after(async () => {
  await stopCharter(c);
  cleanup(c.dataDir);
});

test("gRPC starts with the first install and serves each new contract without a restart", async () => {
  assert.equal(await grpcAddress(c.url), null, "no contract, no gRPC");
  assert.doesNotMatch(c.stdout, /gRPC listening/);
  const charter = (...args: string[]) => execFileSync(process.execPath, [charterBin, ...args, "--data", c.dataDir], { stdio: "pipe" });
  charter("tenant", "create", "acme", "--owner", owner.did);
  charter("tenant", "member", "add", "acme", ada.did);

  const counter = example("counter.charter.md");
  const installed = await post(`${c.url}/v1/acme/_install`, JSON.stringify({ install: signInstall(owner, { tenant: "acme", source: counter, issuedAt: new Date().toISOString(), id: newInstallId() }) }));
  assert.equal(installed.status, 200, JSON.stringify(installed.body));
  const address = await grpcAddress(c.url);
  assert.ok(address !== null, "serving gRPC once the install has answered");
  const counterProto = describeProto(counter);
  const tally = serviceClient(counterProto.proto, "charter.acme.counter.CounterService", address);
  try {
    const started = await tally.call("Start", { command: signed(ada, { namespace: "acme.counter", action: "Start", subject: "t1", args: { label: "cups" } }) });
    assert.ok(started.ok, started.ok ? "" : started.error.message);
    assert.equal(started.value.receipt.outcome, "Outcome_accepted");
    assert.equal(started.value.receipt.state.label, "cups");
    await waitFor("the address printed", () => (c.stdout.includes(`gRPC listening on ${address}\n`) ? true : undefined));
  } finally {
    tally.close();
    removeDir(counterProto.dir);
  }

  // Through the running node's admin socket, as an operator would: the gateway notices the store changed.
  const shipping = example("shipping.charter.md");
  const file = join(c.dataDir, "shipping.charter.md");
  writeFileSync(file, shipping);
  charter("install", file, "--tenant", "acme");
  const shippingProto = describeProto(shipping);
  const orders = serviceClient(shippingProto.proto, "charter.acme.shipping.ShippingService", address);
  try {
    const args = { customer: "Late Ltd", destination: "Oslo", units: 1, crates: 1, credit_terms: true };
    const requested = await waitFor("the new service", async () => {
      const r = await orders.call("Request", { command: signed(ada, { namespace: "acme.shipping", action: "Request", subject: "o1", args }) });
      if (!r.ok && r.error.code === grpc.status.UNIMPLEMENTED) return undefined;
      return r;
    });
    assert.ok(requested.ok, requested.ok ? "" : requested.error.message);
    assert.equal(requested.value.receipt.state.status, "OrderStatus_Requested");
    assert.equal(await grpcAddress(c.url), address, "the same server");
  } finally {
    orders.close();
    removeDir(shippingProto.dir);
  }
});

test("a --grpc port in use is a one-line error and a non-zero exit; a bad --grpc is a usage error", async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
  const port = (blocker.address() as { port: number }).port;
  const dataDir = tempDataDir();
  try {
    const busy = spawnCharter(["serve", "--data", dataDir, "--listen", "127.0.0.1:0", "--grpc", `127.0.0.1:${port}`]);
    assert.equal((await busy.exited).code, 1);
    assert.match(busy.stderr, new RegExp(`gRPC port 127\\.0\\.0\\.1:${port} is in use; choose another with --grpc HOST:PORT`));
  } finally {
    blocker.close();
    cleanup(dataDir);
  }
  const bad = spawnCharter(["serve", "--grpc", "nowhere"]);
  assert.equal((await bad.exited).code, 2);
  assert.match(bad.stderr, /^charter: --grpc expects HOST:PORT \(for example 127\.0\.0\.1:8789\), got 'nowhere'/);
});
