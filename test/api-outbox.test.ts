/**
 * The durable outbox on a real node: a no-op effect through the whole path with its signed receipt;
 * email sent through a local SMTP server (smtp-server, counting deliveries by Message-ID) exactly
 * once per effect while the outbox worker is killed with SIGKILL at random moments; a transient
 * refusal retried with back-off, a permanent one dead-lettered with its reason and retried or
 * dropped by the person (step-up); connector accounts (their secret never shown, their hosts
 * declared to the egress guard); bad input.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SMTPServer } from "smtp-server";
import { compileContract } from "../contracts/compile.ts";
import { connectChannel } from "../shared/channel/socket.ts";
import { verifyEffectReceipt } from "../shared/connectors/effect-receipt.ts";
import type { AdminRequests } from "../shared/protocol/admin.ts";
import { messageIdFor } from "../shared/connectors/message-id.ts";
import { dataPaths } from "../shared/worker/config.ts";
import { EngineLink } from "../shared/worker/engine-link.ts";
import { ApiClient, createAccount, printedSetupCode, stepUp } from "./helpers/api-client.ts";
import { type Charter, cleanup, lockOf, processState, sleep, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";
import type { SoftAuthenticator } from "./helpers/soft-authenticator.ts";

/** A local SMTP server: every message it takes, by Message-ID; recipients starting `later` are refused for now twice, `bounce` for good. */
async function smtpDouble() {
  const deliveries: string[] = [];
  let laterRefusals = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith("bounce")) return callback(Object.assign(new Error("no such mailbox"), { responseCode: 550 }));
      if (address.address.startsWith("later") && laterRefusals < 2) {
        laterRefusals++;
        return callback(Object.assign(new Error("try again later"), { responseCode: 451 }));
      }
      callback();
    },
    onData(stream, _session, callback) {
      let text = "";
      stream.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      stream.on("end", () => {
        const id = /^Message-ID:\s*(<[^>]+>)/im.exec(text)?.[1] ?? "none";
        deliveries.push(id);
        callback(null, `Ok: queued as Q${deliveries.length}`);
      });
    },
  });
  // A client killed mid-session resets its connection: the server says so here, and serves on.
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { server, port, deliveries, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("the durable outbox", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";
  let auth: SoftAuthenticator;
  let engine: EngineLink;
  let smtp: Awaited<ReturnType<typeof smtpDouble>>;
  let nodeDid = "";

  before(async () => {
    smtp = await smtpDouble();
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
    ({ cookie, auth } = await createAccount(api, printedSetupCode(node)));
    engine = new EngineLink(dataPaths(node.dataDir).engineSocket);
    nodeDid = ((await (await fetch(`${node.url}/.well-known/charter.json`)).json()) as { identity: string }).identity;
  });
  after(async () => {
    await engine.close();
    await stopCharter(node);
    await smtp.close();
    cleanup(node.dataDir);
  });

  const effect = async (id: string) => (await api.call("GET", `/api/outbox/${id}`, { cookie })).body as Record<string, unknown>;
  const until = (id: string, state: string, ms = 20_000) => waitFor(`${id} ${state}`, async () => ((await effect(id)).state === state ? effect(id) : undefined), ms);
  /** Queues an email the way the gateway does (a journal entry with its key), for the outbox to send. */
  const queueEmail = async (key: string, to: string) => {
    const { id } = await engine.request("journal-append", { topic: "effect", key, payload: { connector: "email", effect: "send", account: "home", args: { to: [to], subject: key, text: `message ${key}` } } });
    return `effect-${id}`;
  };

  it("runs a no-op effect through the outbox and signs its receipt", async () => {
    const queued = await api.call("POST", "/api/outbox/check", { cookie });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));
    const done = await until(queued.body.id as string, "done");
    const receipt = verifyEffectReceipt(done.receipt as string, { node: nodeDid });
    assert.ok(receipt.ok, JSON.stringify(receipt));
    assert.equal(receipt.value.id, queued.body.id);
    assert.equal(receipt.value.connector, "noop");
    assert.equal(receipt.value.attempts, 1);
    const list = await api.call("GET", "/api/outbox?state=done", { cookie });
    assert.ok((list.body.items as { id: string }[]).some((e) => e.id === queued.body.id));
    // Pages, newest first, by the opaque cursor of the list convention.
    const second = await api.call("POST", "/api/outbox/check", { cookie });
    await until(second.body.id as string, "done");
    const first = await api.call("GET", "/api/outbox?state=done&limit=1", { cookie });
    assert.deepEqual((first.body.items as { id: string }[]).map((e) => e.id), [second.body.id]);
    assert.equal(typeof first.body.next, "string");
    const next = await api.call("GET", `/api/outbox?state=done&limit=1&after=${first.body.next as string}`, { cookie });
    assert.deepEqual((next.body.items as { id: string }[]).map((e) => e.id), [queued.body.id]);
    assert.equal(next.body.next, null);
  });

  it("keeps an account's secret out of every answer and declares its hosts", async () => {
    const body = { fields: { smtpHost: "127.0.0.1", smtpPort: smtp.port, smtpSecurity: "none", from: "ada@home.example" }, secret: "hunter2-secret" };
    const unstepped = await api.call("PUT", "/api/settings/integrations/connectors/email/accounts/home", { cookie, body });
    assert.equal(unstepped.status, 403);
    await stepUp(api, auth, cookie);
    const set = await api.call("PUT", "/api/settings/integrations/connectors/email/accounts/home", { cookie, body });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.hasSecret, true);
    assert.deepEqual(set.body.hosts, [`127.0.0.1:${smtp.port}`]);
    const listed = await api.call("GET", "/api/settings/integrations/connectors", { cookie });
    assert.ok(!JSON.stringify(listed.body).includes("hunter2"));
    const egress = JSON.parse(readFileSync(join(node.dataDir, "run", "egress.json"), "utf8")) as { hosts: string[] };
    assert.ok(egress.hosts.includes(`127.0.0.1:${smtp.port}`));
  });

  it("sends each email once under its own Message-ID while the outbox worker is killed at random moments", async () => {
    const count = 12;
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await queueEmail(`kill-${i}`, `friend${i}@example.org`));
    let kills = 0;
    for (let k = 0; k < 4; k++) {
      await sleep(100 + Math.floor(Math.random() * 400));
      const pid = lockOf(node.dataDir).workers.outbox;
      if (pid === undefined) continue;
      process.kill(pid, "SIGKILL");
      kills++;
      await waitFor("the outbox back", () => {
        const next = lockOf(node.dataDir).workers.outbox;
        return next !== undefined && next !== pid && processState(next) !== null ? true : undefined;
      }, 20_000);
    }
    for (const id of ids) await until(id, "done", 60_000);
    const distinct = new Set(smtp.deliveries.filter((d) => d.startsWith("<charter.")));
    assert.equal(distinct.size, count, "every effect's message arrived");
    // A kill between the server's answer and the receipt can send a message again, under the same Message-ID.
    assert.ok(smtp.deliveries.length <= count + kills, `${smtp.deliveries.length} deliveries for ${count} effects and ${kills} kills`);
    for (const id of ids) {
      const done = await effect(id);
      const receipt = verifyEffectReceipt(done.receipt as string, { node: nodeDid });
      assert.ok(receipt.ok);
      assert.match(String(receipt.value.providerId), /^Q\d+$/);
    }
  });

  it("retries a transient refusal with back-off and dead-letters a permanent one; the person retries or drops it", async () => {
    const later = await queueEmail("later-1", "later@example.org");
    const bounce = await queueEmail("bounce-1", "bounce@example.org");
    const dead = await until(bounce, "dead");
    assert.match(String(dead.lastError), /refused the message/);
    const retried = await waitFor("a retry scheduled", async () => {
      const e = await effect(later);
      return e.state === "pending" && typeof e.lastError === "string" ? e : undefined;
    });
    assert.ok(typeof retried.nextAttemptAt === "string");
    await until(later, "done", 30_000);
    assert.ok(((await effect(later)).attempts as number) >= 2);

    const notStepped = await api.call("POST", `/api/outbox/${bounce}/retry`, { cookie: cookie });
    // The step-up of the earlier test may still hold; either it runs or it asks for one, never a 5xx.
    assert.ok([200, 403].includes(notStepped.status), JSON.stringify(notStepped.body));
    await stepUp(api, auth, cookie);
    if (notStepped.status === 403) assert.equal((await api.call("POST", `/api/outbox/${bounce}/retry`, { cookie })).status, 200);
    await until(bounce, "dead");
    assert.equal((await api.call("POST", `/api/outbox/${later}/drop`, { cookie })).status, 409);
    assert.equal((await api.call("POST", `/api/outbox/${bounce}/drop`, { cookie })).status, 204);
    assert.equal((await api.call("GET", `/api/outbox/${bounce}`, { cookie })).status, 404);
  });

  it("refuses a worker's connection to a host nothing declared, and logs it", async () => {
    // A model endpoint (declared by its connection) that redirects to a host nobody declared.
    let reached = 0;
    const elsewhere = createServer((_req, res) => {
      reached++;
      res.end("{}");
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    const redirecting = createServer((req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}${req.url ?? "/"}` });
      res.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    try {
      await stepUp(api, auth, cookie);
      const base = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/v1`;
      assert.equal((await api.call("PUT", "/api/connections/redirecting/key", { cookie, body: { provider: "openai", key: "", baseUrl: base } })).status, 200);
      const listed = await api.call("POST", "/api/setup/model/models", { cookie, body: { connection: "redirecting" } });
      assert.ok(listed.status >= 400 && listed.status < 600 && listed.status !== 500, JSON.stringify(listed.body));
      assert.equal(reached, 0, "the undeclared host was never reached");
      // The supervisor writes the workers' lines to the log as they come: wait for the line.
      const line = new RegExp(`"msg":"egress refused","host":"127\\.0\\.0\\.1","port":${(elsewhere.address() as AddressInfo).port}`);
      await waitFor("the refusal in the log", () => (line.test(readFileSync(join(node.dataDir, "logs", "charter.log"), "utf8")) ? true : undefined));
    } finally {
      redirecting.close();
      elsewhere.close();
    }
  });

  it("answers bad input with a problem and no session with 401", async () => {
    assert.equal((await api.call("GET", "/api/outbox")).status, 401);
    assert.equal((await api.call("GET", "/api/outbox?state=lost", { cookie })).status, 400);
    assert.equal((await api.call("GET", "/api/outbox?limit=0", { cookie })).status, 400);
    assert.equal((await api.call("GET", "/api/outbox/effect-99999999", { cookie })).status, 404);
    assert.equal((await api.call("GET", "/api/outbox/nonsense", { cookie })).status, 404);
    await stepUp(api, auth, cookie);
    const bad = await api.call("PUT", "/api/settings/integrations/connectors/email/accounts/work", {
      cookie,
      body: { fields: { smtpHost: "mail.example.com", smtpPort: 99999, smtpSecurity: "none", extra: 1 }, secret: 5 },
    });
    assert.equal(bad.status, 400);
    const pointers = (bad.body.errors as { pointer: string }[]).map((e) => e.pointer).sort();
    assert.deepEqual(pointers, ["#/fields/extra", "#/fields/from", "#/fields/smtpPort", "#/fields/smtpSecurity", "#/secret"]);
    assert.equal((await api.call("PUT", "/api/settings/integrations/connectors/noop/accounts/x", { cookie, body: { fields: {} } })).status, 404);
    const remote = await api.call("PUT", "/api/settings/integrations/connectors/email/accounts/work", {
      cookie,
      body: { fields: { smtpHost: "mail.example.com", smtpPort: 25, smtpSecurity: "none", from: "a@b.example" } },
    });
    assert.equal(remote.status, 400, "no password in clear over the internet");
  });

  it("queues a contract's declared effects with the accepted command: a PDF document and an email, none for a refusal or while off", async () => {
    const boot = await api.call("GET", "/api/bootstrap", { cookie });
    const personal = boot.body.tenant.handle as string;
    const source = readFileSync(new URL("../contracts/examples/billing.charter.md", import.meta.url), "utf8");
    const compiled = compileContract(source).artifact;
    assert.ok(compiled !== undefined);
    const admin = await connectChannel<AdminRequests, Record<string, never>>(join(node.dataDir, "admin.sock"));
    try {
      const artifact = { id: compiled.id, schemaJson: new TextDecoder().decode(compiled.schemaBytes), wasm: Buffer.from(compiled.wasm).toString("base64"), source };
      assert.ok((await admin.request("install", { tenant: personal, artifact, by: boot.body.person.did })).ok);
    } finally {
      admin.close();
    }
    const act = (action: string, subject: string, args: Record<string, unknown>) => api.call("POST", "/api/data/act", { cookie, body: { namespace: "acme.billing", action, subject, args } });
    const declaredBy = async (subject: string) => {
      const all: Record<string, unknown>[] = [];
      for (const state of ["pending", "done", "dead"]) all.push(...((await api.call("GET", `/api/outbox?state=${state}&limit=200`, { cookie })).body.items as Record<string, unknown>[]));
      return all.filter((e) => (e.source as { subject?: string } | null)?.subject === subject);
    };

    // Off by default: the contract's effects queue nothing.
    assert.deepEqual((await api.call("GET", "/api/settings/effects", { cookie })).body, { tenant: personal, email: null, pdf: false });
    assert.equal((await act("Draft", "inv-off", { number: "OFF-1", customer: "off@example.org", total_cents: 100 })).status, 200);
    assert.equal((await act("Send", "inv-off", { note: "" })).status, 200);
    assert.deepEqual(await declaredBy("inv-off"), []);

    await stepUp(api, auth, cookie);
    const bad = await api.call("PUT", "/api/settings/effects", { cookie, body: { email: { account: "nobody" }, pdf: "yes", more: 1 } });
    assert.equal(bad.status, 400);
    assert.deepEqual((bad.body.errors as { pointer: string }[]).map((e) => e.pointer).sort(), ["#/more"]);
    const wrong = await api.call("PUT", "/api/settings/effects", { cookie, body: { email: { account: "nobody" }, pdf: "yes" } });
    assert.deepEqual((wrong.body.errors as { pointer: string }[]).map((e) => e.pointer).sort(), ["#/email/account", "#/pdf"]);
    const on = await api.call("PUT", "/api/settings/effects", { cookie, body: { email: { account: "home" }, pdf: true } });
    assert.equal(on.status, 200, JSON.stringify(on.body));

    assert.equal((await act("Draft", "inv-1", { number: "2026-7", customer: "pay@example.org", total_cents: 1250 })).status, 200);
    const sent = await act("Send", "inv-1", { note: "Thank you." });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const receipt = sent.body.receipt as { id: string; seq: number };
    const queued = await declaredBy("inv-1");
    assert.deepEqual(queued.map((e) => e.connector).sort(), ["email", "pdf"]);
    const pdf = await until(queued.find((e) => e.connector === "pdf")?.id as string, "done");
    const email = await until(queued.find((e) => e.connector === "email")?.id as string, "done");
    assert.deepEqual(pdf.source, { tenant: personal, namespace: "acme.billing", action: "Send", subject: "inv-1", receipt: receipt.id, seq: receipt.seq });
    assert.ok(smtp.deliveries.includes(messageIdFor(`${receipt.id}:1`, "ada@home.example")), "the email reached the SMTP server under the effect's Message-ID");
    assert.ok(verifyEffectReceipt(email.receipt as string, { node: nodeDid }).ok);

    const document = await fetch(`${node.url}/api/outbox/${pdf.id as string}/document`, { headers: { cookie } });
    assert.equal(document.status, 200);
    assert.equal(document.headers.get("content-type"), "application/pdf");
    assert.match(document.headers.get("content-disposition") ?? "", /filename="invoice-2026-7\.pdf"/);
    const bytes = Buffer.from(await document.arrayBuffer());
    assert.equal(bytes.subarray(0, 5).toString("latin1"), "%PDF-");
    assert.equal(`sha256:${createHash("sha256").update(bytes).digest("hex")}`, pdf.providerId);
    assert.equal((await api.call("GET", `/api/outbox/${email.id as string}/document`, { cookie })).status, 404, "an email is no document");
    assert.equal((await fetch(`${node.url}/api/outbox/${pdf.id as string}/document`)).status, 401);

    // A refused command queues nothing: the invoice was sent already.
    assert.equal((await act("Send", "inv-1", { note: "again" })).status, 422);
    assert.equal((await declaredBy("inv-1")).length, 2);

    // Switched off again: accepted commands queue nothing.
    assert.equal((await api.call("PUT", "/api/settings/effects", { cookie, body: { email: null, pdf: false } })).status, 200);
    assert.equal((await act("Draft", "inv-2", { number: "2026-8", customer: "pay@example.org", total_cents: 5 })).status, 200);
    assert.equal((await act("Send", "inv-2", { note: "" })).status, 200);
    assert.deepEqual(await declaredBy("inv-2"), []);
  });
});
