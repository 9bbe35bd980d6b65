/**
 * The node's log against a real started tree: answers ≥ 400 (a 404, 400s on the command route and
 * on the app's routes, a 403 to a bearer token), a refused command, an install, a retirement and a
 * restore, tenant changes, a slow batch (the threshold set to 0 here) and a worker's exit and
 * restart each leave one structured line in `DATA/logs/charter.log` — and no JWS, bearer token or
 * Authorization header reaches the log.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Channel } from "../shared/channel/channel.ts";
import { connectChannel } from "../shared/channel/socket.ts";
import { generateKeyPair, newInstallId, signBearer, signCommand, signInstall, type KeyPair } from "../shared/identity/index.ts";
import type { LogRecord } from "../shared/log.ts";
import type { AdminRequests } from "../shared/protocol/admin.ts";
import { cleanup, lockOf, startCharter, stopCharter, waitFor, type Charter } from "./helpers/charter-process.ts";

const TALLY = `# Tally

\`\`\`charter
namespace acme.tally
version 1.0.0

aggregate Tally {
  public count: Int = 0

  action Add(by: Int) api authenticated {
    authorize member
    validate {
      by > 0
    }
    apply {
      state.count = state.count + by
    }
  }
}
\`\`\`
`;

const ada = generateKeyPair(); // owner
const bob = generateKeyPair(); // member
const eve = generateKeyPair(); // a stranger

let node: Charter;
let admin: Channel<AdminRequests, Record<string, never>>;
/** Every JWS and token this test sent: none may appear in the log. */
const secrets: string[] = [];

before(async () => {
  node = await startCharter({ env: { CHARTER_SLOW_BATCH_MS: "0" } });
  admin = await connectChannel<AdminRequests, Record<string, never>>(join(node.dataDir, "admin.sock"));
  assert.ok((await admin.request("tenant-create", { handle: "acme", owners: [ada.did], by: null })).ok);
  assert.ok((await admin.request("tenant-member-add", { tenant: "acme", did: bob.did })).ok);
});
after(async () => {
  admin?.close();
  if (node !== undefined) {
    await stopCharter(node);
    cleanup(node.dataDir);
  }
});

function records(): LogRecord[] {
  return readFileSync(join(node.dataDir, "logs", "charter.log"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as LogRecord);
}

/** The first log record with `msg` whose fields include `fields`, once the supervisor has written it. */
function logged(msg: string, fields: Record<string, unknown>): Promise<LogRecord> {
  const matches = (r: LogRecord) => r.msg === msg && Object.entries(fields).every(([k, v]) => JSON.stringify(r[k]) === JSON.stringify(v));
  return waitFor(`a log line ${msg} ${JSON.stringify(fields)}`, () => records().find(matches));
}

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const r = await fetch(`${node.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  return { status: r.status, body: await r.json() };
}

function command(signer: KeyPair, namespace: string, by: number): string {
  const jws = signCommand(signer, { tenant: "acme", namespace, action: "Add", subject: "t-1", args: { by }, idempotencyKey: randomUUID(), issuedAt: new Date().toISOString() });
  secrets.push(jws);
  return JSON.stringify({ command: jws });
}

describe("the node's log", () => {
  it("has a line for each tenant change", async () => {
    const created = await logged("tenant created", { tenant: "acme", owners: [ada.did] });
    assert.equal(created.component, "engine");
    assert.equal(created.level, "info");
    await logged("member added", { tenant: "acme", did: bob.did });
  });

  it("logs an install with its tenant, namespace and artifact, and an install refused with its code", async () => {
    const jws = signInstall(ada, { tenant: "acme", source: TALLY, issuedAt: new Date().toISOString(), id: newInstallId() });
    secrets.push(jws);
    const r = await post("/v1/acme/_install", JSON.stringify({ install: jws }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await logged("installed", { tenant: "acme", namespace: "acme.tally", artifact: r.body.artifact, version: "1.0.0" });
    // The same signed install again: refused, and both the engine and the gateway say so.
    assert.equal((await post("/v1/acme/_install", JSON.stringify({ install: jws }))).status, 409);
    await logged("install refused", { tenant: "acme", artifact: r.body.artifact, code: "install_replayed" });
    await logged("answered", { method: "POST", route: "/v1/:tenant/_install", status: 409, code: "install-replayed" });
  });

  it("logs a refusal with its tenant, namespace, action and reason, and the batch that was slower than the threshold", async () => {
    const r = await post("/v1/acme/acme.tally/actions/Add", command(bob, "acme.tally", 0));
    assert.equal(r.status, 422);
    const refused = await logged("refused", { tenant: "acme", namespace: "acme.tally", action: "Add", reason: "condition_failed", count: 1 });
    assert.equal(refused.component, "engine");
    const slow = await logged("slow batch", { commands: 1 });
    assert.equal(slow.level, "warn");
    assert.equal(typeof slow.ms, "number");
  });

  it("logs answers ≥ 400 with their method, route pattern, status and problem code, at info", async () => {
    assert.equal((await fetch(`${node.url}/no/such/route`)).status, 404);
    const noRoute = await logged("answered", { method: "GET", route: null, status: 404, code: "not-found" });
    assert.equal(noRoute.level, "info");
    assert.equal(noRoute.component, "gateway");

    assert.equal((await post("/v1/acme/acme.tally/actions/Add", JSON.stringify({ command: "not-a-jws" }))).status, 400);
    await logged("answered", { method: "POST", route: "/v1/:tenant/:namespace/actions/:action", status: 400, code: "malformed-jws" });

    assert.equal((await post("/v1/acme/acme.nothing/actions/Add", command(bob, "acme.nothing", 1))).status, 404);
    await logged("answered", { method: "POST", route: "/v1/:tenant/:namespace/actions/:action", status: 404, code: "unknown-namespace" });

    assert.equal((await post("/v1/acme/_install", "{")).status, 400);
    await logged("answered", { method: "POST", route: "/v1/:tenant/_install", status: 400, code: "malformed-json" });

    const token = signBearer(eve, { tenant: "acme", now: Date.now() });
    secrets.push(token);
    assert.equal((await fetch(`${node.url}/v1/acme`, { headers: { authorization: `Bearer ${token}` } })).status, 403);
    await logged("answered", { method: "GET", route: "/v1/:tenant", status: 403, code: "not-member" });
  });

  it("logs a retirement and a restore", async () => {
    const retired = await admin.request("contract-retire", { tenant: "acme", namespace: "acme.tally" });
    assert.ok(retired.ok);
    await logged("retired", { tenant: "acme", namespace: "acme.tally", artifact: retired.value.artifact });
    assert.ok((await admin.request("contract-restore", { tenant: "acme", namespace: "acme.tally" })).ok);
    await logged("restored", { tenant: "acme", namespace: "acme.tally", artifact: retired.value.artifact });
  });

  it("logs a worker's exit and its restart", async () => {
    const { workers } = lockOf(node.dataDir);
    const pid = workers.gateway as number;
    process.kill(pid, "SIGKILL");
    const exited = await logged("worker exited", { worker: "gateway", pid, signal: "SIGKILL" });
    assert.equal(exited.level, "warn");
    await logged("restarting worker", { worker: "gateway" });
    await logged("worker started", { worker: "gateway", restart: 1 });
  });

  it("holds no JWS, bearer token or Authorization header", () => {
    const text = readFileSync(join(node.dataDir, "logs", "charter.log"), "utf8");
    assert.ok(secrets.length >= 4);
    for (const secret of secrets) {
      assert.ok(!text.includes(secret), "a JWS or token reached the log");
      // Not even its signature (the part no other field could hold).
      assert.ok(!text.includes(secret.split(".")[2] as string), "a signature reached the log");
    }
    assert.doesNotMatch(text, /eyJhbGciOi/, "no JWS header"); // base64url of '{"alg":'
    assert.doesNotMatch(text, /authorization|bearer /i);
  });
});
