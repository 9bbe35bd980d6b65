/**
 * @module The account's storage over one SQLite connection: the account and its settings,
 * passkeys, challenges, sessions, recovery and pairing codes, guessing limits. It stores what it is
 * given and decides nothing: the ceremonies hold the rules and pass the time in. Every query is
 * prepared once and parameterized; every list is bounded.
 *
 * The account row and the live sessions looked up by token are cached: this store is the only writer
 * of its tables (every write empties the session cache), and the session check on every request
 * needs them without a query.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import { transaction } from "../../../../shared/store/open.ts";
import {
  type AccountRecord,
  type AccountSettings,
  accountOf,
  type ChallengePurpose,
  type ChallengeRecord,
  type GuardedCeremony,
  type PairingOutcome,
  type PasskeyRecord,
  passkeyOf,
  type RemoveOutcome,
  type SessionRecord,
  sessionOf,
} from "./account-records.ts";
import { ensureAccountTables } from "./account-tables.ts";
import { type AttemptState, noAttempts } from "./attempt-limit.ts";

export type * from "./account-records.ts";
export { defaultSettings } from "./account-records.ts";

/** At most this many passkeys on the account. */
export const MAX_PASSKEYS = 50;
/** At most this many sessions listed. */
export const MAX_SESSIONS_LISTED = 200;
/** At most this many sessions are kept in the cache of lookups by token; past it, it starts again empty. */
const SESSIONS_CACHED = 256;
/** At most this many live challenges: beyond it the oldest go first (begin steps need no session). */
export const MAX_LIVE_CHALLENGES = 1000;
/** At most this many pairing codes alive at once. */
export const MAX_LIVE_PAIRING_CODES = 10;
/** Ended sessions are forgotten this long after they end. */
const ENDED_KEPT_MS = 30 * 86_400_000;

/** The account's storage; see the module comment. */
export class AccountStore {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  #account: AccountRecord | null | undefined;
  /** Sessions found by token hash (hex), until the next write; unknown tokens are not kept (anyone may send one). */
  readonly #sessionsByToken = new Map<string, SessionRecord>();

  constructor(db: DatabaseSync) {
    ensureAccountTables(db);
    this.#db = db;
  }

  /** Runs `fn` in one transaction (composes with an open one). */
  atomically<T>(fn: () => T): T {
    try {
      return transaction(this.#db, fn);
    } finally {
      // What was read inside it may have been rolled back.
      this.#sessionsByToken.clear();
    }
  }

  // --- the account ---------------------------------------------------------------------------

  /** The account, set up or under way; null when set-up never began. */
  account(): AccountRecord | null {
    if (this.#account === undefined) {
      const row = this.#get("SELECT * FROM account WHERE id = 1");
      this.#account = row === undefined ? null : accountOf(row);
    }
    return this.#account;
  }

  /** The set-up code of a node not yet set up, made once with `make` and kept until set-up ends. */
  setupCode(make: () => string): string | null {
    if (this.account()?.ready === true) return null;
    const row = this.#get("SELECT value FROM account_meta WHERE key = 'setup-code'");
    if (row !== undefined) return row.value as string;
    const code = make();
    this.#run("INSERT INTO account_meta (key, value) VALUES ('setup-code', ?)", code);
    return code;
  }

  /**
   * Starts (or restarts) set-up: a pending account, without the passkeys of an abandoned attempt.
   * False when the account is already set up.
   */
  beginSetup(firstName: string, userHandle: Uint8Array, now: number): boolean {
    return this.atomically(() => {
      this.#account = undefined;
      if (this.account()?.ready === true) return false;
      this.#run("DELETE FROM account_passkeys");
      this.#run("DELETE FROM account");
      this.#run("INSERT INTO account (id, state, first_name, user_handle, created_at) VALUES (1, 'pending', ?, ?, ?)", firstName, userHandle, now);
      this.#account = undefined;
      return true;
    });
  }

  /**
   * Ends the set-up attempt whose user handle is `userHandle`: the account is ready, with the
   * person's did and personal tenant, and the set-up code is gone. False when that attempt is no
   * longer the pending one.
   */
  finishSetup(userHandle: Uint8Array, made: { did: string; tenant: string }): boolean {
    return this.atomically(() => {
      this.#account = undefined;
      const changed = this.#run("UPDATE account SET state = 'ready', did = ?, tenant = ? WHERE id = 1 AND state = 'pending' AND user_handle = ?", made.did, made.tenant, userHandle).changes === 1;
      if (changed) this.#run("DELETE FROM account_meta WHERE key = 'setup-code'");
      return changed;
    });
  }

  /** Replaces the sign-in settings (the time zone is set apart: setTimeZone). */
  updateSettings(settings: Omit<AccountSettings, "timeZone">): void {
    this.#run("UPDATE account SET sign_in_required = ?, session_days = ?, idle_days = ? WHERE id = 1", settings.signInRequired ? 1 : 0, settings.sessionDays, settings.idleDays);
    this.#account = undefined;
  }

  /** Keeps the time zone the person chose (until then the account reads the machine's). */
  setTimeZone(zone: string): void {
    this.#run("UPDATE account SET time_zone = ? WHERE id = 1", zone);
    this.#account = undefined;
  }

  // --- passkeys ------------------------------------------------------------------------------

  /** Adds a passkey; false when its credential id is already registered. */
  addPasskey(p: PasskeyRecord): boolean {
    const r = this.#run(
      "INSERT INTO account_passkeys (id, public_key, counter, transports, label, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
      p.id,
      p.publicKey,
      p.counter,
      JSON.stringify(p.transports),
      p.label,
      p.createdAt,
      p.lastUsedAt,
    );
    return r.changes === 1;
  }

  /** The passkey of credential id `id`. */
  passkey(id: string): PasskeyRecord | null {
    const row = this.#get("SELECT * FROM account_passkeys WHERE id = ?", id);
    return row === undefined ? null : passkeyOf(row);
  }

  /** The account's passkeys, oldest first (at most `MAX_PASSKEYS`). */
  passkeys(): PasskeyRecord[] {
    return this.#all("SELECT * FROM account_passkeys ORDER BY created_at, rowid LIMIT ?", MAX_PASSKEYS).map(passkeyOf);
  }

  /** How many passkeys the account has. */
  passkeyCount(): number {
    return Number(this.#get("SELECT count(*) AS n FROM account_passkeys")?.n ?? 0);
  }

  /** Records a sign-in with a passkey: its new counter (never moved backwards) and when. */
  recordPasskeyUse(id: string, counter: number, now: number): void {
    this.#run("UPDATE account_passkeys SET counter = max(counter, ?), last_used_at = ? WHERE id = ?", counter, now, id);
  }

  /** Removes a passkey unless it is the last one. */
  removePasskey(id: string): RemoveOutcome {
    return this.atomically(() => {
      if (this.passkey(id) === null) return "missing";
      if (this.passkeyCount() <= 1) return "last";
      this.#run("DELETE FROM account_passkeys WHERE id = ?", id);
      return "removed";
    });
  }

  // --- challenges ----------------------------------------------------------------------------

  /** Keeps a new challenge; expired ones are dropped, and the oldest beyond the cap. */
  putChallenge(c: ChallengeRecord, now: number): void {
    this.atomically(() => {
      this.#run("DELETE FROM account_challenges WHERE expires_at <= ?", now);
      this.#run(
        "DELETE FROM account_challenges WHERE challenge IN (SELECT challenge FROM account_challenges ORDER BY expires_at DESC LIMIT -1 OFFSET ?)",
        MAX_LIVE_CHALLENGES - 1,
      );
      this.#run("INSERT INTO account_challenges (challenge, purpose, session_id, data, expires_at) VALUES (?, ?, ?, ?, ?)", c.challenge, c.purpose, c.sessionId, c.data, c.expiresAt);
    });
  }

  /** Takes a challenge out (it can be taken once); null when unknown or already taken. */
  takeChallenge(challenge: string): ChallengeRecord | null {
    const row = this.#get("DELETE FROM account_challenges WHERE challenge = ? RETURNING *", challenge);
    if (row === undefined) return null;
    return {
      challenge: row.challenge as string,
      purpose: row.purpose as ChallengePurpose,
      sessionId: (row.session_id as string | null) ?? null,
      data: (row.data as string | null) ?? null,
      expiresAt: Number(row.expires_at),
    };
  }

  // --- sessions ------------------------------------------------------------------------------

  /** Keeps a new session under its token's hash; sessions ended long ago are forgotten. */
  createSession(s: SessionRecord, tokenHash: Uint8Array): void {
    this.atomically(() => {
      this.#run("DELETE FROM account_sessions WHERE ended_at IS NOT NULL AND ended_at < ?", s.createdAt - ENDED_KEPT_MS);
      this.#run(
        "INSERT INTO account_sessions (id, token_hash, scope, created_at, last_seen_at, user_agent, stepped_up_until, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        s.id,
        tokenHash,
        s.scope,
        s.createdAt,
        s.lastSeenAt,
        s.userAgent,
        s.steppedUpUntil,
        s.endedAt,
      );
    });
  }

  /** The session whose token hashes to `tokenHash` (one lookup on a unique index). */
  sessionByTokenHash(tokenHash: Uint8Array): SessionRecord | null {
    const key = Buffer.from(tokenHash.buffer, tokenHash.byteOffset, tokenHash.byteLength).toString("hex");
    const cached = this.#sessionsByToken.get(key);
    if (cached !== undefined) return cached;
    const row = this.#get("SELECT id, scope, created_at, last_seen_at, user_agent, stepped_up_until, step_up_evidence, ended_at FROM account_sessions WHERE token_hash = ?", tokenHash);
    if (row === undefined) return null;
    const session = Object.freeze(sessionOf(row));
    if (this.#sessionsByToken.size >= SESSIONS_CACHED) this.#sessionsByToken.clear();
    this.#sessionsByToken.set(key, session);
    return session;
  }

  /** The session of id `id`. */
  session(id: string): SessionRecord | null {
    const row = this.#get("SELECT id, scope, created_at, last_seen_at, user_agent, stepped_up_until, step_up_evidence, ended_at FROM account_sessions WHERE id = ?", id);
    return row === undefined ? null : sessionOf(row);
  }

  /** Sessions not ended, most recently seen first (at most `MAX_SESSIONS_LISTED`). */
  openSessions(): SessionRecord[] {
    return this.#all(
      "SELECT id, scope, created_at, last_seen_at, user_agent, stepped_up_until, step_up_evidence, ended_at FROM account_sessions WHERE ended_at IS NULL ORDER BY last_seen_at DESC, id LIMIT ?",
      MAX_SESSIONS_LISTED,
    ).map(sessionOf);
  }

  /** Records that a session was seen at `now`. */
  touchSession(id: string, now: number): void {
    this.#run("UPDATE account_sessions SET last_seen_at = ? WHERE id = ?", now, id);
  }

  /** Lets a session do sensitive things until `until`, keeping the step-up's passkey assertion (`evidence`, JSON). */
  stepUpSession(id: string, until: number, evidence: string | null = null): void {
    this.#run("UPDATE account_sessions SET stepped_up_until = ?, step_up_evidence = ? WHERE id = ? AND ended_at IS NULL", until, evidence, id);
  }

  /** Ends a session; false when it was unknown or already ended. */
  endSession(id: string, now: number): boolean {
    return this.#run("UPDATE account_sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL", now, id).changes === 1;
  }

  /** The session that stands for every caller while sign-in is off (sign-in-off.ts), if one was made. */
  signInOffSessionId(): string | null {
    return (this.#get("SELECT value FROM account_meta WHERE key = 'sign-in-off-session'")?.value as string | undefined) ?? null;
  }

  /** Records (or, with null, forgets) the session that stands for every caller while sign-in is off. */
  setSignInOffSessionId(id: string | null): void {
    if (id === null) this.#run("DELETE FROM account_meta WHERE key = 'sign-in-off-session'");
    else this.#run("INSERT INTO account_meta (key, value) VALUES ('sign-in-off-session', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", id);
  }

  // --- recovery codes ------------------------------------------------------------------------

  /** Replaces every recovery code with new ones (their hashes). */
  replaceRecoveryCodes(hashes: readonly Uint8Array[], now: number): void {
    this.atomically(() => {
      this.#run("DELETE FROM account_recovery_codes");
      for (const h of hashes) this.#run("INSERT INTO account_recovery_codes (code_hash, created_at) VALUES (?, ?)", h, now);
    });
  }

  /** Marks the code of hash `hash` used; false when it is unknown or was used before. */
  useRecoveryCode(hash: Uint8Array, now: number): boolean {
    return this.#run("UPDATE account_recovery_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL", now, hash).changes === 1;
  }

  /** How many recovery codes are left, and when the set was made (null: never). */
  recoveryStatus(): { codesLeft: number; createdAt: number | null } {
    const row = this.#get("SELECT count(*) FILTER (WHERE used_at IS NULL) AS left, max(created_at) AS created FROM account_recovery_codes");
    return { codesLeft: Number(row?.left ?? 0), createdAt: row?.created == null ? null : Number(row.created) };
  }

  // --- pairing codes -------------------------------------------------------------------------

  /** Keeps a new pairing code's hash, issued from session `sessionId`; the oldest beyond the cap go. */
  putPairingCode(hash: Uint8Array, sessionId: string, now: number, expiresAt: number): void {
    this.atomically(() => {
      this.#run("DELETE FROM account_pairing_codes WHERE expires_at <= ? OR used_at IS NOT NULL", now);
      this.#run(
        "DELETE FROM account_pairing_codes WHERE code_hash IN (SELECT code_hash FROM account_pairing_codes ORDER BY created_at DESC LIMIT -1 OFFSET ?)",
        MAX_LIVE_PAIRING_CODES - 1,
      );
      this.#run("INSERT INTO account_pairing_codes (code_hash, session_id, created_at, expires_at) VALUES (?, ?, ?, ?)", hash, sessionId, now, expiresAt);
    });
  }

  /** Uses the pairing code of hash `hash` if it is alive and unused at `now`. */
  usePairingCode(hash: Uint8Array, now: number): PairingOutcome {
    const row = this.#get("UPDATE account_pairing_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING session_id", now, hash, now);
    return row === undefined ? { found: false } : { found: true, sessionId: row.session_id as string };
  }

  // --- guessing limits -----------------------------------------------------------------------

  /** The guessing-limit state of a ceremony. */
  attempts(ceremony: GuardedCeremony): AttemptState {
    const row = this.#get("SELECT failures, locked_until FROM account_attempts WHERE ceremony = ?", ceremony);
    if (row === undefined) return noAttempts;
    return { failures: JSON.parse(row.failures as string) as number[], lockedUntil: Number(row.locked_until) };
  }

  /** Keeps the guessing-limit state of a ceremony. */
  setAttempts(ceremony: GuardedCeremony, state: AttemptState): void {
    this.#run(
      "INSERT INTO account_attempts (ceremony, failures, locked_until) VALUES (?, ?, ?) ON CONFLICT (ceremony) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until",
      ceremony,
      JSON.stringify(state.failures),
      state.lockedUntil,
    );
  }

  // --- statements ----------------------------------------------------------------------------

  #statement(sql: string): StatementSync {
    let s = this.#statements.get(sql);
    if (s === undefined) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  #get(sql: string, ...params: SQLInputValue[]): Record<string, unknown> | undefined {
    return this.#statement(sql).get(...params) as Record<string, unknown> | undefined;
  }

  #all(sql: string, ...params: SQLInputValue[]): Record<string, unknown>[] {
    return this.#statement(sql).all(...params) as Record<string, unknown>[];
  }

  #run(sql: string, ...params: SQLInputValue[]): { changes: number | bigint } {
    // Emptied before the write: a write that fails half-way leaves nothing stale either.
    this.#sessionsByToken.clear();
    return this.#statement(sql).run(...params);
  }
}
