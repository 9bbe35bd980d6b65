import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";
import { CODE_ATTEMPTS, CODE_TTL_MS, PeerStore } from "./peer-store.ts";

describe("pairing codes", () => {
  const store = () => new PeerStore(new DatabaseSync(":memory:"));

  it("are spent once, with or without the dash, in any case", () => {
    const s = store();
    const { code } = s.newCode("ada", 1000);
    assert.match(code, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    assert.deepEqual(s.spendCode(code.replace("-", "").toLowerCase(), 2000), { ok: true, tenant: "ada" });
    assert.deepEqual(s.spendCode(code, 2000), { ok: false, why: "none" });
  });

  it("expire after 10 minutes", () => {
    const s = store();
    const { code, expiresAt } = s.newCode("ada", 1000);
    assert.equal(expiresAt, 1000 + CODE_TTL_MS);
    assert.deepEqual(s.spendCode(code, 1000 + CODE_TTL_MS), { ok: false, why: "expired" });
    assert.deepEqual(s.spendCode(code, 1000), { ok: false, why: "none" }, "an expired code is gone");
  });

  it("are burnt after too many wrong tries, and a new one replaces the old", () => {
    const s = store();
    const first = s.newCode("ada", 0).code;
    const { code } = s.newCode("ada", 0);
    assert.deepEqual(s.spendCode(first, 1), { ok: false, why: "wrong" }, "only the newest code is live");
    for (let i = 1; i < CODE_ATTEMPTS - 1; i++) assert.deepEqual(s.spendCode("AAAA-AAAA", 1), { ok: false, why: "wrong" });
    assert.deepEqual(s.spendCode("AAAA-AAAA", 1), { ok: false, why: "burnt" });
    assert.deepEqual(s.spendCode(code, 1), { ok: false, why: "none" }, "the right code no longer works once burnt");
  });

  it("pins devices; a revoked one stays revoked when pinned again", () => {
    const s = store();
    s.pin("did:key:z6Mk1", "laptop", "device", null, 5);
    assert.equal(s.revoke("did:key:z6Mk1", 6), true);
    assert.equal(s.revoke("did:key:z6Mk1", 7), false);
    s.pin("did:key:z6Mk1", "laptop again", "device", null, 8);
    assert.equal(s.peer("did:key:z6Mk1")?.revoked_at, 6);
  });
});
