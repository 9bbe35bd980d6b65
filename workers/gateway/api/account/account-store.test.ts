import assert from "node:assert/strict";
import { test } from "node:test";
import { DatabaseSync } from "node:sqlite";
import { AccountStore, MAX_LIVE_CHALLENGES, MAX_LIVE_PAIRING_CODES, type SessionRecord } from "./account-store.ts";
import { ensureAccountTables } from "./account-tables.ts";
import { codeHash } from "./codes.ts";

function store(): { db: DatabaseSync; store: AccountStore } {
  const db = new DatabaseSync(":memory:");
  return { db, store: new AccountStore(db) };
}

test("the tables are created once and opening again keeps what they hold", () => {
  const { db, store: s } = store();
  s.beginSetup("Ada", new Uint8Array([1, 2]), 5);
  ensureAccountTables(db);
  ensureAccountTables(db);
  assert.equal(new AccountStore(db).account()?.firstName, "Ada");
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((r) => r.name);
  assert.deepEqual(tables, ["account", "account_attempts", "account_challenges", "account_meta", "account_pairing_codes", "account_passkeys", "account_recovery_codes", "account_sessions"]);
});

test("values are parameters, never SQL: a first name full of quotes is stored as written", () => {
  const { store: s } = store();
  const name = `Robert'); DROP TABLE account_passkeys; --`;
  s.beginSetup(name, new Uint8Array(16), 1);
  assert.equal(s.account()?.firstName, name);
  assert.equal(s.passkeyCount(), 0);
});

test("a challenge is taken once", () => {
  const { store: s } = store();
  s.putChallenge({ challenge: "c1", purpose: "signin", sessionId: null, data: null, expiresAt: 100 }, 0);
  assert.equal(s.takeChallenge("c1")?.purpose, "signin");
  assert.equal(s.takeChallenge("c1"), null);
  assert.equal(s.takeChallenge("never"), null);
});

test("live challenges are bounded: expired ones go, then the oldest beyond the cap", () => {
  const { db, store: s } = store();
  s.putChallenge({ challenge: "old", purpose: "signin", sessionId: null, data: null, expiresAt: 10 }, 0);
  s.putChallenge({ challenge: "new", purpose: "signin", sessionId: null, data: null, expiresAt: 1_000 }, 11);
  assert.equal(s.takeChallenge("old"), null, "expired and dropped");
  for (let i = 0; i < MAX_LIVE_CHALLENGES + 5; i++) s.putChallenge({ challenge: `c${i}`, purpose: "signin", sessionId: null, data: null, expiresAt: 2_000 + i }, 20);
  assert.equal(Number(db.prepare("SELECT count(*) AS n FROM account_challenges").get()?.n), MAX_LIVE_CHALLENGES);
  assert.equal(s.takeChallenge("new"), null, "the oldest went first");
  assert.notEqual(s.takeChallenge(`c${MAX_LIVE_CHALLENGES + 4}`), null);
});

test("a recovery code is used once; a new set replaces the old one", () => {
  const { store: s } = store();
  s.replaceRecoveryCodes([codeHash("AAAA-BBBB"), codeHash("CCCC-DDDD")], 7);
  assert.deepEqual(s.recoveryStatus(), { codesLeft: 2, createdAt: 7 });
  assert.equal(s.useRecoveryCode(codeHash("aaaabbbb"), 8), true);
  assert.equal(s.useRecoveryCode(codeHash("AAAA-BBBB"), 9), false);
  assert.deepEqual(s.recoveryStatus(), { codesLeft: 1, createdAt: 7 });
  s.replaceRecoveryCodes([codeHash("EEEE-FFFF")], 10);
  assert.equal(s.useRecoveryCode(codeHash("CCCC-DDDD"), 11), false);
  assert.deepEqual(s.recoveryStatus(), { codesLeft: 1, createdAt: 10 });
});

test("pairing codes: single use, expire, and at most a few alive at once", () => {
  const { store: s } = store();
  s.putPairingCode(codeHash("P1"), "s1", 0, 100);
  assert.deepEqual(s.usePairingCode(codeHash("P1"), 100), { found: false }, "expired at its expiry");
  s.putPairingCode(codeHash("P2"), "s1", 0, 100);
  assert.deepEqual(s.usePairingCode(codeHash("P2"), 99), { found: true, sessionId: "s1" });
  assert.deepEqual(s.usePairingCode(codeHash("P2"), 99), { found: false });
  for (let i = 0; i < MAX_LIVE_PAIRING_CODES + 2; i++) s.putPairingCode(codeHash(`Q${i}`), "s1", i, 1_000);
  assert.deepEqual(s.usePairingCode(codeHash("Q0"), 50), { found: false }, "the oldest went");
  assert.deepEqual(s.usePairingCode(codeHash(`Q${MAX_LIVE_PAIRING_CODES + 1}`), 50), { found: true, sessionId: "s1" });
});

test("the last passkey stays; the counter never moves backwards", () => {
  const { store: s } = store();
  const passkey = { id: "k1", publicKey: new Uint8Array([1]), counter: 5, transports: ["internal"], label: "a", createdAt: 1, lastUsedAt: null };
  assert.equal(s.addPasskey(passkey), true);
  assert.equal(s.addPasskey(passkey), false, "a credential id is registered once");
  assert.equal(s.removePasskey("k1"), "last");
  assert.equal(s.removePasskey("k9"), "missing");
  s.addPasskey({ ...passkey, id: "k2" });
  assert.equal(s.removePasskey("k1"), "removed");
  s.recordPasskeyUse("k2", 9, 50);
  s.recordPasskeyUse("k2", 3, 60);
  assert.deepEqual([s.passkey("k2")?.counter, s.passkey("k2")?.lastUsedAt, s.passkey("k2")?.transports], [9, 60, ["internal"]]);
});

test("sessions: looked up by token hash, ended once, forgotten a month after they end", () => {
  const { store: s } = store();
  const session: SessionRecord = { id: "s1", scope: "full", createdAt: 0, lastSeenAt: 0, userAgent: "ua", steppedUpUntil: 0, stepUpEvidence: null, endedAt: null };
  s.createSession(session, new Uint8Array(32).fill(1));
  assert.equal(s.sessionByTokenHash(new Uint8Array(32).fill(1))?.id, "s1");
  assert.equal(s.sessionByTokenHash(new Uint8Array(32).fill(2)), null);
  assert.equal(s.endSession("s1", 10), true);
  assert.equal(s.endSession("s1", 11), false);
  assert.deepEqual(s.openSessions(), []);
  s.createSession({ ...session, id: "s2", createdAt: 10 + 30 * 86_400_000 + 1 }, new Uint8Array(32).fill(3));
  assert.equal(s.session("s1"), null);
});

test("the guessing-limit state is kept per ceremony", () => {
  const { store: s } = store();
  assert.deepEqual(s.attempts("pair"), { failures: [], lockedUntil: 0 });
  s.setAttempts("pair", { failures: [1, 2], lockedUntil: 0 });
  s.setAttempts("pair", { failures: [1, 2, 3], lockedUntil: 9 });
  assert.deepEqual(s.attempts("pair"), { failures: [1, 2, 3], lockedUntil: 9 });
  assert.deepEqual(s.attempts("setup"), { failures: [], lockedUntil: 0 });
});
