/**
 * @module The account's tables: one account, its passkeys, the ceremonies' single-use challenges,
 * sessions (token hashes only), recovery and pairing codes (hashes only), and the guessing limits.
 * Every table is prefixed `account_`; creating them is idempotent, so opening runs it every time.
 */
import type { DatabaseSync } from "node:sqlite";

/** The purposes a challenge can be bound to; a challenge made for one is refused by every other. */
export const CHALLENGE_PURPOSES = ["create", "create-finish", "signin", "stepup", "passkey-add", "pair"] as const;

const purposes = CHALLENGE_PURPOSES.map((p) => `'${p}'`).join(", ");

const DDL = `
CREATE TABLE IF NOT EXISTS account_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS account (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  state TEXT NOT NULL CHECK (state IN ('pending', 'ready')),
  first_name TEXT NOT NULL,
  user_handle BLOB NOT NULL,
  did TEXT,
  tenant TEXT,
  created_at INTEGER NOT NULL,
  sign_in_required INTEGER NOT NULL DEFAULT 1 CHECK (sign_in_required IN (0, 1)),
  session_days INTEGER NOT NULL DEFAULT 30,
  idle_days INTEGER NOT NULL DEFAULT 7,
  time_zone TEXT
) STRICT;

CREATE TABLE IF NOT EXISTS account_passkeys (
  id TEXT PRIMARY KEY,
  public_key BLOB NOT NULL,
  counter INTEGER NOT NULL,
  transports TEXT NOT NULL,
  label TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
) STRICT;

CREATE TABLE IF NOT EXISTS account_challenges (
  challenge TEXT PRIMARY KEY,
  purpose TEXT NOT NULL CHECK (purpose IN (${purposes})),
  session_id TEXT,
  data TEXT,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS account_challenges_expiry ON account_challenges (expires_at);

CREATE TABLE IF NOT EXISTS account_sessions (
  id TEXT PRIMARY KEY,
  token_hash BLOB NOT NULL UNIQUE,
  scope TEXT NOT NULL CHECK (scope IN ('full', 'recovery')),
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  user_agent TEXT NOT NULL,
  stepped_up_until INTEGER NOT NULL DEFAULT 0,
  ended_at INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS account_sessions_recent ON account_sessions (last_seen_at);

CREATE TABLE IF NOT EXISTS account_recovery_codes (
  code_hash BLOB PRIMARY KEY,
  created_at INTEGER NOT NULL,
  used_at INTEGER
) STRICT;

CREATE TABLE IF NOT EXISTS account_pairing_codes (
  code_hash BLOB PRIMARY KEY,
  session_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
) STRICT;

CREATE TABLE IF NOT EXISTS account_attempts (
  ceremony TEXT PRIMARY KEY,
  failures TEXT NOT NULL,
  locked_until INTEGER NOT NULL
) STRICT;
`;

/** Creates the account tables that are missing; safe to run on every open. */
export function ensureAccountTables(db: DatabaseSync): void {
  db.exec(DDL);
  // An account made before the personal tenant was recorded gains its column (null until set).
  const columns = db.prepare("SELECT name FROM pragma_table_info('account')").all() as { name: string }[];
  if (!columns.some((c) => c.name === "tenant")) db.exec("ALTER TABLE account ADD COLUMN tenant TEXT");
  // And the person's time zone (null: the machine's).
  if (!columns.some((c) => c.name === "time_zone")) db.exec("ALTER TABLE account ADD COLUMN time_zone TEXT");
  // A session's last step-up keeps its passkey assertion: the evidence an approval records.
  const sessionColumns = db.prepare("SELECT name FROM pragma_table_info('account_sessions')").all() as { name: string }[];
  if (!sessionColumns.some((c) => c.name === "step_up_evidence")) db.exec("ALTER TABLE account_sessions ADD COLUMN step_up_evidence TEXT");
}
