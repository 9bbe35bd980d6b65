import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import type { SessionRecord } from "./account/account-store.ts";
import type { ApiEnv } from "./api-env.ts";
import { apiGate, isPublicRoute } from "./gate.ts";

const ORIGIN = "https://home.example.org";
const TOKEN = "A".repeat(43);
const RECOVERY = "R".repeat(43);

function session(scope: SessionRecord["scope"]): SessionRecord {
  return { id: scope, scope, createdAt: 0, lastSeenAt: 0, userAgent: "", steppedUpUntil: 0, stepUpEvidence: null, endedAt: null };
}

/** A gated app whose every route answers who it saw; `read` counts bodies read behind the gate. */
function gated() {
  const seen = { bodies: 0 };
  const app = new Hono<ApiEnv>();
  app.use("*", apiGate({ origin: ORIGIN, session: (t) => (t === TOKEN ? session("full") : t === RECOVERY ? session("recovery") : null) }));
  app.all("*", async (c) => {
    await c.req.text();
    seen.bodies++;
    return c.json({ session: c.get("session")?.scope ?? null });
  });
  const call = async (method: string, path: string, headers: Record<string, string> = {}) => {
    const res = await app.request(path, { method, headers, ...(method === "GET" || method === "HEAD" ? {} : { body: "{}" }) });
    return { status: res.status, body: method === "HEAD" ? null : ((await res.json()) as { code?: string; session?: string | null }), cookie: res.headers.get("set-cookie") };
  };
  return { call, seen };
}

test("Origin is checked first on every state-changing request, public ones included", async () => {
  const { call, seen } = gated();
  for (const [method, path] of [["POST", "/api/account/signin/begin"], ["POST", "/api/tasks"], ["PUT", "/api/x"], ["DELETE", "/api/x"], ["PATCH", "/api/x"]]) {
    const answer = await call(method as string, path as string, { origin: "https://evil.example" });
    assert.deepEqual([answer.status, answer.body?.code], [403, "bad-origin"], `${method} ${path}`);
    assert.equal((await call(method as string, path as string)).body?.code, "bad-origin", "no Origin at all");
  }
  assert.equal(seen.bodies, 0);
});

test("without a session only the public routes are reached; the rest is 401 with no body read", async () => {
  const { call, seen } = gated();
  assert.deepEqual((await call("GET", "/api/account")).body, { session: null });
  assert.equal((await call("HEAD", "/api/account")).status, 200);
  for (const path of ["/api/account/create/begin", "/api/account/signin/finish", "/api/account/recovery/use", "/api/pair/begin", "/api/pair/finish"]) {
    assert.equal((await call("POST", path, { origin: ORIGIN })).status, 200, path);
  }
  const before = seen.bodies;
  for (const [method, path] of [["GET", "/api/account/sessions"], ["POST", "/api/pair/code"], ["GET", "/api"], ["GET", "/api/nothing/here"], ["POST", "/api/account"]]) {
    const answer = await call(method as string, path as string, { origin: ORIGIN, cookie: "charter_session=nope" });
    assert.deepEqual([answer.status, answer.body?.code], [401, "unauthenticated"], `${method} ${path}`);
    assert.match(answer.cookie ?? "", /^charter_session=;/, "the dead cookie is taken away");
  }
  assert.equal(seen.bodies, before);
  assert.equal(isPublicRoute("GET", "/api/account/"), false, "paths are matched exactly");
});

test("a recovery sign-in reaches the account, adding a passkey and signing out, nothing else", async () => {
  const { call } = gated();
  const cookie = `charter_session=${RECOVERY}`;
  for (const [method, path] of [["GET", "/api/account"], ["POST", "/api/account/passkey/begin"], ["POST", "/api/account/passkey/finish"], ["POST", "/api/account/signout"]]) {
    assert.deepEqual((await call(method as string, path as string, { origin: ORIGIN, cookie })).body, { session: "recovery" }, `${method} ${path}`);
  }
  for (const [method, path] of [["GET", "/api/account/sessions"], ["POST", "/api/account/stepup/begin"], ["DELETE", "/api/account/passkey/x"], ["GET", "/api/tasks"]]) {
    assert.deepEqual((await call(method as string, path as string, { origin: ORIGIN, cookie })).body?.code, "limited-session", `${method} ${path}`);
  }
  assert.deepEqual((await call("GET", "/api/tasks", { cookie: `charter_session=${TOKEN}` })).body, { session: "full" });
});
