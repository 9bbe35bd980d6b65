/**
 * Creating an identity when the engine fails after the registration was written: the registration
 * is withdrawn when the engine refused (a handle taken meanwhile `409`, a failure of the node
 * `500`) and kept when it did not answer (`503`: the tenant may exist); a registration the contract
 * refuses makes no tenant.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Hono } from "hono";
import { ChannelError } from "../../../../shared/channel/messages.ts";
import { silentLogger } from "../../../../shared/log.ts";
import type { AdminRequests, AdminRequestType } from "../../../../shared/protocol/admin.ts";
import type { SignedCommandAnswer } from "../../../../shared/protocol/engine.ts";
import { errorHandler } from "../../problem-response.ts";
import type { SessionRecord } from "../account/account-records.ts";
import type { ApiEnv } from "../api-env.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWrite, PersonWriter } from "../personal/person-writer.ts";
import { mountIdentityListRoutes } from "./identities.ts";

const PERSON = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

/** A receipt JWS as the engine signs it, for what the route reads of it (its payload). */
const jwsOf = (receipt: object) => `e30.${Buffer.from(JSON.stringify(receipt)).toString("base64url")}.c2ln`;

type Create = (body: AdminRequests["tenant-create"]["request"]) => AdminRequests["tenant-create"]["response"];

/** The route on fakes: the engine answers `describe` unknown and `create` as told; the writer accepts or refuses. */
function setUp(create: Create, registered: "accepted" | "refused" = "accepted") {
  const asked: AdminRequestType[] = [];
  const writes: PersonWrite[] = [];
  const admin = {
    request(type: AdminRequestType, body: unknown): Promise<unknown> {
      asked.push(type);
      if (type === "tenant-describe") return Promise.resolve({ ok: false, error: { code: "unknown_tenant", message: "no tenant" } });
      if (type === "tenant-create") return Promise.resolve().then(() => create(body as AdminRequests["tenant-create"]["request"]));
      throw new Error(`unexpected ${type}`);
    },
  };
  const writer = {
    act(write: PersonWrite): Promise<SignedCommandAnswer> {
      writes.push(write);
      const outcome = write.action === "Register" ? registered : "accepted";
      return Promise.resolve({ kind: "receipt", jws: jwsOf({ outcome, namespace: write.namespace, action: write.action, subject: write.subject, reason: outcome === "refused" ? { code: "text_too_long", message: "name is over 200 characters" } : null }), outcome, replayed: false });
    },
  };
  const reader = { did: () => PERSON, personalTenant: () => "ada" };
  const api = new Hono<ApiEnv>();
  api.onError(errorHandler(silentLogger));
  api.use("*", async function session(c, next) {
    c.set("session", { id: "s" } as SessionRecord);
    await next();
  });
  mountIdentityListRoutes(api, {
    admin: admin as never,
    writer: writer as unknown as PersonWriter,
    reader: reader as unknown as PersonReader,
    account: { context: {} as never },
    log: silentLogger,
  });
  const post = (body: unknown) => api.request("/api/identities", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { asked, writes, post };
}

const actions = (writes: PersonWrite[]) => writes.map((w) => `${w.action} ${w.subject}`);

describe("POST /api/identities when the tenant is not made", () => {
  it("a handle taken after the check: 409 handle-taken, the registration withdrawn", async () => {
    const { writes, post } = setUp(() => ({ ok: false, error: { code: "tenant_exists", message: "tenant 'acme' already exists" } }));
    const answer = await post({ handle: "acme", kind: "business", name: "Acme" });
    assert.equal(answer.status, 409);
    assert.equal(((await answer.json()) as { code: string }).code, "handle-taken");
    assert.deepEqual(actions(writes), ["Register acme", "Withdraw acme"]);
    assert.deepEqual(writes[0]?.args, { kind: "Business", name: "Acme" });
  });

  it("the engine gone before answering: 503 engine-unavailable, the registration kept (the tenant may have been made)", async () => {
    const { writes, post } = setUp(() => {
      throw new ChannelError("channel_closed", "closed");
    });
    const answer = await post({ handle: "acme", kind: "household" });
    assert.equal(answer.status, 503);
    assert.equal(((await answer.json()) as { code: string }).code, "engine-unavailable");
    assert.deepEqual(actions(writes), ["Register acme"]);
    assert.deepEqual(writes[0]?.args, { kind: "Household", name: "" });
  });

  it("the node unable to write the tenant's key: 500 internal, the registration withdrawn", async () => {
    const { writes, post } = setUp(() => ({ ok: false, error: { code: "key_unwritable", message: "cannot create keys" } }));
    const answer = await post({ handle: "acme", kind: "business" });
    assert.equal(answer.status, 500);
    assert.deepEqual(actions(writes), ["Register acme", "Withdraw acme"]);
  });

  it("a registration the contract refuses: 422 with the receipt, and the engine is never asked for the tenant", async () => {
    const { asked, writes, post } = setUp(() => assert.fail("no tenant may be made"), "refused");
    const answer = await post({ handle: "acme", kind: "business", name: "x" });
    assert.equal(answer.status, 422);
    assert.equal(((await answer.json()) as { receipt: { outcome: string } }).receipt.outcome, "refused");
    assert.deepEqual(asked, ["tenant-describe"]);
    assert.deepEqual(actions(writes), ["Register acme"]);
  });
});
