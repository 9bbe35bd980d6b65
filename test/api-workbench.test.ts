/**
 * The Workbench and approvals over `/api`, on a real `charter node` with a signed-in person: a check
 * runs steps on a throwaway node in child processes and leaves the real data directory byte for byte
 * as it was; a source that does not compile is `422` with located errors. An install from the
 * Workbench is a waiting approval (a `std.approvals` record): approving it needs a step-up, and then
 * installs the contract hot in the personal tenant; denying it installs nothing; deciding twice is
 * the contract's refusal; an install the engine refuses leaves the approval approved and says why.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Answer, ApiClient, createAccount, printedSetupCode, stepUp } from "./helpers/api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";
import type { SoftAuthenticator } from "./helpers/soft-authenticator.ts";
import { standardLibrary } from "../contracts/std/library.ts";
import { generateKeyPair } from "../shared/identity/index.ts";
import { act } from "./helpers/client.ts";

const SHIPPING = readFileSync(new URL("./golden/compile/shipping.charter.md", import.meta.url), "utf8");
const ORDER = { customer: "Ada", destination: "Oslo", units: 4, crates: 1, credit_terms: false };

/** The shipping contract under another namespace (or version), so that it is another artifact. */
function variant(namespace: string, version = "1.0.0"): string {
  return SHIPPING.replace("namespace acme.shipping", `namespace ${namespace}`).replace("version 1.0.0", `version ${version}`);
}

/** SHA-256 of every file under `dir` (the databases' WAL and shared-memory files too), by relative path. */
function checksums(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const stat = statSync(p);
      if (stat.isDirectory()) walk(p);
      // The admin socket has no bytes to compare: that it is there is what counts.
      else out[p.slice(dir.length)] = stat.isFile() ? createHash("sha256").update(readFileSync(p)).digest("hex") : "not a file";
    }
  };
  walk(dir);
  return out;
}

/** The data directory's checksums once they hold still for a second (the node is idle). */
async function idle(dir: string): Promise<Record<string, string>> {
  let last = checksums(dir);
  return waitFor("the node to be idle", async () => {
    await new Promise((r) => setTimeout(r, 1000));
    const now = checksums(dir);
    const still = JSON.stringify(now) === JSON.stringify(last);
    last = now;
    return still ? now : undefined;
  }, 30_000);
}

function leftovers(): string[] {
  return readdirSync(tmpdir()).filter((n) => n.startsWith("charter-workbench-")).sort();
}

describe("the Workbench and approvals over /api", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";
  let auth: SoftAuthenticator;
  let did = "";

  const call = (method: string, path: string, body?: unknown): Promise<Answer> => api.call(method, path, { cookie, ...(body === undefined ? {} : { body }) });
  const contracts = async (): Promise<Map<string, string>> => {
    const boot = await call("GET", "/api/bootstrap");
    return new Map((boot.body.tenant.contracts as { namespace: string; artifact: string }[]).map((c) => [c.namespace, c.artifact]));
  };

  before(async () => {
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
    const created = await createAccount(api, printedSetupCode(node));
    cookie = created.cookie;
    auth = created.auth;
    did = (await call("GET", "/api/bootstrap")).body.person.did;
    // Every contract of the node's own set installed: after that the node is idle.
    const personal = standardLibrary().filter((a) => a.personal).map((a) => a.namespace);
    assert.ok(personal.includes("std.approvals"));
    await waitFor("the node's contracts in the personal tenant", async () => {
      const have = await contracts();
      return personal.every((n) => have.has(n)) ? true : undefined;
    });
  });
  after(async () => {
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("a check runs each step in its own process on a throwaway node; the real data directory is byte-identical", async () => {
    const was = leftovers();
    // Every file, accounts.db included: this runs well within a minute of the session's start, so
    // the check's request does not move the session's last-seen time (written once a minute).
    const before = await idle(node.dataDir);
    const steps = [
      { action: "Pay", subject: "o-1" },
      { action: "Request", subject: "o-1", args: ORDER },
      { action: "Request", subject: "o-1", args: ORDER },
      { action: "CheckCrate", subject: "o-1", signer: "bob" },
      { action: "Confirm", subject: "o-1" },
      { action: "Confirm", subject: "o-1", signer: "bob" },
      { action: "Fly", subject: "o-1" },
    ];
    const started = Date.now();
    const checked = await call("POST", "/api/workbench/check", { source: SHIPPING, steps });
    const took = Date.now() - started;
    assert.equal(checked.status, 200, JSON.stringify(checked.body));
    assert.equal(checked.body.namespace, "acme.shipping");
    const seen = checked.body.steps.map((s: { outcome: string; state?: { status: string; crates_checked: number }; reason?: { condition: string } }) => [s.outcome, s.state?.status ?? null, s.reason?.condition ?? null]);
    assert.deepEqual(seen, [
      ["refused", "New", "state.status != New"],
      ["accepted", "Requested", null],
      ["refused", "Requested", "state.status == New"],
      ["accepted", "Requested", null],
      ["refused", "Requested", "context.signer != state.requested_by"],
      ["accepted", "Confirmed", null],
      ["rejected", null, null],
    ]);
    assert.equal(checked.body.steps[3].state.crates_checked, 1);
    assert.equal(checked.body.steps[6].problem.code, "unknown-action");
    const pids = checked.body.steps.map((s: { pid: number }) => s.pid);
    assert.ok(pids.every((p: unknown) => Number.isInteger(p)), JSON.stringify(pids));
    assert.equal(new Set(pids).size, steps.length, "every step ran in a process of its own");
    assert.deepEqual(checksums(node.dataDir), before, "the real data directory is byte for byte as it was");
    assert.deepEqual(leftovers(), was, "the throwaway node's directory is gone");
    assert.ok(!(await contracts()).has("acme.shipping"), "nothing was installed for real");
    console.log(`# a check of ${steps.length} steps took ${took} ms`);
  });

  it("a source that does not compile is 422 with each error's message, line and column; bad steps are 400 naming each field", async () => {
    const broken = SHIPPING.replace("      state.status == New\n      units > 0", '      state.status == "New"\n      units > 0');
    const line = broken.split("\n").findIndex((l) => l.includes('state.status == "New"')) + 1;
    const failed = await call("POST", "/api/workbench/check", { source: broken, steps: [{ action: "Request", subject: "o-1", args: ORDER }] });
    assert.equal(failed.status, 422, JSON.stringify(failed.body));
    assert.equal(failed.body.code, "compile-errors");
    assert.deepEqual(failed.body.errors.map((e: { message: string; line: number; column: number }) => [e.message, e.line, e.column]), [["validation error: invalid eq types", line, 7]]);

    const cases: [unknown, string[]][] = [
      [{ steps: [] }, ["#/source"]],
      [{ source: 42, steps: [] }, ["#/source"]],
      [{ source: SHIPPING }, ["#/steps"]],
      [{ source: SHIPPING, steps: [{ action: "Request" }, { action: "", subject: "o-1", args: [], signer: "Bob!", extra: 1 }, 7] }, ["#/steps/0/subject", "#/steps/1/extra", "#/steps/1/action", "#/steps/1/args", "#/steps/1/signer", "#/steps/2"]],
      [{ source: SHIPPING, steps: Array.from({ length: 51 }, (_, i) => ({ action: "Pay", subject: `o-${i}` })) }, ["#/steps"]],
      [{ source: SHIPPING, steps: [], note: "x" }, ["#/note"]],
    ];
    for (const [body, pointers] of cases) {
      const answer = await call("POST", "/api/workbench/check", body);
      assert.equal(answer.status, 400, `${JSON.stringify(body).slice(0, 200)} → ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.code, "malformed-body");
      assert.deepEqual(answer.body.errors.map((e: { pointer: string }) => e.pointer), pointers);
    }
  });

  it("one check runs at a time: another meanwhile is 503 workbench-busy with Retry-After", async () => {
    const steps = [{ action: "Request", subject: "o-1", args: ORDER }];
    const [first, second] = await Promise.all([
      call("POST", "/api/workbench/check", { source: SHIPPING, steps }),
      new Promise<Answer>((resolve) => setTimeout(() => resolve(call("POST", "/api/workbench/check", { source: SHIPPING, steps })), 300)),
    ]);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual([second.status, second.body.code], [503, "workbench-busy"], JSON.stringify(second.body));
    assert.equal(second.headers.get("retry-after"), "10");
    const again = await call("POST", "/api/workbench/check", { source: SHIPPING, steps });
    assert.equal(again.status, 200, "free again once the first is done");
  });

  it("a check whose caller goes away is stopped, and its throwaway node and directory removed", async () => {
    const was = leftovers();
    const gone = new AbortController();
    const steps = Array.from({ length: 50 }, (_, i) => ({ action: "Pay", subject: `o-${i}` }));
    const request = fetch(`${api.url}/api/workbench/check`, {
      method: "POST",
      headers: { cookie, origin: api.origin, "content-type": "application/json" },
      body: JSON.stringify({ source: SHIPPING, steps }),
      signal: gone.signal,
    });
    await waitFor("the throwaway node", () => (leftovers().length > was.length ? true : undefined), 30_000);
    gone.abort();
    await assert.rejects(request);
    await waitFor("the throwaway directory to go", () => (JSON.stringify(leftovers()) === JSON.stringify(was) ? true : undefined), 30_000);
    const next = await waitFor("the Workbench to be free", async () => {
      const answer = await call("POST", "/api/workbench/check", { source: SHIPPING.replace("units > 0", "units > true"), steps: [] });
      return answer.status === 503 ? undefined : answer;
    }, 15_000);
    assert.equal(next.status, 422, JSON.stringify(next.body));
  });

  let installing = "";

  it("an install is a waiting approval; a source that does not compile is 422 and asks nothing", async () => {
    const broken = await call("POST", "/api/workbench/install", { source: SHIPPING.replace("units > 0", "units > true") });
    assert.equal(broken.status, 422, JSON.stringify(broken.body));
    assert.equal(broken.body.code, "compile-errors");
    assert.ok(broken.body.errors[0].line > 0 && broken.body.errors[0].column > 0, JSON.stringify(broken.body.errors));
    assert.deepEqual((await call("GET", "/api/approvals?status=all")).body.items, [], "no approval was asked");

    const asked = await call("POST", "/api/workbench/install", { source: SHIPPING });
    assert.equal(asked.status, 202, JSON.stringify(asked.body));
    const { approval } = asked.body;
    assert.match(approval.id, /^apv-[0-9a-z]{9}-[0-9a-f]{12}$/);
    assert.equal(approval.kind, "install");
    assert.equal(approval.status, "waiting");
    assert.match(approval.summary, /^Install acme\.shipping 1\.0\.0 \(art_/);
    assert.equal(asked.body.receipt.outcome, "accepted");
    assert.equal(asked.body.receipt.signer, did, "asked by the person");
    installing = approval.id;

    const listed = await call("GET", "/api/approvals");
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.items.map((a: { id: string; status: string; sensitive: boolean; requestedBy: string }) => [a.id, a.status, a.sensitive, a.requestedBy]), [[installing, "waiting", true, did]]);
    assert.equal(listed.body.next, null);
    assert.equal(listed.body.items[0].payload, undefined, "lists leave the source out");
    const one = await call("GET", `/api/approvals/${installing}`);
    assert.equal(one.body.payload, SHIPPING, "the approval keeps the whole source");
    assert.equal(one.body.digest, createHash("sha256").update(SHIPPING).digest("hex"));
    assert.equal((await call("GET", "/api/bootstrap")).body.counts.approvalsWaiting, 1);
  });

  it("approving an install without a step-up is 403 and decides nothing; with one it installs the contract hot", async () => {
    const refused = await call("POST", `/api/approvals/${installing}`, { approve: true });
    assert.deepEqual([refused.status, refused.body.code], [403, "step-up-required"], JSON.stringify(refused.body));
    assert.equal((await call("GET", `/api/approvals/${installing}`)).body.status, "waiting", "nothing decided");
    assert.ok(!(await contracts()).has("acme.shipping"), "nothing installed");

    await stepUp(api, auth, cookie);
    const approved = await call("POST", `/api/approvals/${installing}`, { approve: true });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.receipt.outcome, "accepted");
    assert.equal(approved.body.receipt.action, "Approve");
    assert.equal(approved.body.approval.status, "approved");
    assert.equal(approved.body.approval.decidedBy, did);
    assert.equal(approved.body.install.namespace, "acme.shipping");
    assert.equal(approved.body.install.artifact, approved.body.approval.target, "the approved artifact is the one installed");
    assert.ok(approved.body.approval.carriedOutAt !== null, JSON.stringify(approved.body.approval));
    assert.match(approved.body.approval.outcome, /^installed acme\.shipping 1\.0\.0$/);
    assert.equal((await contracts()).get("acme.shipping"), approved.body.install.artifact);
    assert.equal((await call("GET", "/api/bootstrap")).body.counts.approvalsWaiting, 0);

    const acted = await call("POST", "/api/data/act", { namespace: "acme.shipping", action: "Request", subject: "o-1", args: ORDER });
    assert.equal(acted.status, 200, JSON.stringify(acted.body));
    assert.equal(acted.body.receipt.state.status, "Requested");

    const tools = await call("GET", "/api/workbench/tools");
    assert.equal(tools.status, 200, JSON.stringify(tools.body));
    const byName = new Map((tools.body.items as { name: string; kind: string; params: { name: string; type: string }[] }[]).map((t) => [t.name, t]));
    assert.deepEqual(byName.get("acme.shipping.Request")?.params.slice(0, 2), [{ name: "customer", type: "Text(len=200)" }, { name: "destination", type: "Text(len=100)" }]);
    assert.equal(byName.get("acme.shipping.Request")?.kind, "action");
    assert.deepEqual(byName.get("acme.shipping.ByStatus")?.params, [{ name: "status", type: "Enum(New, Requested, Confirmed, Shipped)" }]);
    assert.equal(byName.get("acme.shipping.ByStatus")?.kind, "query");
    assert.ok(![...byName.keys()].some((n) => n.startsWith("std.approvals.")), "deciding approvals is not a tool");
  });

  it("deciding twice is the contract's refusal: 422 with the receipt", async () => {
    for (const approve of [true, false]) {
      const again = await call("POST", `/api/approvals/${installing}`, { approve });
      assert.equal(again.status, 422, JSON.stringify(again.body));
      assert.equal(again.body.code, "refused");
      assert.equal(again.body.receipt.outcome, "refused");
      assert.equal(again.body.receipt.reason.condition, "state.status == Waiting");
    }
    assert.equal((await call("GET", `/api/approvals/${installing}`)).body.status, "approved");
  });

  it("denying installs nothing: 200 {denied: true}; the denied approval cannot be approved after", async () => {
    const asked = await call("POST", "/api/workbench/install", { source: variant("acme.denied") });
    assert.equal(asked.status, 202, JSON.stringify(asked.body));
    const id = asked.body.approval.id;
    const denied = await call("POST", `/api/approvals/${id}`, { approve: false });
    assert.equal(denied.status, 200, JSON.stringify(denied.body));
    assert.equal(denied.body.denied, true);
    assert.equal(denied.body.approval.status, "denied");
    assert.equal(denied.body.receipt.action, "Deny");
    const late = await call("POST", `/api/approvals/${id}`, { approve: true });
    assert.deepEqual([late.status, late.body.code], [422, "refused"], JSON.stringify(late.body));
    assert.ok(!(await contracts()).has("acme.denied"), "nothing installed");
  });

  it("an install the engine refuses leaves the approval approved and answers 409 with the engine's reason", async () => {
    const installed = (await contracts()).get("acme.shipping");
    // Another artifact for the same namespace, without `upgrades`: the engine refuses to replace it.
    const asked = await call("POST", "/api/workbench/install", { source: variant("acme.shipping", "1.0.1") });
    assert.equal(asked.status, 202, JSON.stringify(asked.body));
    const id = asked.body.approval.id;
    const approved = await call("POST", `/api/approvals/${id}`, { approve: true });
    assert.equal(approved.status, 409, JSON.stringify(approved.body));
    assert.equal(approved.body.code, "upgrade-required");
    assert.match(approved.body.detail, /^approved, but not installed: acme\.shipping already has art_/);
    assert.equal(approved.body.receipt.outcome, "accepted", "the decision is recorded");
    assert.equal(approved.body.approval.status, "approved");
    assert.match(approved.body.approval.outcome, /^not installed: upgrade-required: acme\.shipping already has art_/);
    assert.equal((await call("GET", `/api/approvals/${id}`)).body.status, "approved");
    assert.equal((await contracts()).get("acme.shipping"), installed, "the installed version stays");
  });

  it("lists approvals by status, a page at a time; bad parameters, unknown ids and oversized sources are problems", async () => {
    const all = await call("GET", "/api/approvals?status=all");
    assert.deepEqual(all.body.items.map((a: { status: string }) => a.status), ["approved", "denied", "approved"], "in the order they were asked");
    assert.equal((await call("GET", "/api/approvals?status=approved")).body.items.length, 2);
    assert.equal((await call("GET", "/api/approvals?status=denied")).body.items.length, 1);
    assert.deepEqual((await call("GET", "/api/approvals")).body.items, [], "by default, the waiting ones");
    const first = await call("GET", "/api/approvals?status=all&limit=2");
    assert.equal(first.body.items.length, 2);
    const rest = await call("GET", `/api/approvals?status=all&limit=2&after=${first.body.next}`);
    assert.deepEqual([...first.body.items, ...rest.body.items].map((a: { id: string }) => a.id), all.body.items.map((a: { id: string }) => a.id));
    assert.equal(rest.body.next, null);

    const bad = await call("GET", "/api/approvals?status=maybe");
    assert.deepEqual([bad.status, bad.body.code], [400, "bad-parameters"]);
    assert.equal((await call("GET", "/api/approvals/apv-nothing")).status, 404);
    const unknown = await call("POST", "/api/approvals/apv-nothing", { approve: true });
    assert.deepEqual([unknown.status, unknown.body.code], [404, "not-found"]);
    const typo = await call("POST", `/api/approvals/${installing}`, { approve: "yes" });
    assert.deepEqual([typo.status, typo.body.errors?.[0]?.pointer], [400, "#/approve"]);

    const large = `${SHIPPING}\n${"x".repeat(70_000)}\n`;
    const tooLarge = await call("POST", "/api/workbench/install", { source: large });
    assert.deepEqual([tooLarge.status, tooLarge.body.code], [413, "body-too-large"], JSON.stringify(tooLarge.body));
    assert.match(tooLarge.body.detail, /over 65536 characters/);
    assert.equal((await call("GET", "/api/approvals?status=all")).body.items.length, 3, "nothing asked");
  });

  it("the generic write routes do not decide approvals: 403 dedicated-route, nothing decided", async () => {
    const asked = await call("POST", "/api/workbench/install", { source: variant("acme.generic") });
    assert.equal(asked.status, 202, JSON.stringify(asked.body));
    const id = asked.body.approval.id;
    const tenant = (await call("GET", "/api/bootstrap")).body.tenant.handle;
    for (const [path, body] of [
      ["/api/data/act", { namespace: "std.approvals", action: "Approve", subject: id, args: {} }],
      ["/api/data/act", { tenant, namespace: "std.approvals", action: "Deny", subject: id, args: {} }],
      ["/api/personal/std.approvals/actions/Approve", { subject: id, args: {} }],
      [`/api/business/std.approvals/actions/CarriedOut?identity=${tenant}`, { subject: id, args: { outcome: "installed" } }],
    ] as const) {
      const answer = await call("POST", path, body);
      assert.deepEqual([answer.status, answer.body.code], [403, "dedicated-route"], `${path} ${JSON.stringify(answer.body)}`);
    }
    assert.equal((await call("GET", `/api/approvals/${id}`)).body.status, "waiting");
    assert.equal((await call("POST", `/api/approvals/${id}`, { approve: false })).status, 200);
  });

  it("an install approved but not carried out when the node stopped is carried out at the next start", async () => {
    // What a stop between the decision and the install leaves: approved, nothing installed, no outcome.
    // Another owner of the personal tenant signs the decision on /v1, so the node never carries it out.
    const asked = await call("POST", "/api/workbench/install", { source: variant("acme.resumed") });
    assert.equal(asked.status, 202, JSON.stringify(asked.body));
    const id = asked.body.approval.id;
    const tenant = (await call("GET", "/api/bootstrap")).body.tenant.handle;
    const other = generateKeyPair();
    await stepUp(api, auth, cookie);
    const owned = await call("POST", `/api/identities/${tenant}/owners`, { did: other.did });
    assert.equal(owned.status, 200, JSON.stringify(owned.body));
    const decided = await act(node.url, other, { tenant, namespace: "std.approvals", action: "Approve", subject: id, args: { session: "", evidence: "", edited_args: "" } });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const before = (await call("GET", `/api/approvals/${id}`)).body;
    assert.deepEqual([before.status, before.carriedOutAt, before.outcome], ["approved", null, null]);
    assert.ok(!(await contracts()).has("acme.resumed"));

    await stopCharter(node);
    node = await startCharter({ edition: "node", dataDir: node.dataDir });
    api = new ApiClient(node);
    const after = await waitFor("the approved install to be carried out", async () => {
      const approval = (await call("GET", `/api/approvals/${id}`)).body;
      return approval.carriedOutAt === null ? undefined : approval;
    }, 60_000);
    assert.match(after.outcome, /^installed acme\.resumed 1\.0\.0$/);
    assert.equal((await contracts()).get("acme.resumed"), after.target);
    const finishing = await call("POST", "/api/personal/std.approvals/actions/CarriedOut", { subject: id, args: { outcome: "again" } });
    assert.equal(finishing.status, 403, "recorded once, by the node");
  });
});
