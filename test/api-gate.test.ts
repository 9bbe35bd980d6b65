/**
 * The `/api` gate of a real `charter node`: every route the personal node is to serve under `/api`
 * needs a session except the public ones (401 `unauthenticated`, before anything else); behind the
 * gate, routes not built yet are 404; a state-changing request needs the node's `Origin` (403
 * `bad-origin`); the session cookie's flags; a signed-out cookie opens nothing; `charter serve` has
 * no `/api`.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Charter, cleanup, startCharter, stopCharter } from "./helpers/charter-process.ts";
import { ApiClient, cookieFrom, createAccount, printedSetupCode } from "./helpers/api-client.ts";
import { runCharter } from "./helpers/run-charter.ts";

const ANY = ["GET", "POST", "PUT", "DELETE"] as const;

/** Every `/api` route the personal node is to serve, by area: each method, the path with made-up ids and names. */
const SPEC_ROUTES: readonly (readonly [string, string])[] = [
  // Health and live updates
  ["GET", "/api/bootstrap"],
  ["GET", "/api/events"],
  // Account and devices
  ["GET", "/api/account"],
  ["POST", "/api/account/create/begin"],
  ["POST", "/api/account/create/register"],
  ["POST", "/api/account/create/finish"],
  ["POST", "/api/account/signin/begin"],
  ["POST", "/api/account/signin/finish"],
  ["POST", "/api/account/signout"],
  ["POST", "/api/account/stepup/begin"],
  ["POST", "/api/account/stepup/finish"],
  ["GET", "/api/account/sessions"],
  ["POST", "/api/account/sessions/s-123/end"],
  ...ANY.map((m) => [m, "/api/account/passkey"] as const),
  ["POST", "/api/account/passkey/begin"],
  ["POST", "/api/account/passkey/finish"],
  ["DELETE", "/api/account/passkey/pk-123"],
  ...ANY.map((m) => [m, "/api/account/settings"] as const),
  ["GET", "/api/account/recovery"],
  ["POST", "/api/account/recovery/regenerate"],
  ["POST", "/api/account/recovery/use"],
  ...ANY.map((m) => [m, "/api/pair/code"] as const),
  ["POST", "/api/pair/begin"],
  ["POST", "/api/pair/finish"],
  ...ANY.map((m) => [m, "/api/setup/model/providers"] as const),
  // Assistant
  ["GET", "/api/messages"],
  ["POST", "/api/messages"],
  ["POST", "/api/messages/m-123/reactions"],
  ["POST", "/api/cancel"],
  ["GET", "/api/approvals"],
  ["POST", "/api/approvals/a-123"],
  ["GET", "/api/asks"],
  ["POST", "/api/asks/q-123/answer"],
  ["GET", "/api/branches"],
  ["POST", "/api/branches"],
  ["POST", "/api/branches/b-123/merge"],
  ["GET", "/api/turns"],
  ["GET", "/api/turns/t-123"],
  ["GET", "/api/activity"],
  ["GET", "/api/memory"],
  ["POST", "/api/memory"],
  ["DELETE", "/api/memory/n-123"],
  ["GET", "/api/rules"],
  ["POST", "/api/rules"],
  ["DELETE", "/api/rules/r-123"],
  ["GET", "/api/persona"],
  ["PUT", "/api/persona"],
  ["PUT", "/api/content-mode"],
  ...ANY.map((m) => [m, "/api/autonomy/goals"] as const),
  ["GET", "/api/suggestions"],
  ["GET", "/api/artifacts/d-123"],
  ["POST", "/api/artifacts/d-123/refresh"],
  ["POST", "/api/artifacts/d-123/schedule"],
  // Voice
  ["GET", "/api/voice"],
  ["PUT", "/api/voice"],
  ["GET", "/api/voice/voices"],
  ["POST", "/api/voice/preview"],
  ["POST", "/api/voice/notes"],
  ["GET", "/api/voice/call"],
  // Communications
  ["GET", "/api/comms/list"],
  ["GET", "/api/comms/counts"],
  ["GET", "/api/comms/people"],
  ["GET", "/api/comms/threads/th-123"],
  ["POST", "/api/comms/threads/th-123/reply"],
  ["POST", "/api/comms/threads/th-123/star"],
  ["POST", "/api/comms/threads/th-123/allow"],
  ["POST", "/api/comms/compose"],
  ["POST", "/api/comms/translate"],
  ["GET", "/api/comms/settings"],
  ["PUT", "/api/comms/settings"],
  ["GET", "/api/comms/signatures"],
  ["PUT", "/api/comms/signatures"],
  ...ANY.map((m) => [m, "/api/signal/chats"] as const),
  ...ANY.map((m) => [m, "/api/telegram/accounts/acc-123"] as const),
  ...ANY.map((m) => [m, "/api/settings/telegram/bot"] as const),
  // Knowledge, tasks, library
  ["POST", "/api/knowledge"],
  ["POST", "/api/calc"],
  ...ANY.map((m) => [m, "/api/collab/doc-123"] as const),
  ["GET", "/api/tasks"],
  ["POST", "/api/tasks"],
  ["POST", "/api/tasks/task-123/complete"],
  ["POST", "/api/tasks/task-123/reopen"],
  ["POST", "/api/tasks/task-123/reschedule"],
  ["GET", "/api/agenda"],
  ["GET", "/api/library"],
  ["POST", "/api/library"],
  ["GET", "/api/library/f-123/content"],
  ["GET", "/api/blobs/0123abcd"],
  ["GET", "/api/manual/assets/diagram.png"],
  // Records
  ["GET", "/api/data"],
  ["POST", "/api/data/query"],
  ["POST", "/api/data/preview"],
  ["POST", "/api/data/act"],
  ...ANY.map((m) => [m, "/api/personal/std.tasks/items"] as const),
  ...ANY.map((m) => [m, "/api/business/acme.shipping/orders"] as const),
  ["GET", "/api/analytics"],
  ["POST", "/api/workbench/check"],
  ["POST", "/api/workbench/install"],
  // Identities, devices, exchange
  ["GET", "/api/identities"],
  ["POST", "/api/identities"],
  ["GET", "/api/identities/acme"],
  ["POST", "/api/identities/acme/owners"],
  ["POST", "/api/identities/acme/members"],
  ["POST", "/api/identities/acme/delegations"],
  ["POST", "/api/identities/acme/vault"],
  ["PUT", "/api/scopes"],
  ...ANY.map((m) => [m, "/api/sync/conflicts"] as const),
  ["GET", "/api/sync/status"],
  ["POST", "/api/sync/pair"],
  ["POST", "/api/sync/join"],
  ["POST", "/api/sync/conflicts/c-123"],
  ...ANY.map((m) => [m, "/api/root/keys"] as const),
  ["POST", "/api/root/keys/recovery"],
  ["POST", "/api/root/devices/did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK/revoke"],
  ...ANY.map((m) => [m, "/api/exchange/relationships"] as const),
  ["PATCH", "/api/exchange/relationships/rel-123"],
  ["DELETE", "/api/exchange/relationships/rel-123"],
  ["GET", "/api/exchange/documents"],
  ["POST", "/api/exchange/documents"],
  ["GET", "/api/exchange/documents/doc-123"],
  ["POST", "/api/exchange/documents/doc-123/retry"],
  // Settings and integrations
  ["GET", "/api/connections"],
  ["PUT", "/api/connections/c-123/key"],
  ["DELETE", "/api/connections/c-123/key"],
  ...["/api/settings/models", "/api/settings/routing", "/api/settings/autonomy", "/api/settings/openaiRouting"].flatMap((p) => [["GET", p] as const, ["PUT", p] as const]),
  ...ANY.map((m) => [m, "/api/settings/integrations/github"] as const),
  ["GET", "/api/settings/integrations/tools"],
  ["POST", "/api/settings/integrations/tools"],
  ...ANY.map((m) => [m, "/api/settings/health/imports"] as const),
  ["POST", "/api/ingest/health"],
  ["GET", "/api/personal/health"],
  ...ANY.map((m) => [m, "/api/settings/mastodon/accounts"] as const),
  ...ANY.map((m) => [m, "/api/settings/edge/zones"] as const),
  ...["/api/settings/updates", "/api/settings/updates/check", "/api/settings/updates/install"].flatMap((p) => ANY.map((m) => [m, p] as const)),
  ...ANY.map((m) => [m, "/api/push/subscriptions"] as const),
  ...ANY.map((m) => [m, "/api/companion/overview"] as const),
  ...ANY.map((m) => [m, "/api/code/projects"] as const),
];

/** Reached without a session: the account's state, the creation and sign-in ceremonies, recovery, pairing. */
const PUBLIC = new Set([
  "GET /api/account",
  "POST /api/account/create/begin",
  "POST /api/account/create/register",
  "POST /api/account/create/finish",
  "POST /api/account/signin/begin",
  "POST /api/account/signin/finish",
  "POST /api/account/recovery/use",
  "POST /api/pair/begin",
  "POST /api/pair/finish",
  "POST /api/sync/join",
]);

/** Built today behind the gate (with a session they answer something other than 404). */
const BUILT = new Set([
  "GET /api/sync/status",
  "POST /api/sync/pair",
  "GET /api/sync/conflicts",
  "POST /api/sync/conflicts/c-123",
  "GET /api/root/keys",
  "POST /api/root/keys/recovery",
  "POST /api/root/devices/did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK/revoke",
  "POST /api/account/signout",
  "POST /api/account/stepup/begin",
  "POST /api/account/stepup/finish",
  "GET /api/account/sessions",
  "POST /api/account/sessions/s-123/end",
  "GET /api/account/passkey",
  "POST /api/account/passkey/begin",
  "POST /api/account/passkey/finish",
  "DELETE /api/account/passkey/pk-123",
  "GET /api/account/settings",
  "PUT /api/account/settings",
  "GET /api/account/recovery",
  "POST /api/account/recovery/regenerate",
  "POST /api/pair/code",
  "GET /api/bootstrap",
  "POST /api/data/act",
  "GET /api/tasks",
  "POST /api/tasks",
  "POST /api/tasks/task-123/complete",
  "POST /api/tasks/task-123/reopen",
  "POST /api/tasks/task-123/reschedule",
  "GET /api/agenda",
  "GET /api/artifacts/d-123",
  "POST /api/artifacts/d-123/refresh",
  "POST /api/artifacts/d-123/schedule",
  "GET /api/identities",
  "POST /api/identities",
  "GET /api/identities/acme",
  "POST /api/identities/acme/owners",
  "POST /api/identities/acme/members",
  "POST /api/identities/acme/delegations",
  "POST /api/identities/acme/vault",
  "PUT /api/scopes",
  "GET /api/data",
  "POST /api/data/query",
  "POST /api/data/preview",
  "GET /api/personal/std.tasks/items",
  "GET /api/business/acme.shipping/orders",
  "GET /api/analytics",
  "POST /api/workbench/check",
  "POST /api/workbench/install",
  "GET /api/approvals",
  "POST /api/approvals/a-123",
  "GET /api/messages",
  "POST /api/messages",
  "POST /api/messages/m-123/reactions",
  "POST /api/cancel",
  "GET /api/asks",
  "POST /api/asks/q-123/answer",
  "GET /api/branches",
  "POST /api/branches",
  "POST /api/branches/b-123/merge",
  "GET /api/turns",
  "GET /api/turns/t-123",
  "GET /api/activity",
  "GET /api/memory",
  "POST /api/memory",
  "DELETE /api/memory/n-123",
  "GET /api/rules",
  "POST /api/rules",
  "DELETE /api/rules/r-123",
  "GET /api/persona",
  "PUT /api/persona",
  "PUT /api/content-mode",
  "GET /api/library",
  "POST /api/knowledge",
  "GET /api/collab/doc-123",
  "POST /api/library",
  "GET /api/library/f-123/content",
  "GET /api/blobs/0123abcd",
  "GET /api/setup/model/providers",
  "GET /api/connections",
  "GET /api/settings/integrations/tools",
  "POST /api/settings/integrations/tools",
  "PUT /api/connections/c-123/key",
  "DELETE /api/connections/c-123/key",
  "GET /api/settings/models",
  "PUT /api/settings/models",
  "GET /api/settings/routing",
  "PUT /api/settings/routing",
  "GET /api/settings/autonomy",
  "PUT /api/settings/autonomy",
  "GET /api/autonomy/goals",
  "POST /api/autonomy/goals",
  "GET /api/suggestions",
  "GET /api/settings/openaiRouting",
  "PUT /api/settings/openaiRouting",
  "GET /api/settings/integrations/github",
  "PUT /api/settings/integrations/github",
  "DELETE /api/settings/integrations/github",
  "POST /api/calc",
  "GET /api/settings/updates",
  "PUT /api/settings/updates",
  "POST /api/settings/updates/check",
  "POST /api/settings/updates/install",
  "GET /api/comms/list",
  "GET /api/comms/counts",
  "GET /api/comms/people",
  "GET /api/comms/threads/th-123",
  "POST /api/comms/threads/th-123/reply",
  "POST /api/comms/threads/th-123/star",
  "POST /api/comms/threads/th-123/allow",
  "POST /api/comms/compose",
  "POST /api/comms/translate",
  "GET /api/comms/settings",
  "PUT /api/comms/settings",
  "GET /api/comms/signatures",
  "PUT /api/comms/signatures",
  "GET /api/manual/assets/diagram.png",
  "GET /api/exchange/relationships",
  "POST /api/exchange/relationships",
  "PATCH /api/exchange/relationships/rel-123",
  "DELETE /api/exchange/relationships/rel-123",
  "GET /api/exchange/documents",
  "POST /api/exchange/documents",
  "GET /api/exchange/documents/doc-123",
  "POST /api/exchange/documents/doc-123/retry",
]);

const key = ([method, path]: readonly [string, string]) => `${method} ${path}`;

describe("the /api gate of charter node", () => {
  let node: Charter;
  let api: ApiClient;
  let session = "";

  before(async () => {
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
  });
  after(async () => {
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("prints the app's URL on localhost and the set-up code", () => {
    assert.match(node.stdout, new RegExp(`^open ${api.origin}/$`, "m"));
    printedSetupCode(node);
  });

  it("(a) answers 401 unauthenticated without a session on every route but the public ones", async () => {
    const unknown = [["GET", "/api"], ["GET", "/api/no/such/route"], ["POST", "/api/no/such/route"]] as const;
    for (const route of [...SPEC_ROUTES, ...unknown]) {
      const [method, path] = route;
      const answer = await api.call(method, path, { body: { anything: "x".repeat(100) } });
      if (PUBLIC.has(key(route))) {
        assert.notEqual(answer.status, 401, `${key(route)} is public`);
        assert.notEqual(answer.status, 404, `${key(route)} is served`);
      } else {
        assert.equal(answer.status, 401, `${key(route)}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, "unauthenticated", key(route));
        assert.equal(answer.headers.get("content-type"), "application/problem+json");
      }
    }
    const bogus = await api.call("GET", "/api/account/sessions", { cookie: `charter_session=${"A".repeat(43)}` });
    assert.equal(bogus.status, 401, "a cookie that opens no session is no session");
    assert.match(cookieFrom(bogus.setCookies, "charter_session") ?? "", /^charter_session=$/, "and it is taken away");
  });

  it("401 comes before the body is read: an oversized or malformed body without a session is still 401", async () => {
    const res = await fetch(`${api.url}/api/tasks`, { method: "POST", headers: { origin: api.origin, "content-type": "application/json" }, body: "{".repeat(50_000) });
    assert.equal(res.status, 401);
    const big = await fetch(`${api.url}/api/tasks`, { method: "POST", headers: { origin: api.origin, "content-type": "application/json" }, body: "x".repeat(2 * 1024 * 1024) });
    assert.equal(big.status, 401);
  });

  it("(d) creates a session whose cookie is HttpOnly, SameSite=Strict, Path=/, not Secure on http", async () => {
    const { cookie, finish } = await createAccount(api, printedSetupCode(node));
    session = cookie;
    const set = finish.setCookies.find((c) => c.startsWith("charter_session="));
    assert.ok(set !== undefined);
    const attributes = set.split(";").slice(1).map((a) => a.trim());
    assert.ok(attributes.includes("HttpOnly"), set);
    assert.ok(attributes.includes("SameSite=Strict"), set);
    assert.ok(attributes.includes("Path=/"), set);
    assert.ok(attributes.includes(`Max-Age=${30 * 86_400}`), set);
    assert.ok(!attributes.some((a) => a.toLowerCase() === "secure"), set);
    assert.match(cookie, /^charter_session=[A-Za-z0-9_-]{43}$/, "256 random bits, base64url");
    assert.deepEqual(finish.body.account, { setUp: true, signedIn: true, firstName: "Ada", seal: finish.body.account.seal });
  });

  it("(b) with a session, routes not built yet answer 404", async () => {
    assert.ok(session !== "", "a session from the step before");
    const unknown = [["GET", "/api"], ["GET", "/api/no/such/route"], ["POST", "/api/no/such/route"]] as const;
    const pending = [...SPEC_ROUTES.filter((r) => !PUBLIC.has(key(r)) && !BUILT.has(key(r))), ...unknown];
    assert.ok(pending.length > 50, `${pending.length} routes`);
    for (const route of pending) {
      const answer = await api.call(route[0], route[1], { cookie: session });
      assert.equal(answer.status, 404, `${key(route)}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.code, "not-found", key(route));
    }
    // The built ones answer for themselves (their own refusals, at worst); signing out is for (e).
    for (const route of SPEC_ROUTES.filter((r) => BUILT.has(key(r)) && key(r) !== "POST /api/account/signout")) {
      if (key(route) === "GET /api/manual/assets/diagram.png") {
        // An image, not JSON: that it is served is what counts here.
        const image = await fetch(`${api.url}${route[1]}`, { headers: { cookie: session } });
        assert.equal(image.status, 200, key(route));
        continue;
      }
      const answer = await api.call(route[0], route[1], { cookie: session });
      assert.ok(answer.status !== 404 || answer.body.code === "not-found", key(route));
      assert.notEqual(answer.status, 401, key(route));
    }
  });

  it("(c) a state-changing request without the node's Origin is 403 bad-origin, before the session is checked", async () => {
    const wrong = [null, "http://evil.example", api.url, api.origin.replace("http:", "https:"), "null"];
    for (const origin of wrong) {
      for (const [method, path, cookie] of [
        ["POST", "/api/account/signin/begin", undefined],
        ["POST", "/api/account/create/begin", undefined],
        ["POST", "/api/pair/begin", undefined],
        ["POST", "/api/tasks", undefined],
        ["POST", "/api/account/signout", session],
        ["PUT", "/api/account/settings", session],
        ["DELETE", "/api/account/passkey/pk-123", session],
      ] as const) {
        const answer = await api.call(method, path, { origin, ...(cookie === undefined ? {} : { cookie }) });
        assert.equal(answer.status, 403, `${method} ${path} with Origin ${origin}`);
        assert.equal(answer.body.code, "bad-origin");
      }
    }
    assert.equal((await api.call("GET", "/api/account/sessions", { cookie: session, origin: null })).status, 200, "reads need no Origin");
    assert.equal((await api.call("GET", "/api/account", { cookie: session })).body.signedIn, true, "the session was not signed out");
  });

  it("behind the gate, a body over the body limit is 413", async () => {
    const res = await fetch(`${api.url}/api/account/settings`, { method: "PUT", headers: { origin: api.origin, cookie: session, "content-type": "application/json" }, body: `{"x":"${"x".repeat(1024 * 1024)}"}` });
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { code: string }).code, "body-too-large");
  });

  it("(e) after sign-out the old cookie opens nothing", async () => {
    const out = await api.call("POST", "/api/account/signout", { cookie: session });
    assert.equal(out.status, 204);
    assert.match(out.setCookies.find((c) => c.startsWith("charter_session=")) ?? "", /^charter_session=;.*Max-Age=0/);
    const again = await api.call("GET", "/api/account/sessions", { cookie: session });
    assert.equal(again.status, 401);
    assert.equal(again.body.code, "unauthenticated");
    assert.deepEqual((await api.call("GET", "/api/account", { cookie: session })).body, { setUp: true, signedIn: false, firstName: null, seal: null });
    assert.equal((await api.call("POST", "/api/account/signout", { cookie: session })).status, 401);
  });
});

describe("charter serve", () => {
  it("(f) serves no /api: /api/account is the ordinary 404", async () => {
    const c = await startCharter({ edition: "serve" });
    try {
      const api = new ApiClient(c);
      for (const [method, path] of [["GET", "/api/account"], ["POST", "/api/account/signin/begin"], ["GET", "/api/tasks"]] as const) {
        const answer = await api.call(method, path);
        assert.equal(answer.status, 404, `${method} ${path}`);
        assert.equal(answer.body.code, "not-found");
      }
      assert.doesNotMatch(c.stdout, /set-up code/);
      const refused = await runCharter(["serve", "--data", c.dataDir, "--origin", "http://localhost:8787"]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /--origin is an option of `charter node`/);
    } finally {
      await stopCharter(c);
      cleanup(c.dataDir);
    }
  });
});
