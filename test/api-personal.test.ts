/**
 * The node writes as the person, on a real `charter node`: set-up makes the personal tenant, owned
 * by the person's identity, with the standard contracts installed; `POST /api/data/act` is a
 * command signed by the person and decided by the contract (history names the person as signer,
 * the receipt verifies against the node's published identity); `GET /api/bootstrap` answers what
 * the app loads with.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { verifyReceipt } from "../shared/identity/index.ts";
import { ApiClient, createAccount, printedSetupCode, stepUp } from "./helpers/api-client.ts";
import type { SoftAuthenticator } from "./helpers/soft-authenticator.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";
import { standardLibrary } from "../contracts/std/library.ts";
import { runCharter } from "./helpers/run-charter.ts";
import { invoiceArgs } from "./helpers/invoice-args.ts";

const INVOICE = invoiceArgs(1);

describe("the person's writes and the app's bootstrap", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";
  let did = "";
  let nodeDid = "";
  let auth: SoftAuthenticator;

  before(async () => {
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
    nodeDid = ((await (await fetch(`${node.url}/.well-known/charter.json`)).json()) as { identity: string }).identity;
  });
  after(async () => {
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("set-up makes the personal tenant, named after the first name, owned by the person, with the standard contracts", async () => {
    const created = await createAccount(api, printedSetupCode(node), undefined, "Zoë Anne");
    cookie = created.cookie;
    auth = created.auth;
    const boot = await api.call("GET", "/api/bootstrap", { cookie });
    assert.equal(boot.status, 200, JSON.stringify(boot.body));
    did = boot.body.person.did;
    assert.match(did, /^did:key:z6Mk/);
    assert.equal(boot.body.tenant.handle, "zoe-anne");
    assert.match(boot.body.tenant.did, /^did:key:z6Mk/);
    assert.notEqual(boot.body.tenant.did, did, "the tenant has its own identity");
    assert.ok(boot.body.tenant.contracts.some((c: { namespace: string }) => c.namespace === "std.invoices"), JSON.stringify(boot.body.tenant.contracts));
    // The node's own contracts follow set-up into the personal tenant.
    const personal = standardLibrary()
      .filter((a) => a.personal)
      .map((a) => a.namespace);
    await waitFor("the node's contracts in the personal tenant", async () => {
      const b = await api.call("GET", "/api/bootstrap", { cookie });
      const have = new Set((b.body.tenant.contracts as { namespace: string }[]).map((c) => c.namespace));
      return personal.every((n) => have.has(n)) ? true : undefined;
    });
    assert.deepEqual(boot.body.account, created.finish.body.account);
    assert.ok([null, 0].includes(boot.body.counts.tasksDue), "no task is due (null until std.tasks is installed)");
    assert.ok([null, 0].includes(boot.body.counts.approvalsWaiting), "nothing waits for approval (null until std.approvals is installed)");
    assert.deepEqual(boot.body.model, { configured: false });
    assert.equal(typeof boot.body.node.version, "string");
    assert.equal(boot.body.events.after, "0", "nothing committed yet");

    const described = await runCharter(["tenant", "show", "zoe-anne", "--data", node.dataDir, "--json"]);
    assert.equal(described.code, 0, described.stderr);
    assert.deepEqual(JSON.parse(described.stdout).owners, [did]);
  });

  it("an action through /api is a command signed by the person: accepted, in history with the person as signer", async () => {
    const acted = await api.call("POST", "/api/data/act", { cookie, body: { namespace: "std.invoices", action: "Record", subject: "inv-1", args: INVOICE } });
    assert.equal(acted.status, 200, JSON.stringify(acted.body));
    assert.equal(acted.body.receipt.outcome, "accepted");
    assert.equal(acted.body.receipt.signer, did);
    assert.equal(acted.body.receipt.tenant, "zoe-anne");
    const verified = verifyReceipt(acted.body.jws, { node: nodeDid });
    assert.ok(verified.ok, "the receipt is signed by the node");
    assert.equal(verified.value.receipt.seq, acted.body.receipt.seq);

    const db = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
    try {
      const row = db.prepare("SELECT signer, action, outcome FROM history WHERE seq = ?").get(acted.body.receipt.seq) as { signer: string; action: string; outcome: string };
      assert.deepEqual({ ...row }, { signer: did, action: "Record", outcome: "accepted" });
    } finally {
      db.close();
    }
    const boot = await api.call("GET", "/api/bootstrap", { cookie });
    assert.equal(boot.body.events.after, String(acted.body.receipt.seq), "the event cursor follows the commits");
  });

  it("the contract decides: a refusal is 422 with the reason; the same idempotency key answers the first receipt", async () => {
    const again = await api.call("POST", "/api/data/act", { cookie, body: { namespace: "std.invoices", action: "Record", subject: "inv-1", args: INVOICE } });
    assert.equal(again.status, 422, JSON.stringify(again.body));
    assert.equal(again.body.receipt.outcome, "refused");
    assert.ok(again.body.receipt.reason !== null);

    const body = { namespace: "std.invoices", action: "Approve", subject: "inv-1", idempotencyKey: "approve-inv-1" };
    const first = await api.call("POST", "/api/data/act", { cookie, body });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const second = await api.call("POST", "/api/data/act", { cookie, body });
    assert.equal(second.body.receipt.id, first.body.receipt.id, "a retry with the same key is the same command's receipt");
  });

  it("bad requests get problems and change nothing; no session is 401 and another origin 403 before anything", async () => {
    const cases: [unknown, number, string][] = [
      [{ namespace: "std.nothing", action: "Record", subject: "x", args: {} }, 404, ""],
      [{ namespace: "std.invoices", action: "Fly", subject: "x", args: {} }, 404, ""],
      [{ namespace: "std.invoices", action: "Record", subject: "inv-2", args: { ...INVOICE, amount_minor: "lots" } }, 400, ""],
      [{ namespace: "std.invoices", action: "Record", subject: "bad subject!", args: INVOICE }, 400, ""],
      [{ namespace: "std.invoices", action: "Record", subject: "inv-3", args: [] }, 400, "malformed-body"],
      [{ namespace: "std.invoices", action: "Record", subject: "inv-3", args: INVOICE, signer: "did:key:zMallory" }, 400, "malformed-body"],
      [{ tenant: "someone-else", namespace: "std.invoices", action: "Record", subject: "inv-3", args: INVOICE }, 404, ""],
    ];
    for (const [body, status, code] of cases) {
      const answer = await api.call("POST", "/api/data/act", { cookie, body });
      assert.equal(answer.status, status, `${JSON.stringify(body)} → ${JSON.stringify(answer.body)}`);
      if (code !== "") assert.equal(answer.body.code, code);
      assert.equal(answer.headers.get("content-type"), "application/problem+json");
    }
    const anonymous = await api.call("POST", "/api/data/act", { body: { namespace: "std.invoices", action: "Record", subject: "inv-4", args: INVOICE } });
    assert.deepEqual([anonymous.status, anonymous.body.code], [401, "unauthenticated"]);
    const elsewhere = await api.call("POST", "/api/data/act", { cookie, origin: "http://evil.example", body: { namespace: "std.invoices", action: "Record", subject: "inv-4", args: INVOICE } });
    assert.deepEqual([elsewhere.status, elsewhere.body.code], [403, "bad-origin"]);
    const boot = await api.call("GET", "/api/bootstrap");
    assert.deepEqual([boot.status, boot.body.code], [401, "unauthenticated"]);
  });

  it("sign-in off on a loopback node: a caller without a cookie is the person, until sign-in is on again", async () => {
    await stepUp(api, auth, cookie);
    const off = await api.call("PUT", "/api/account/settings", { cookie, body: { signInRequired: false } });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.deepEqual(off.body, { signInRequired: false, sessionDays: 30, idleDays: 7, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone, loopback: true });
    const boot = await api.call("GET", "/api/bootstrap");
    assert.equal(boot.status, 200);
    assert.equal(boot.body.account.signedIn, true);
    const acted = await api.call("POST", "/api/data/act", { body: { namespace: "std.invoices", action: "Dispute", subject: "inv-1", args: { note: "wrong amount" } } });
    assert.equal(acted.status, 200, JSON.stringify(acted.body));
    assert.equal(acted.body.receipt.signer, did, "still written as the person");
    const regenerate = await api.call("POST", "/api/account/recovery/regenerate");
    assert.deepEqual([regenerate.status, regenerate.body.code], [403, "step-up-required"], "sensitive routes still need a passkey");
    const noOrigin = await api.call("POST", "/api/data/act", { origin: null, body: { namespace: "std.invoices", action: "Pay", subject: "inv-1", args: { payment_reference: "x" } } });
    assert.deepEqual([noOrigin.status, noOrigin.body.code], [403, "bad-origin"], "the Origin check stays");

    const on = await api.call("PUT", "/api/account/settings", { cookie, body: { signInRequired: true } });
    assert.equal(on.status, 200);
    const closed = await api.call("GET", "/api/bootstrap");
    assert.deepEqual([closed.status, closed.body.code], [401, "unauthenticated"]);
  });
});
