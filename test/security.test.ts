/**
 * Issue 16: what anyone on the network can send must not crash a worker, fill the disk, or keep the
 * node from answering. Each test names the finding it guards; every one runs against real nodes.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, test } from "node:test";
import { COMMAND_TYP, generateKeyPair, type KeyPair } from "../shared/identity/index.ts";
import { signJws } from "../shared/identity/jws.ts";
import { openDatabase } from "../shared/store/open.ts";
import { delegate } from "../workers/engine/tenants.ts";
import { type Charter, cleanup, lockOf, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { act, post, signed } from "./helpers/client.ts";
import { describeProto, grpc, grpcAddress, removeDir, serviceClient } from "./helpers/grpc-client.ts";
import { example, seed } from "./helpers/seed.ts";

/** A command whose `args` nest `depth` arrays deep, signed by `who` — built as text, since JSON.stringify itself cannot. */
function deepCommand(who: KeyPair, path: { tenant: string; namespace: string; action: string }, depth: number): string {
  const args = `{"a":${"[".repeat(depth)}${"]".repeat(depth)}}`;
  const payload = `{"tenant":${JSON.stringify(path.tenant)},"namespace":${JSON.stringify(path.namespace)},"action":${JSON.stringify(path.action)},"subject":"s1","args":${args},"idempotencyKey":"${randomUUID()}","issuedAt":"${new Date().toISOString()}"}`;
  return signJws({ kid: who.did, typ: COMMAND_TYP }, payload, who.secretKey);
}

/** The pids of the tree: the supervisor's and every worker's. */
function pidsOf(dataDir: string): string {
  const lock = lockOf(dataDir);
  return JSON.stringify({ pid: lock.pid, workers: lock.workers });
}

async function healthOf(url: string, host?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/health`, { headers: host === undefined ? {} : { host }, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("one node under attack", () => {
  let c: Charter;
  let ada: KeyPair;
  let db: DatabaseSync;
  const stranger = generateKeyPair();
  /** Holds `shipping`, which the shipping contract delegates Ship to. */
  const shipper = generateKeyPair();
  /** Holds a scope no contract of the tenant delegates anything to. */
  const unrelated = generateKeyPair();

  before(async () => {
    const dataDir = tempDataDir();
    const s = await seed(dataDir, { contracts: [example("shipping.charter.md"), example("counter.charter.md")] });
    ada = s.members[0] as KeyPair;
    const writer = openDatabase(join(dataDir, "charter.db"));
    for (const [who, scope] of [[shipper, "shipping"], [unrelated, "totally-unrelated"]] as const) assert.ok(delegate(writer, { tenant: "acme", did: who.did, scope, now: Date.now() }).ok);
    writer.close();
    c = await startCharter({ dataDir, args: ["--public-rate", "2"] });
    db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
  });
  after(async () => {
    db.close();
    await stopCharter(c);
    cleanup(c.dataDir);
  });

  test("issue 16 #1 #2: deeply nested args through REST, GraphQL and gRPC are refused at the edge; no worker restarts", async () => {
    const before = pidsOf(c.dataDir);
    for (const depth of [5_000, 4_000, 33]) {
      const unknown = deepCommand(stranger, { tenant: "nosuch", namespace: "x.y", action: "Z" }, depth);
      const r1 = await post(`${c.url}/v1/nosuch/x.y/actions/Z`, JSON.stringify({ command: unknown }));
      assert.equal(r1.status, 400, JSON.stringify(r1.body));
      assert.equal(r1.body.code, "json-over-limit");
      const real = deepCommand(ada, { tenant: "acme", namespace: "acme.shipping", action: "Request" }, depth);
      const r2 = await post(`${c.url}/v1/acme/acme.shipping/actions/Request`, JSON.stringify({ command: real }));
      assert.equal(r2.status, 400, JSON.stringify(r2.body));
      const gql = await post(`${c.url}/v1/acme/acme.shipping/graphql`, JSON.stringify({ query: "mutation M($c: String!) { Request(command: $c) { jws } }", variables: { c: real } }));
      assert.ok(gql.status === 200 || gql.status === 400, `GraphQL answered ${gql.status}`);
      assert.ok(Array.isArray(gql.body.errors), JSON.stringify(gql.body).slice(0, 300));
    }
    // GraphQL variables nested past the limit are refused before GraphQL walks them.
    const deepVars = `{"query":"query Q($v: String) { _contract { namespace } }","variables":{"v":${"[".repeat(5_000)}${"]".repeat(5_000)}}}`;
    const v = await post(`${c.url}/v1/acme/acme.shipping/graphql`, deepVars);
    assert.equal(v.status, 400);
    assert.match(JSON.stringify(v.body), /nested more than/);
    // A query's params likewise.
    const q = await post(`${c.url}/v1/acme/acme.shipping/queries/ByStatus`, `{"params":{"status":${"[".repeat(5_000)}${"]".repeat(5_000)}}}`);
    assert.equal(q.status, 400);

    // gRPC: the same command through the generated service.
    const address = await grpcAddress(c.url);
    assert.ok(address !== null);
    const proto = describeProto(example("shipping.charter.md"));
    const orders = serviceClient(proto.proto, "charter.acme.shipping.ShippingService", address);
    try {
      const r = await orders.call("Request", { command: deepCommand(ada, { tenant: "acme", namespace: "acme.shipping", action: "Request" }, 5_000) });
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.error.code, grpc.status.INVALID_ARGUMENT);
    } finally {
      orders.close();
      removeDir(proto.dir);
    }
    assert.equal(pidsOf(c.dataDir), before, "every worker still runs with the pid it had");
    assert.equal((await healthOf(c.url)).status, 200);
  });

  test("issue 16 #4: a refused command keeps its reason and a digest, not megabytes of arguments", async () => {
    const customer = "x".repeat(300_000);
    const r = await act(c.url, ada, { namespace: "acme.shipping", action: "Request", subject: "huge", args: { customer, destination: "Oslo", units: 1, crates: 1, credit_terms: false } });
    assert.equal(r.status, 422, JSON.stringify(r.body).slice(0, 300));
    assert.equal(r.body.receipt.reason.code, "text_too_long");
    const row = db.prepare("SELECT length(args) AS args, length(command) AS command, reason FROM history WHERE subject = 'huge'").get() as { args: number; command: number; reason: string };
    assert.ok(row.args <= 4096 + 200, `args stored: ${row.args} characters`);
    assert.ok(row.command <= 4096 + 200, `command stored: ${row.command} characters`);
    assert.match(row.reason, /text_too_long/);
    // An accepted command keeps everything.
    const ok = await act(c.url, ada, { namespace: "acme.shipping", action: "Request", subject: "small", args: { customer: "Ada", destination: "Oslo", units: 1, crates: 1, credit_terms: false } });
    assert.equal(ok.status, 200);
  });

  test("issue 16 #4: callers not known to the tenant are rate-limited (429 with Retry-After); members are not", async () => {
    const outsider = generateKeyPair();
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 14; i++) {
      const r = await act(c.url, outsider, { namespace: "acme.counter", action: "Start", subject: `t${i}`, args: { label: "x" } });
      statuses.push(r.status);
      if (r.status === 429) {
        retryAfter = r.headers.get("retry-after");
        assert.equal(r.body.code ?? r.body.type.split(":").at(-1), "rate-limited");
      }
    }
    assert.ok(statuses.slice(0, 10).every((s) => s === 200), statuses.join(","));
    assert.ok(statuses.slice(11).every((s) => s === 429), statuses.join(","));
    assert.ok(retryAfter !== null && Number(retryAfter) >= 1);
    for (let i = 0; i < 15; i++) {
      const r = await act(c.url, ada, { namespace: "acme.counter", action: "Start", subject: `m${i}`, args: { label: "x" } });
      assert.equal(r.status, 200);
    }
  });

  test("a delegate is rate-limited as a stranger except in a contract that delegates to its scope", async () => {
    const statuses = async (who: KeyPair, prefix: string) => {
      const out: number[] = [];
      for (let i = 0; i < 14; i++) out.push((await act(c.url, who, { namespace: "acme.shipping", action: "Ship", subject: `${prefix}${i}` })).status);
      return out;
    };
    const theirs = await statuses(unrelated, "u");
    assert.ok(theirs.slice(11).every((s) => s === 429), theirs.join(","));
    const shippers = await statuses(shipper, "s");
    assert.ok(shippers.every((s) => s !== 429), shippers.join(","));
  });

  test("issue 16 #16: a signer the tenant does not know gets one 404 for a missing tenant, namespace or action", async () => {
    const stranger404 = async (tenant: string, namespace: string, action: string) => {
      const r = await act(c.url, stranger, { tenant, namespace, action, subject: "s" });
      assert.equal(r.status, 404);
      return JSON.stringify(r.body);
    };
    const bodies = new Set([await stranger404("nosuch", "acme.counter", "Start"), await stranger404("acme", "acme.nothing", "Start"), await stranger404("acme", "acme.counter", "Nothing"), await stranger404("acme", "acme.counter", "Adjust")]);
    assert.equal(bodies.size, 1, [...bodies].join("\n"));
    assert.match([...bodies][0] as string, /no such tenant, namespace, query or action for this caller/);
    const member = await act(c.url, ada, { namespace: "acme.nothing", action: "Start", subject: "s" });
    assert.match(member.body.detail, /has no contract installed/, "a member still learns what is missing");
  });

  test("issue 16 #14: a request naming a foreign Host gets 421 (DNS rebinding)", async () => {
    const foreign = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${c.url}/health`, { headers: { host: "attacker.example:8787" }, agent: false }, (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
    assert.equal(foreign.status, 421);
    assert.match(foreign.body, /misdirected-request/);
    const command = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ command: signed(ada, { namespace: "acme.counter", action: "Start", subject: "rebound", args: { label: "x" } }) });
      const req = httpRequest(`${c.url}/v1/acme/acme.counter/actions/Start`, { method: "POST", headers: { host: "rebind.attacker.example", "content-type": "application/json", "content-length": Buffer.byteLength(body) }, agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      req.end(body);
    });
    assert.equal(command, 421, "the command route checks Host too");
    assert.equal(db.prepare("SELECT count(*) AS n FROM history WHERE subject = 'rebound'").get()?.n, 0);
    assert.equal((await healthOf(c.url, "localhost:1234")).status, 200);
  });
});

describe("quotas, the disk reserve and connection floods", () => {
  test("issue 16 #4: a tenant over its quota gets 507 and nothing is written", async () => {
    const dataDir = tempDataDir();
    const s = await seed(dataDir, { contracts: [example("counter.charter.md")] });
    const c = await startCharter({ dataDir, args: ["--quota-entries", "3"] });
    try {
      const who = s.members[0] as KeyPair;
      for (let i = 0; i < 3; i++) assert.equal((await act(c.url, who, { namespace: "acme.counter", action: "Start", subject: `q${i}`, args: { label: "x" } })).status, 200);
      const over = await act(c.url, who, { namespace: "acme.counter", action: "Start", subject: "q3", args: { label: "x" } });
      assert.equal(over.status, 507);
      assert.match(over.body.detail, /quota/);
    } finally {
      await stopCharter(c);
      cleanup(dataDir);
    }
  });

  test("issue 16 #15: /health says degraded, with the reason, when writes cannot be made; writes get 507", async () => {
    const dataDir = tempDataDir();
    const s = await seed(dataDir, { contracts: [example("counter.charter.md")] });
    // A reserve larger than any disk: the node is as good as full.
    const c = await startCharter({ dataDir, args: ["--disk-reserve", String(2 ** 52)] });
    try {
      const health = await healthOf(c.url);
      assert.equal(health.status, 200);
      assert.equal(health.body.status, "degraded");
      assert.match(health.body.degraded.join(" "), /under the reserve/);
      const r = await act(c.url, s.members[0] as KeyPair, { namespace: "acme.counter", action: "Start", subject: "d1", args: { label: "x" } });
      assert.equal(r.status, 507);
    } finally {
      await stopCharter(c);
      cleanup(dataDir);
    }
  });

  test("issue 16 #7: thousands of silent sockets do not keep /health out", async () => {
    const dataDir = tempDataDir();
    const c = await startCharter({ dataDir, args: ["--max-connections", "64"] });
    const sockets: Socket[] = [];
    try {
      const { hostname, port } = new URL(c.url);
      const open = (partial: boolean) =>
        new Promise<void>((resolve) => {
          const s = connect(Number(port), hostname, () => {
            if (partial) s.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
            resolve();
          });
          s.on("error", () => resolve());
          sockets.push(s);
        });
      for (let i = 0; i < 600; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => open((i + j) % 2 === 0)));
      let answered = 0;
      for (let i = 0; i < 20; i++) if ((await healthOf(c.url)).status === 200) answered++;
      assert.equal(answered, 20, "every /health check is answered");
    } finally {
      for (const s of sockets) s.destroy();
      await stopCharter(c);
      cleanup(dataDir);
    }
  });
});
