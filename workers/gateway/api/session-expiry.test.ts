/**
 * Sessions expire over HTTP as the settings say, on the `/api` app itself with a clock the test
 * moves: idle too long (the cookie stops working and is taken away), past its lifetime however
 * active, and a recovery sign-in after fifteen minutes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger } from "../../../shared/log.ts";
import { accountNode, ORIGIN, setUp, unwrap } from "./account/account-fixture.ts";
import { SESSION_COOKIE } from "./account/sessions.ts";
import { createApiApp } from "./api-app.ts";
import { PersonReader } from "./personal/person-reader.ts";
import { StoreView } from "../reads/store-view.ts";
import { PersonWriter } from "./personal/person-writer.ts";

const MINUTE = 60_000;
const DAY = 86_400_000;

async function httpNode() {
  const node = accountNode();
  const { finished } = await setUp(node);
  const unreachable = async (): Promise<never> => {
    throw new Error("not used by these routes");
  };
  const app = createApiApp({
    account: node.account,
    origin: ORIGIN,
    seal: "TEST-SEAL",
    setUp: unreachable,
    log: createLogger("test", () => {}),
    bodyLimit: 1 << 20,
    writer: new PersonWriter({ engine: { request: unreachable } as never, now: () => node.clock.now(), personKey: () => null, personalTenant: () => null }),
    admin: { request: unreachable },
    version: "test",
    person: () => ({ did: null, tenant: null }),
    lastSeq: () => 0,
    reader: new PersonReader({ store: new StoreView(":memory:"), personDid: () => null, personalTenant: () => null, now: () => node.clock.now() }),
    now: () => node.clock.now(),
  });
  const get = (token: string) => app.request("/api/account/sessions", { headers: { cookie: `${SESSION_COOKIE}=${token}` } });
  return { node, app, token: finished.token, get };
}

test("a session idle longer than idleDays answers 401 and its cookie is taken away; activity keeps it alive", async () => {
  const { node, token, get } = await httpNode();
  assert.equal((await get(token)).status, 200);
  // Active every six days: never idle for seven.
  for (let i = 0; i < 2; i++) {
    node.clock.advance(6 * DAY);
    assert.equal((await get(token)).status, 200, `after ${(i + 1) * 6} days of use`);
  }
  node.clock.advance(7 * DAY - MINUTE);
  assert.equal((await get(token)).status, 200, "a minute short of the idle limit");
  node.clock.advance(7 * DAY);
  const idle = await get(token);
  assert.equal(idle.status, 401);
  assert.equal(((await idle.json()) as { code: string }).code, "unauthenticated");
  assert.match(idle.headers.get("set-cookie") ?? "", new RegExp(`^${SESSION_COOKIE}=; .*Max-Age=0`), "the browser is told to drop the cookie");
});

test("a session ends at its lifetime however active it is; a shorter idle limit set in the settings holds", async () => {
  const { node, token, get } = await httpNode();
  for (let day = 1; day < 30; day++) {
    node.clock.advance(DAY);
    assert.equal((await get(token)).status, 200, `day ${day}`);
  }
  node.clock.advance(DAY);
  assert.equal((await get(token)).status, 401, "thirty days after sign-in");

  const other = await httpNode();
  const session = other.node.account.session(other.token);
  assert.ok(session !== null);
  unwrap(other.node.account.updateSettings(session, { sessionDays: 30, idleDays: 1 }));
  other.node.clock.advance(DAY + 1);
  assert.equal((await other.get(other.token)).status, 401, "idle a day with idleDays 1");
});
