/**
 * The exchange between two persons' nodes, on two real `charter node`s: each person pins the
 * other's did:key and node URL (a step-up; the URL's host declared for egress); Ada sends an
 * invoice of `std.invoices` to Bea's node, where it arrives as a document signed with Ada's key,
 * carrying the receipt of the command that last changed it — verified by Bea's node, and here with
 * the project's JWS helpers against Ada's did and her node's. The inbox stores nothing from an
 * unknown sender, nothing tampered with, nothing for another person, no bad receipt, nothing twice;
 * a delivery to a node that is down is kept as failed and delivered when tried again; a document
 * whose sender is unpinned no longer verifies; no session is 401, no step-up 403. A relationship is
 * renamed or moved to another URL (the URL needs a step-up), never re-pinned; each change is an
 * `exchange` frame on both persons' `/api/events`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { generateKeyPair, type KeyPair, signJws, verifyJws, verifyReceipt } from "../shared/identity/index.ts";
import { ApiClient, createAccount, printedSetupCode, signIn, stepUp } from "./helpers/api-client.ts";
import { FrameLog } from "./helpers/assistant-node.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";
import { invoiceArgs } from "./helpers/invoice-args.ts";
import { freePort } from "./helpers/ports.ts";
import type { SoftAuthenticator } from "./helpers/soft-authenticator.ts";

/** One person's node, signed in and stepped up. */
interface Person {
  node: Charter;
  api: ApiClient;
  cookie: string;
  auth: SoftAuthenticator;
  did: string;
  call(method: string, path: string, body?: unknown): ReturnType<ApiClient["call"]>;
}

/** Starts a node (on `port`, or any), creates the account of `firstName` and steps its session up. */
async function startPerson(firstName: string, port?: number, dataDir?: string): Promise<Person> {
  const node = await startNode(port, dataDir);
  const api = new ApiClient(node);
  const { cookie, auth } = await createAccount(api, printedSetupCode(node), undefined, firstName);
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { cookie, ...(body === undefined ? {} : { body }) });
  await stepUp(api, auth, cookie);
  const did = (await call("GET", "/api/bootstrap")).body.person.did as string;
  return { node, api, cookie, auth, did, call };
}

/** A node on `port` (its gRPC and webhook ports free ones), or on any port. */
function startNode(port?: number, dataDir?: string): Promise<Charter> {
  const args = port === undefined ? [] : ["--listen", `127.0.0.1:${port}`, "--grpc", "127.0.0.1:0", "--hooks-port", "0"];
  return startCharter({ edition: "node", args, ...(dataDir === undefined ? {} : { dataDir }) });
}

/** A document as the wire carries it, signed with `key` (a test's own: to see what an inbox refuses). */
function forged(key: KeyPair, fields: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const payload = { typ: "charter-document", id: `doc-forged-${Math.random().toString(36).slice(2)}`, from: key.did, namespace: "std.invoices", aggregate: "Invoice", subject: "inv-1", state: {}, sentAt: new Date().toISOString(), ...fields };
  return signJws({ kid: key.did, typ: "charter-document+jws", ...header }, JSON.stringify(payload), key.secretKey);
}

/** Posts `jws` to a node's inbox as another node does: no session, no Origin. */
async function postInbox(node: Charter, jws: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${node.url}/exchange/inbox`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jws }) });
  return { status: res.status, body: await res.json() };
}

/** The payload of a compact JWS, unchecked. */
function payloadOf(jws: string): any {
  return JSON.parse(Buffer.from(jws.split(".")[1] as string, "base64url").toString("utf8"));
}

describe("/api/exchange: signed documents between two persons' nodes", () => {
  let ada: Person;
  let bea: Person;
  /** Each person's `/api/events`. */
  let adaEvents: FrameLog;
  let beaEvents: FrameLog;
  const exchangeFrame = (log: FrameLog, event: string, document: string) => waitFor(`an exchange frame ${event} of ${document}`, () => log.of("exchange").find((f) => f.event === event && f.document === document), 10_000);
  let beaPort = 0;
  /** Each side's relationship with the other. */
  let adaKnowsBea = "";
  let beaKnowsAda = "";
  /** The receipt JWS of the command that last changed inv-1, and the document that carried it. */
  let approved = "";
  let sent = "";
  /** A key Bea pins (a relationship whose node is never reached): the inbox's refusals are signed with it. */
  const carol = generateKeyPair();

  const inbox = async (box: "in" | "out", person: Person) => {
    const listed = await person.call("GET", `/api/exchange/documents?box=${box}`);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return listed.body.items as { id: string; status: string; peer: string; relationship: string | null; attempts: number; error: string | null; subject: string }[];
  };
  const act = async (action: string, subject: string, args: Record<string, unknown> = {}) => {
    const answer = await ada.call("POST", "/api/data/act", { namespace: "std.invoices", action, subject, args });
    return answer;
  };

  before(async () => {
    beaPort = await freePort();
    [ada, bea] = await Promise.all([startPerson("Ada"), startPerson("Bea", beaPort)]);
    await waitFor(
      "std.invoices in Ada's personal tenant",
      async () => {
        const boot = await ada.call("GET", "/api/bootstrap");
        return (boot.body.tenant.contracts as { namespace: string }[]).some((c) => c.namespace === "std.invoices") ? true : undefined;
      },
      30_000,
    );
    [adaEvents, beaEvents] = await Promise.all([FrameLog.open(ada.node, ada.api, ada.cookie), FrameLog.open(bea.node, bea.api, bea.cookie)]);
  });
  after(async () => {
    adaEvents?.close();
    beaEvents?.close();
    await Promise.all([ada, bea].filter((p) => p !== undefined).map((p) => stopCharter(p.node)));
    for (const p of [ada, bea]) if (p !== undefined) cleanup(p.node.dataDir);
  });

  it("no session is 401; pinning or unpinning without a step-up is 403 step-up-required", async () => {
    for (const [method, path] of [
      ["GET", "/api/exchange/relationships"],
      ["POST", "/api/exchange/relationships"],
      ["GET", "/api/exchange/documents"],
      ["POST", "/api/exchange/documents"],
      ["GET", "/api/exchange/documents/doc-1"],
    ] as const) {
      const answer = await ada.api.call(method, path, { body: {} });
      assert.deepEqual([answer.status, answer.body.code], [401, "unauthenticated"], `${method} ${path}`);
    }
    const fresh = await signIn(ada.api, ada.auth);
    const add = await ada.api.call("POST", "/api/exchange/relationships", { cookie: fresh, body: { did: bea.did, url: bea.node.url, name: "Bea" } });
    assert.deepEqual([add.status, add.body.code], [403, "step-up-required"]);
    const remove = await ada.api.call("DELETE", "/api/exchange/relationships/rel-1", { cookie: fresh });
    assert.deepEqual([remove.status, remove.body.code], [403, "step-up-required"]);
    assert.deepEqual((await ada.call("GET", "/api/exchange/relationships")).body, { items: [], next: null });
  });

  it("a relationship's fields are checked, every wrong one named: 400 bad-settings", async () => {
    const bad = await ada.call("POST", "/api/exchange/relationships", { did: "did:key:z6MkNotAKey", url: "http://example.com", name: "" });
    assert.deepEqual([bad.status, bad.body.code], [400, "bad-settings"]);
    assert.deepEqual((bad.body.errors as { pointer: string }[]).map((e) => e.pointer), ["#/did", "#/url", "#/name"]);
    for (const url of ["ftp://127.0.0.1/", "https://user:pw@example.com", "https://example.com/?q=1", "not a url"]) {
      const answer = await ada.call("POST", "/api/exchange/relationships", { did: bea.did, url, name: "Bea" });
      assert.deepEqual([answer.status, answer.body.errors?.[0]?.pointer], [400, "#/url"], url);
    }
    const self = await ada.call("POST", "/api/exchange/relationships", { did: ada.did, url: bea.node.url, name: "Me" });
    assert.deepEqual([self.status, self.body.errors?.[0]?.pointer], [400, "#/did"]);
    const long = await ada.call("POST", "/api/exchange/relationships", { did: bea.did, url: bea.node.url, name: "x".repeat(101) });
    assert.deepEqual([long.status, long.body.errors?.[0]?.pointer], [400, "#/name"]);
    const unknown = await ada.call("POST", "/api/exchange/relationships", { did: bea.did, url: bea.node.url, name: "Bea", color: "red" });
    assert.deepEqual([unknown.status, unknown.body.code], [400, "malformed-body"]);
  });

  it("each person pins the other (201); the same did again is 409 relationship-exists; the host is declared for egress", async () => {
    const added = await ada.call("POST", "/api/exchange/relationships", { did: bea.did, url: `${bea.node.url}/`, name: " Bea " });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.match(added.body.id, /^rel-/);
    assert.deepEqual({ ...added.body, id: "", addedAt: "" }, { id: "", did: bea.did, url: bea.node.url, name: "Bea", addedAt: "", lastContact: null, lastError: null });
    adaKnowsBea = added.body.id;
    const again = await ada.call("POST", "/api/exchange/relationships", { did: bea.did, url: bea.node.url, name: "Bea again" });
    assert.deepEqual([again.status, again.body.code], [409, "relationship-exists"]);
    const egress = JSON.parse(readFileSync(join(ada.node.dataDir, "run", "egress.json"), "utf8")) as { hosts: string[] };
    assert.ok(egress.hosts.includes(`127.0.0.1:${beaPort}`), JSON.stringify(egress));

    const back = await bea.call("POST", "/api/exchange/relationships", { did: ada.did, url: ada.node.url, name: "Ada" });
    assert.equal(back.status, 201, JSON.stringify(back.body));
    beaKnowsAda = back.body.id;
    const pinned = await bea.call("POST", "/api/exchange/relationships", { did: carol.did, url: "http://127.0.0.1:9/", name: "Carol" });
    assert.equal(pinned.status, 201, JSON.stringify(pinned.body));

    const listed = await bea.call("GET", "/api/exchange/relationships?limit=1");
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.items.map((r: { did: string }) => r.did), [ada.did]);
    assert.ok(listed.body.next !== null);
    const rest = await bea.call("GET", `/api/exchange/relationships?limit=1&after=${listed.body.next}`);
    assert.deepEqual([rest.body.items.map((r: { did: string }) => r.did), rest.body.next], [[carol.did], null]);
  });

  it("Ada sends an invoice: it arrives at Bea's node signed with Ada's key, with the receipt of the command that last changed it", async () => {
    const recorded = await act("Record", "inv-1", invoiceArgs(1));
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
    const approve = await act("Approve", "inv-1");
    assert.equal(approve.status, 200, JSON.stringify(approve.body));
    approved = approve.body.jws;
    // Refused: history grows, the record does not; the document carries the Approve's receipt.
    assert.equal((await act("Approve", "inv-1")).status, 422);

    const sentAnswer = await ada.call("POST", "/api/exchange/documents", { relationship: adaKnowsBea, namespace: "std.invoices", subject: "inv-1" });
    assert.equal(sentAnswer.status, 201, JSON.stringify(sentAnswer.body));
    assert.deepEqual(sentAnswer.body, { id: sentAnswer.body.id, status: "delivered" });
    const id = sentAnswer.body.id as string;

    const received = await inbox("in", bea);
    assert.deepEqual(
      received.map((d) => [d.id, d.status, d.peer, d.relationship, d.subject]),
      [[id, "received", ada.did, beaKnowsAda, "inv-1"]],
    );
    const shown = await bea.call("GET", `/api/exchange/documents/${id}`);
    assert.equal(shown.status, 200, JSON.stringify(shown.body));
    assert.equal(shown.body.verified, true);
    assert.equal(shown.body.box, "in");
    const doc = shown.body.document;
    assert.deepEqual(
      { typ: doc.typ, id: doc.id, from: doc.from, to: doc.to, namespace: doc.namespace, aggregate: doc.aggregate, subject: doc.subject },
      { typ: "charter-document", id, from: ada.did, to: bea.did, namespace: "std.invoices", aggregate: "Invoice", subject: "inv-1" },
    );
    assert.equal(doc.state.supplier, "Acme Paper");
    assert.equal(doc.state.amount_minor, 1001);
    assert.equal(doc.state.status, "Approved");
    assert.equal(doc.receipt, approved, "the receipt JWS of the Approve, exactly as Ada's node answered it");

    // Checked here too, with the project's helpers: Ada's key signed the document, her node the receipt.
    sent = shown.body.jws;
    const verified = verifyJws(sent, { typ: "charter-document+jws" });
    assert.ok(verified.ok, JSON.stringify(verified));
    assert.equal(verified.value.signer, ada.did);
    assert.deepEqual(JSON.parse(verified.value.payload.toString("utf8")), doc);
    const adaNode = ((await (await fetch(`${ada.node.url}/.well-known/charter.json`)).json()) as { identity: string }).identity;
    const receipt = verifyReceipt(doc.receipt, { node: adaNode });
    assert.ok(receipt.ok, JSON.stringify(receipt));
    assert.deepEqual([receipt.value.receipt.action, receipt.value.receipt.signer, receipt.value.receipt.outcome], ["Approve", ada.did, "accepted"]);

    const out = await inbox("out", ada);
    assert.deepEqual(out.map((d) => [d.id, d.status, d.peer, d.attempts, d.error]), [[id, "delivered", bea.did, 1, null]]);
    const mine = await ada.call("GET", `/api/exchange/documents/${id}?box=out`);
    assert.deepEqual([mine.body.verified, mine.body.jws], [true, sent]);
    const relationship = (await ada.call("GET", "/api/exchange/relationships")).body.items[0];
    assert.ok(relationship.lastContact !== null && relationship.lastError === null, JSON.stringify(relationship));

    // Both persons heard of it live.
    const delivered = await exchangeFrame(adaEvents, "delivered", id);
    assert.deepEqual({ ...delivered, id: "" }, { id: "", kind: "exchange", event: "delivered", document: id, box: "out", peer: bea.did, namespace: "std.invoices", subject: "inv-1", error: null });
    const arrived = await exchangeFrame(beaEvents, "received", id);
    assert.deepEqual([arrived.box, arrived.peer, arrived.subject], ["in", ada.did, "inv-1"]);
    assert.ok(adaEvents.of("exchange").some((f) => f.event === "relationship-added" && f.relationship === adaKnowsBea));
  });

  it("a relationship is renamed without a step-up, moved to another URL only with one; its did never changes", async () => {
    const fresh = await signIn(ada.api, ada.auth);
    const renamed = await ada.api.call("PATCH", `/api/exchange/relationships/${adaKnowsBea}`, { cookie: fresh, body: { name: " Bea Smith " } });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.deepEqual([renamed.body.name, renamed.body.did, renamed.body.url], ["Bea Smith", bea.did, bea.node.url]);
    await waitFor("the relationship-changed frame", () => adaEvents.of("exchange").find((f) => f.event === "relationship-changed" && f.relationship === adaKnowsBea), 10_000);
    // The same URL is no move; another one is, and needs a step-up.
    assert.equal((await ada.api.call("PATCH", `/api/exchange/relationships/${adaKnowsBea}`, { cookie: fresh, body: { url: `${bea.node.url}/` } })).status, 200);
    const moved = await ada.api.call("PATCH", `/api/exchange/relationships/${adaKnowsBea}`, { cookie: fresh, body: { url: "https://bea.example.org" } });
    assert.deepEqual([moved.status, moved.body.code], [403, "step-up-required"]);
    for (const [body, pointers] of [
      [{}, ["#"]],
      [{ name: "", url: "ftp://x" }, ["#/name", "#/url"]],
      [{ name: "x".repeat(101) }, ["#/name"]],
    ] as const) {
      const bad = await ada.call("PATCH", `/api/exchange/relationships/${adaKnowsBea}`, body);
      assert.deepEqual([bad.status, bad.body.code, (bad.body.errors as { pointer: string }[]).map((e) => e.pointer)], [400, "bad-settings", pointers], JSON.stringify(body));
    }
    const repin = await ada.call("PATCH", `/api/exchange/relationships/${adaKnowsBea}`, { did: ada.did });
    assert.deepEqual([repin.status, repin.body.code], [400, "malformed-body"], "the did is not a field of a change");
    assert.equal((await ada.call("PATCH", "/api/exchange/relationships/rel-none", { name: "Nobody" })).status, 404);
    assert.equal((await ada.api.call("PATCH", `/api/exchange/relationships/${adaKnowsBea}`, { body: { name: "Eve" } })).status, 401);
    // Stepped up, the URL moves (and the new host is declared for egress); then back.
    const away = await ada.call("PATCH", `/api/exchange/relationships/${adaKnowsBea}`, { url: "https://bea.example.org/" });
    assert.deepEqual([away.status, away.body.url], [200, "https://bea.example.org"]);
    const egress = JSON.parse(readFileSync(join(ada.node.dataDir, "run", "egress.json"), "utf8")) as { hosts: string[] };
    assert.ok(egress.hosts.includes("bea.example.org"), JSON.stringify(egress));
    const back = await ada.call("PATCH", `/api/exchange/relationships/${adaKnowsBea}`, { url: bea.node.url, name: "Bea" });
    assert.deepEqual([back.status, back.body.url, back.body.name], [200, bea.node.url, "Bea"]);
  });

  it("the same document again is 200 and stores nothing new", async () => {
    const again = await postInbox(bea.node, sent);
    assert.deepEqual([again.status, again.body], [200, { id: payloadOf(sent).id, status: "duplicate" }]);
    assert.equal((await inbox("in", bea)).length, 1);
  });

  it("an unknown sender's document is 403 unknown-sender, and nothing is stored", async () => {
    const stranger = generateKeyPair();
    const answer = await postInbox(bea.node, forged(stranger, { to: bea.did, receipt: approved }));
    assert.deepEqual([answer.status, answer.body.code], [403, "unknown-sender"]);
    assert.equal((await inbox("in", bea)).length, 1);
  });

  it("a tampered document, one for another person, a bad receipt, another typ are refused; nothing is stored", async () => {
    // Ada's document with its amount changed: the signature no longer holds.
    const [header, , signature] = sent.split(".");
    const altered = { ...payloadOf(sent), state: { ...payloadOf(sent).state, amount_minor: 1 } };
    const tampered = `${header}.${Buffer.from(JSON.stringify(altered)).toString("base64url")}.${signature}`;
    const refused = await postInbox(bea.node, tampered);
    assert.deepEqual([refused.status, refused.body.code], [400, "bad-signature"]);

    const cases: [string, string, number, string][] = [
      ["for another person", forged(carol, { to: ada.did, receipt: approved }), 403, "wrong-recipient"],
      ["a receipt that is not one", forged(carol, { to: bea.did, receipt: "eyJhbGciOiJFZERTQSJ9.e30.AAAA" }), 400, "bad-receipt"],
      ["a receipt about another subject", forged(carol, { to: bea.did, receipt: approved, subject: "inv-9" }), 400, "bad-receipt"],
      ["a receipt with its signature altered", forged(carol, { to: bea.did, receipt: `${approved.slice(0, -4)}AAAA` }), 400, "bad-receipt"],
      ["another typ", forged(carol, { to: bea.did, receipt: approved }, { typ: "charter-command+jws" }), 400, "bad-typ"],
      ["a payload that is no document", forged(carol, { to: bea.did, receipt: approved, typ: "invoice" }), 400, "malformed-payload"],
      ["from someone else than its signer", forged(carol, { to: bea.did, receipt: approved, from: ada.did }), 400, "bad-signature"],
      ["not a JWS", "not.a.jws", 400, "malformed-jws"],
    ];
    for (const [what, jws, status, code] of cases) {
      const answer = await postInbox(bea.node, jws);
      assert.deepEqual([answer.status, answer.body.code], [status, code], `${what}: ${JSON.stringify(answer.body)}`);
    }
    assert.equal((await inbox("in", bea)).length, 1);

    // Carol's well-formed document is taken; another under the same id is 409.
    const good = forged(carol, { to: bea.did, receipt: approved, id: "doc-carol-1" });
    assert.equal((await postInbox(bea.node, good)).status, 201);
    const clash = await postInbox(bea.node, forged(carol, { to: bea.did, receipt: approved, id: "doc-carol-1", state: { amount_minor: 2 } }));
    assert.deepEqual([clash.status, clash.body.code], [409, "idempotency-conflict"]);
    assert.equal((await inbox("in", bea)).length, 2);
  });

  it("a delivery to a node that is down is kept as failed, and delivered when tried again once it is up", async () => {
    await stopCharter(bea.node);
    assert.equal((await act("Record", "inv-2", invoiceArgs(2))).status, 200);
    const answer = await ada.call("POST", "/api/exchange/documents", { relationship: adaKnowsBea, namespace: "std.invoices", subject: "inv-2" });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.status, "failed");
    assert.match(answer.body.error, /ECONNREFUSED/);
    const id = answer.body.id as string;
    const failed = (await inbox("out", ada)).find((d) => d.id === id);
    assert.deepEqual([failed?.status, failed?.attempts], ["failed", 1]);
    assert.match((await ada.call("GET", "/api/exchange/relationships")).body.items[0].lastError, /ECONNREFUSED/);
    assert.match(String((await exchangeFrame(adaEvents, "failed", id)).error), /ECONNREFUSED/, "the failure is a frame, saying why");

    const restarted = await startNode(beaPort, bea.node.dataDir);
    bea = { ...bea, node: restarted };
    const retried = await ada.call("POST", `/api/exchange/documents/${id}/retry`);
    assert.deepEqual([retried.status, retried.body], [200, { id, status: "delivered" }]);
    const delivered = (await inbox("out", ada)).find((d) => d.id === id);
    assert.deepEqual([delivered?.status, delivered?.attempts, delivered?.error], ["delivered", 2, null]);
    assert.equal((await ada.call("GET", "/api/exchange/relationships")).body.items[0].lastError, null);
    const arrived = await bea.call("GET", `/api/exchange/documents/${id}`);
    assert.deepEqual([arrived.status, arrived.body.verified, arrived.body.document.subject], [200, true, "inv-2"]);

    const twice = await ada.call("POST", `/api/exchange/documents/${id}/retry`);
    assert.deepEqual([twice.status, twice.body.code], [409, "document-not-failed"]);
    assert.equal((await ada.call("POST", "/api/exchange/documents/doc-none/retry")).status, 404);
  });

  it("lists page newest first; unknown ids, relationships and subjects are 404; bad input 400", async () => {
    const first = await bea.call("GET", "/api/exchange/documents?box=in&limit=2");
    assert.equal(first.body.items.length, 2);
    assert.equal(first.body.items[0].subject, "inv-2", "newest first");
    const second = await bea.call("GET", `/api/exchange/documents?box=in&limit=2&after=${first.body.next}`);
    assert.deepEqual([second.body.items.length, second.body.next], [1, null]);
    assert.equal((await bea.call("GET", "/api/exchange/documents?box=sideways")).body.code, "bad-parameters");
    assert.equal((await bea.call("GET", "/api/exchange/documents/doc-none")).status, 404);
    const noRelationship = await ada.call("POST", "/api/exchange/documents", { relationship: "rel-none", namespace: "std.invoices", subject: "inv-1" });
    assert.deepEqual([noRelationship.status, noRelationship.body.code], [404, "not-found"]);
    const noRecord = await ada.call("POST", "/api/exchange/documents", { relationship: adaKnowsBea, namespace: "std.invoices", subject: "inv-none" });
    assert.deepEqual([noRecord.status, noRecord.body.code], [404, "not-found"]);
    const bad = await ada.call("POST", "/api/exchange/documents", { relationship: adaKnowsBea, namespace: 7 });
    assert.deepEqual([bad.status, bad.body.code, bad.body.errors.map((e: { pointer: string }) => e.pointer)], [400, "bad-settings", ["#/namespace", "#/subject"]]);
  });

  it("unpinning the sender: its documents no longer verify, and what it sends next is refused", async () => {
    await stepUp(bea.api, bea.auth, bea.cookie);
    const removed = await bea.call("DELETE", `/api/exchange/relationships/${beaKnowsAda}`);
    assert.equal(removed.status, 204);
    assert.equal((await bea.call("DELETE", `/api/exchange/relationships/${beaKnowsAda}`)).status, 404);
    const id = payloadOf(sent).id as string;
    const shown = await bea.call("GET", `/api/exchange/documents/${id}`);
    assert.deepEqual([shown.body.verified, shown.body.relationship], [false, null]);

    const refused = await ada.call("POST", "/api/exchange/documents", { relationship: adaKnowsBea, namespace: "std.invoices", subject: "inv-1" });
    assert.equal(refused.status, 201);
    assert.equal(refused.body.status, "failed");
    assert.match(refused.body.error, /403: unknown-sender/);
  });
});
