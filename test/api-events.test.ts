/**
 * `/api/events` on a real `charter node`: the upgrade's refusals (401 without a session, 403 from
 * another origin, 400 for a bad `after`), the commit frames of a tenant the person belongs to and
 * none of another, `?after=` replaying exactly what was missed before going live, a client that
 * stops reading closed with 4008 while another keeps up, the socket of a session signed out or ended
 * from another session closed with 4001 at once (the periodic re-check is set to ten minutes here,
 * so only the closing at the end itself can pass), garbage upgrades that leave the gateway answering, and 1001 when the node stops.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { Agent, type IncomingMessage, request } from "node:http";
import { readFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import type { Channel } from "../shared/channel/channel.ts";
import { connectChannel } from "../shared/channel/socket.ts";
import { generateKeyPair, newInstallId, signCommand, signInstall } from "../shared/identity/index.ts";
import type { AdminRequests } from "../shared/protocol/admin.ts";
import { ApiClient, createAccount, printedSetupCode, signIn, stepUp } from "./helpers/api-client.ts";
import { type Charter, cleanup, lockOf, sleep, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";
import type { SoftAuthenticator } from "./helpers/soft-authenticator.ts";
import type { Commit } from "../workers/gateway/api/events/commit-feed.ts";

const COUNTER = `# Counter

\`\`\`charter
namespace acme.counter
version 1.0.0

aggregate Counter {
  public count: Int = 0

  action Increment(by: Int) api authenticated {
    authorize member
    durability local
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

const ada = generateKeyPair(); // owns both tenants
const TENANTS = new Set(["acme", "globex"]);

/** A commit frame as a client reads it. */
type CommitFrame = Omit<Commit, "committedAt"> & { id: string; kind: string; at: string };

/** A socket's frames as they arrive (commits of this test's tenants only), and how it closed. */
class Listener {
  readonly ws: WebSocket;
  readonly frames: CommitFrame[] = [];
  closed: { code: number; reason: string } | null = null;
  readonly ended: Promise<{ code: number; reason: string }>;

  constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as CommitFrame;
      if (frame.kind === "commit" && TENANTS.has(frame.tenant)) this.frames.push(frame);
    });
    this.ended = once(ws, "close").then(([code, reason]) => (this.closed = { code: code as number, reason: String(reason) }));
  }

  seqs(): number[] {
    return this.frames.map((f) => f.seq);
  }

  async until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
    await waitFor(what, () => (check() ? true : undefined), timeoutMs);
  }
}

describe("/api/events on a real node", () => {
  let node: Charter;
  let api: ApiClient;
  let auth: SoftAuthenticator;
  let cookie: string;
  let admin: Channel<AdminRequests, Record<string, never>>;
  let wsBase: string;
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });

  before(async () => {
    node = await startCharter({ edition: "node", env: { CHARTER_EVENTS_SESSION_CHECK_MS: "600000" } });
    api = new ApiClient(node);
    wsBase = node.url.replace(/^http/, "ws");
    const created = await createAccount(api, printedSetupCode(node));
    auth = created.auth;
    cookie = created.cookie;
    const accounts = new DatabaseSync(join(node.dataDir, "accounts.db"), { readOnly: true });
    const person = (accounts.prepare("SELECT did FROM account").get() as { did: string }).did;
    accounts.close();
    admin = await connectChannel<AdminRequests, Record<string, never>>(join(node.dataDir, "admin.sock"));
    for (const tenant of TENANTS) {
      assert.ok((await admin.request("tenant-create", { handle: tenant, owners: [ada.did], by: null })).ok);
      const envelope = signInstall(ada, { tenant, source: COUNTER, issuedAt: new Date().toISOString(), id: newInstallId() });
      const installed = await post(`/v1/${tenant}/_install`, JSON.stringify({ install: envelope }));
      assert.ok(installed.status >= 200 && installed.status < 300, JSON.stringify(installed));
    }
    assert.ok((await admin.request("tenant-member-add", { tenant: "acme", did: person })).ok);
  });
  after(async () => {
    agent.destroy();
    admin?.close();
    if (node !== undefined) {
      await stopCharter(node);
      cleanup(node.dataDir);
    }
  });

  function post(path: string, body: string): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const req = request(`${node.url}${path}`, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text === "" ? null : JSON.parse(text) }));
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  /** Commits an increment in `tenant` (`by` 0 is refused) and answers its seq. */
  async function commit(tenant: string, subject = `c-${randomUUID().slice(0, 8)}`, by = 1): Promise<number> {
    const jws = signCommand(ada, { tenant, namespace: "acme.counter", action: "Increment", subject, args: { by }, idempotencyKey: randomUUID(), issuedAt: new Date().toISOString() });
    const answer = await post(`/v1/${tenant}/acme.counter/actions/Increment`, JSON.stringify({ command: jws }));
    assert.ok(answer.status === 200 || answer.status === 422, JSON.stringify(answer));
    return answer.body.receipt.seq as number;
  }

  /** Commits `count` increments with 32 in flight; answers their seqs in order. */
  async function burst(tenant: string, count: number, subject: (i: number) => string = (i) => `burst-${i}`): Promise<number[]> {
    const seqs: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < count) {
          const i = next++;
          seqs.push(await commit(tenant, subject(i)));
        }
      }),
    );
    return seqs.sort((a, b) => a - b);
  }

  /** Opens `/api/events` (with `query`) under `cookie`, from the node's origin. */
  async function listen(query = "", options: { cookie?: string; origin?: string } = {}): Promise<Listener> {
    const ws = new WebSocket(`${wsBase}/api/events${query}`, { headers: { cookie: options.cookie ?? cookie, origin: options.origin ?? api.origin } });
    const listener = new Listener(ws);
    await once(ws, "open");
    return listener;
  }

  /** Tries to open `/api/events` and answers the refusal: status and problem document. */
  async function refusal(query: string, headers: Record<string, string>): Promise<{ status: number; type: string; body: any }> {
    const ws = new WebSocket(`${wsBase}/api/events${query}`, { headers });
    ws.on("error", () => {});
    const [, res] = (await once(ws, "unexpected-response")) as [unknown, IncomingMessage];
    let text = "";
    for await (const chunk of res) text += String(chunk);
    return { status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body: JSON.parse(text) };
  }

  it("refuses the upgrade without a session (401), from another origin (403) and with a bad after (400)", async () => {
    const none = await refusal("", { origin: api.origin });
    assert.deepEqual([none.status, none.body.code, none.type], [401, "unauthenticated", "application/problem+json"]);
    assert.deepEqual(Object.keys(none.body).sort(), ["code", "detail", "status", "title", "type"]);
    const foreign = await refusal("", { cookie, origin: "https://evil.example" });
    assert.deepEqual([foreign.status, foreign.body.code], [403, "bad-origin"]);
    for (const bad of ["-1", "abc", "1.5", ""]) {
      const r = await refusal(`?after=${bad}`, { cookie, origin: api.origin });
      assert.deepEqual([r.status, r.body.code], [400, "bad-parameters"], bad);
    }
  });

  it("sends the commit frames of a tenant the person belongs to, with their fields, and none of another", async () => {
    const listener = await listen();
    const first = await commit("acme", "order-1");
    const hidden = await commit("globex", "secret-1");
    const refused = await commit("acme", "order-2", 0);
    await listener.until("acme's two commits", () => listener.frames.length >= 2);
    const last = await commit("acme", "order-3");
    await listener.until("the third", () => listener.seqs().includes(last));
    // Each frame says when it was committed (RFC 3339), a moment ago.
    const at = listener.frames.map((f) => f.at);
    assert.ok(at.every((t) => typeof t === "string" && Math.abs(Date.parse(t) - Date.now()) < 120_000), JSON.stringify(at));
    assert.deepEqual(listener.frames.map((f) => ({ ...f, at: undefined })), [
      { id: String(first), kind: "commit", tenant: "acme", namespace: "acme.counter", aggregate: "Counter", subject: "order-1", action: "Increment", outcome: "accepted", seq: first, at: undefined },
      { id: String(refused), kind: "commit", tenant: "acme", namespace: "acme.counter", aggregate: "Counter", subject: "order-2", action: "Increment", outcome: "refused", seq: refused, at: undefined },
      { id: String(last), kind: "commit", tenant: "acme", namespace: "acme.counter", aggregate: "Counter", subject: "order-3", action: "Increment", outcome: "accepted", seq: last, at: undefined },
    ]);
    assert.ok(hidden > first && hidden < last);
    listener.ws.close();
    await listener.ended;
  });

  it("?after= replays exactly the commits missed, then continues live, with no gap and no repeat while commits keep coming", async () => {
    const first = await listen();
    const seen = await commit("acme");
    await first.until("a frame", () => first.seqs().includes(seen));
    first.ws.close();
    await first.ended;
    const missed = [...(await burst("acme", 40, (i) => `missed-${i}`)), ...(await burst("globex", 10, (i) => `hidden-${i}`))];
    // Commits keep coming while the client reconnects and replays.
    let posting = true;
    const during: number[] = [];
    const poster = (async () => {
      while (posting) during.push(await commit(during.length % 4 === 3 ? "globex" : "acme"));
    })();
    await sleep(50);
    const second = await listen(`?after=${seen}`);
    await sleep(300);
    posting = false;
    await poster;
    const live = await burst("acme", 5, (i) => `live-${i}`);
    await second.until("the live commits", () => live.every((s) => second.seqs().includes(s)));
    const acme = await acmeSeqsAfter(seen);
    assert.ok(acme.length >= 45 && during.length > 0, `${acme.length} commits, ${during.length} during the replay`);
    assert.deepEqual(second.seqs(), acme);
    assert.ok(missed.every((s) => s > seen));
    second.ws.close();
    await second.ended;
  });

  /** The acme history entries after `seq`, from the store. */
  async function acmeSeqsAfter(seq: number): Promise<number[]> {
    const db = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
    try {
      return (db.prepare("SELECT seq FROM history WHERE tenant = 'acme' AND seq > ? ORDER BY seq").all(seq) as { seq: number }[]).map((r) => r.seq);
    } finally {
      db.close();
    }
  }

  it("closes a client that stops reading with 4008, while another keeps receiving", async () => {
    const reader = await listen();
    const stalled = await listen();
    const socket = (stalled.ws as unknown as { _socket: Socket })._socket;
    socket.pause();
    // Long subjects: the stalled client's kernel buffers and then its 1 MiB fill sooner.
    const pad = "p".repeat(100);
    let sent: number[] = [];
    const start = Date.now();
    // The server closes the stalled socket, which cannot read the close frame while paused; the reader counts on.
    for (let round = 0; round < 30; round++) {
      sent = sent.concat(await burst("acme", 1000, (i) => `${pad}-${round}-${i}`));
      await reader.until("the reader keeping up", () => reader.frames.length >= sent.length, 20_000);
      if (round >= 3 && (await serverClosed())) break;
    }
    assert.ok(await serverClosed(), `the stalled client is closed after ${sent.length} commits (${Date.now() - start} ms)`);
    assert.deepEqual(reader.seqs().slice(-sent.length), sent, "the reader got every frame");
    const more = await commit("acme");
    await reader.until("the reader still live", () => reader.seqs().includes(more));
    socket.resume();
    const { code, reason } = await stalled.ended;
    assert.equal(code, 4008);
    assert.match(reason, /reconnect with \?after=/);
    reader.ws.close();
    await reader.ended;
  });

  /** Whether the node has closed a socket with 4008: its log says so (the paused client cannot read the close frame yet). */
  async function serverClosed(): Promise<boolean> {
    const log = await readFile(join(node.dataDir, "logs", "charter.log"), "utf8").catch(() => "");
    return log.split("\n").some((line) => line.includes('"msg":"event socket closed"') && line.includes('"code":4008'));
  }

  it("closes a socket with 4001 when its session is signed out", async () => {
    const other = await signIn(api, auth);
    const listener = await listen("", { cookie: other });
    const mine = await listen();
    const out = await api.call("POST", "/api/account/signout", { cookie: other });
    assert.equal(out.status, 204);
    const { code } = await listener.ended;
    assert.equal(code, 4001);
    assert.equal(mine.ws.readyState, WebSocket.OPEN, "another session's socket stays open");
    mine.ws.close();
    await mine.ended;
  });

  it("closes a socket with 4001 at once when its session is ended from another session", async () => {
    const other = await signIn(api, auth);
    const listener = await listen("", { cookie: other });
    const mine = await listen();
    const listed = await api.call("GET", "/api/account/sessions", { cookie: other });
    const otherId = (listed.body.items as { id: string; current: boolean }[]).find((s) => s.current)?.id;
    assert.ok(otherId !== undefined, JSON.stringify(listed.body));
    await stepUp(api, auth, cookie);
    const ended = await api.call("POST", `/api/account/sessions/${otherId}/end`, { cookie, body: {} });
    assert.equal(ended.status, 204, JSON.stringify(ended.body));
    const { code } = await listener.ended;
    assert.equal(code, 4001);
    assert.equal(mine.ws.readyState, WebSocket.OPEN, "the session that ended the other keeps its socket");
    mine.ws.close();
    await mine.ended;
  });

  it("garbage upgrades never take the gateway down", async () => {
    const gateway = lockOf(node.dataDir).workers.gateway;
    const port = Number(new URL(node.url).port);
    const raw = (bytes: string | Buffer, wait = 200) =>
      new Promise<string>((resolve) => {
        const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
        let text = "";
        socket.on("data", (d) => (text += d.toString("latin1")));
        socket.on("error", () => {});
        socket.on("close", () => resolve(text));
        setTimeout(() => socket.destroy(), wait);
      });
    const upgrade = (target: string, extra = "", host = "127.0.0.1") => `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n${extra}\r\n`;
    const withCookie = `Cookie: ${cookie}\r\nOrigin: ${api.origin}\r\n`;
    const answers = [
      await raw(upgrade("/api/events?after=%00", withCookie)),
      await raw(upgrade("/api/events?after=1&after=2", withCookie)),
      await raw(upgrade("/api/nothing", withCookie)),
      await raw(upgrade("/api/events", withCookie, "evil.example")),
      await raw("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" + withCookie + "\r\n"),
      await raw(upgrade("/api/events", `Cookie: charter_session=${"x".repeat(5000)}\r\n`)),
      await raw(upgrade("/api/events", withCookie).replace("Version: 13", "Version: 7")),
    ];
    for (const [i, a] of answers.entries()) assert.match(a, /^HTTP\/1\.1 (400|401|403|404|421)/, `${i}: ${a.slice(0, 80)}`);
    // Open, then send garbage frames, an oversized message, and hang up mid-frame.
    for (const tail of [Buffer.from([0xff, 0xff, 0xff]), Buffer.concat([Buffer.from([0x81, 0xfe, 0x40, 0x00, 1, 2, 3, 4]), Buffer.alloc(100)]), Buffer.from([0x81, 0x05, 1])]) {
      const answer = await raw(Buffer.concat([Buffer.from(upgrade("/api/events", withCookie)), tail]));
      assert.match(answer, /^HTTP\/1\.1 101/);
    }
    // Half a request, then gone.
    await raw(upgrade("/api/events", withCookie).slice(0, 40), 20);
    const health = await fetch(`${node.url}/health`);
    assert.equal(health.status, 200);
    assert.equal(lockOf(node.dataDir).workers.gateway, gateway, "the same gateway process answers");
    const listener = await listen();
    const seq = await commit("acme");
    await listener.until("a frame after the garbage", () => listener.seqs().includes(seq));
    listener.ws.close();
    await listener.ended;
  });

  it("stopping the node closes its event sockets with 1001", async () => {
    const listener = await listen();
    await stopCharter(node);
    assert.equal((await listener.ended).code, 1001);
  });
});
