/**
 * @module The records the account store keeps and answers — the account and its settings, passkeys,
 * challenges, sessions — and the reading of each from its table row.
 */
import { machineTimeZone } from "../time-zone.ts";
import type { CHALLENGE_PURPOSES } from "./account-tables.ts";

/** What a challenge was made for. */
export type ChallengePurpose = (typeof CHALLENGE_PURPOSES)[number];

/**
 * How sign-in behaves — whether it is needed at all, a session's lifetime and idle limit in days —
 * and the person's time zone (an IANA name: the local days of tasks and the agenda).
 */
export interface AccountSettings {
  readonly signInRequired: boolean;
  readonly sessionDays: number;
  readonly idleDays: number;
  /** The zone the person chose, else the machine's (followed as it changes, until one is chosen). */
  readonly timeZone: string;
}

/** The sign-in settings of a new account (the table's defaults say the same); its time zone is the machine's. */
export const defaultSettings: Omit<AccountSettings, "timeZone"> = { signInRequired: true, sessionDays: 30, idleDays: 7 };

/** The node's one account; `ready` once set-up finished (before that it is a set-up under way). */
export interface AccountRecord {
  readonly ready: boolean;
  readonly firstName: string;
  /** The WebAuthn user handle every passkey of the account is made for. */
  readonly userHandle: Uint8Array;
  /** The person's did:key, once set-up has made it. */
  readonly did: string | null;
  /** The personal tenant's handle (owned by `did`), once set-up has made it. */
  readonly tenant: string | null;
  readonly createdAt: number;
  readonly settings: AccountSettings;
}

/** A registered passkey: its credential id (base64url), COSE public key and signature counter. */
export interface PasskeyRecord {
  readonly id: string;
  readonly publicKey: Uint8Array;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly label: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

/** A single-use challenge, bound to a purpose and optionally to the session that asked for it. */
export interface ChallengeRecord {
  readonly challenge: string;
  readonly purpose: ChallengePurpose;
  readonly sessionId: string | null;
  /** The ceremony's own notes (JSON), such as the first name given at set-up. */
  readonly data: string | null;
  readonly expiresAt: number;
}

/** `full` is a sign-in; `recovery` is the one-time sign-in a recovery code gives, to add a passkey. */
export type SessionScope = "full" | "recovery";

/** A session; its token is never stored, only the token's hash. */
export interface SessionRecord {
  readonly id: string;
  readonly scope: SessionScope;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly userAgent: string;
  /** Until when (ms) this session may do sensitive things; 0 when never stepped up. */
  readonly steppedUpUntil: number;
  /** The passkey assertion of its last step-up (JSON), or null when it never stepped up. */
  readonly stepUpEvidence: string | null;
  readonly endedAt: number | null;
}

/** What `removePasskey` did. */
export type RemoveOutcome = "removed" | "last" | "missing";

/** What `usePairingCode` found. */
export type PairingOutcome = { readonly found: true; readonly sessionId: string } | { readonly found: false };

/** The ceremonies whose typed codes are limited against guessing. */
export type GuardedCeremony = "setup" | "recovery" | "pair";

/** A row of `account` as a record. */
export function accountOf(row: Record<string, unknown>): AccountRecord {
  return {
    ready: row.state === "ready",
    firstName: row.first_name as string,
    userHandle: row.user_handle as Uint8Array,
    did: (row.did as string | null) ?? null,
    tenant: (row.tenant as string | null) ?? null,
    createdAt: Number(row.created_at),
    settings: {
      signInRequired: row.sign_in_required === 1,
      sessionDays: Number(row.session_days),
      idleDays: Number(row.idle_days),
      timeZone: (row.time_zone as string | null | undefined) ?? machineTimeZone(),
    },
  };
}

/** A row of `account_passkeys` as a record. */
export function passkeyOf(row: Record<string, unknown>): PasskeyRecord {
  return {
    id: row.id as string,
    publicKey: row.public_key as Uint8Array,
    counter: Number(row.counter),
    transports: JSON.parse(row.transports as string) as string[],
    label: row.label as string,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at == null ? null : Number(row.last_used_at),
  };
}

/** A row of `account_sessions` as a record. */
export function sessionOf(row: Record<string, unknown>): SessionRecord {
  return {
    id: row.id as string,
    scope: row.scope as SessionScope,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    userAgent: row.user_agent as string,
    steppedUpUntil: Number(row.stepped_up_until),
    stepUpEvidence: typeof row.step_up_evidence === "string" ? row.step_up_evidence : null,
    endedAt: row.ended_at == null ? null : Number(row.ended_at),
  };
}
