/**
 * @module The account ceremonies bound to one node: its store, its origin (the relying party is the
 * origin's host name), a clock and a random source. Each answers a `Result` whose error carries a
 * kebab-case code and its HTTP status, so an `/api/account` route only moves JSON and cookies.
 */
import { type Clock, systemClock } from "../../../../shared/clock.ts";
import type { AccountContext } from "./account-context.ts";
import type { AccountStore, SessionRecord } from "./account-store.ts";
import { type AttemptPolicy, defaultAttemptPolicy } from "./attempt-limit.ts";
import { type RandomBytes, systemRandom } from "./codes.ts";
import { createBegin, createFinish, createRegister, type SetupPlan, setupCode } from "./create.ts";
import { pairBegin, pairFinish, pairIssue } from "./pairing.ts";
import { passkeyAddBegin, passkeyAddFinish, passkeyList, passkeyRemove } from "./passkeys.ts";
import { recoveryRegenerate, recoveryStatus, recoveryUse } from "./recovery.ts";
import { accountStatus, endSession, listSessions, settings, signOut, updateSettings } from "./session-admin.ts";
import { checkSession } from "./sessions.ts";
import { signInOffSession } from "./sign-in-off.ts";
import { signInBegin, signInFinish, stepUpBegin, stepUpFinish } from "./sign-in.ts";
import { relyingParty } from "./webauthn.ts";

export type { AccountError, AccountErrorCode } from "./account-errors.ts";
export type { NewSession, Outcome } from "./account-context.ts";
export type { CreateFinished, SetupMade, SetupPlan } from "./create.ts";

/** What binds the ceremonies to a node. */
export interface AccountOptions {
  readonly store: AccountStore;
  /** The node's origin (`http://localhost:8787`, `https://home.example.org`). */
  readonly origin: string;
  readonly clock?: Clock;
  readonly random?: RandomBytes;
  /** The relying party's name shown by the browser; `Charter` by default. */
  readonly rpName?: string;
  readonly attemptPolicy?: AttemptPolicy;
  /** Whether the node listens on loopback only (sign-in may be off there); false by default. */
  readonly loopback?: boolean;
}

/** Every ceremony of the account, bound to one node. */
export function accountCeremonies(options: AccountOptions) {
  const ctx: AccountContext = {
    store: options.store,
    rp: relyingParty(options.origin, options.rpName),
    clock: options.clock ?? systemClock,
    random: options.random ?? systemRandom,
    attemptPolicy: options.attemptPolicy ?? defaultAttemptPolicy,
    loopback: options.loopback ?? false,
  };
  return {
    context: ctx,
    /** The set-up code to print at start (null once set up). */
    setupCode: () => setupCode(ctx),
    /** The session a cookie's token belongs to now; with sign-in off, the one standing for every caller; else null. */
    session: (token: string | null | undefined) => checkSession(ctx.store, token, ctx.clock.now()) ?? signInOffSession(ctx),
    status: (session: SessionRecord | null) => accountStatus(ctx, session),
    createBegin: (input: { firstName: unknown; setupCode: unknown }) => createBegin(ctx, input),
    createRegister: (input: { response: unknown }) => createRegister(ctx, input),
    createFinish: (input: { ticket: unknown }, userAgent: string, setUp: Parameters<typeof createFinish>[3]) => createFinish(ctx, input, userAgent, setUp),
    signInBegin: () => signInBegin(ctx),
    signInFinish: (input: { response: unknown }, userAgent: string) => signInFinish(ctx, input, userAgent),
    signOut: (session: SessionRecord) => signOut(ctx, session),
    stepUpBegin: (session: SessionRecord) => stepUpBegin(ctx, session),
    stepUpFinish: (session: SessionRecord, input: { response: unknown }) => stepUpFinish(ctx, session, input),
    sessions: (current: SessionRecord) => listSessions(ctx, current),
    endSession: (current: SessionRecord, id: string) => endSession(ctx, current, id),
    passkeys: () => passkeyList(ctx),
    passkeyAddBegin: (session: SessionRecord) => passkeyAddBegin(ctx, session),
    passkeyAddFinish: (session: SessionRecord, input: { response: unknown; label?: unknown }) => passkeyAddFinish(ctx, session, input),
    passkeyRemove: (session: SessionRecord, id: string) => passkeyRemove(ctx, session, id),
    settings: () => settings(ctx),
    updateSettings: (session: SessionRecord, input: unknown) => updateSettings(ctx, session, input),
    recoveryStatus: () => recoveryStatus(ctx),
    recoveryRegenerate: (session: SessionRecord) => recoveryRegenerate(ctx, session),
    recoveryUse: (input: { code: unknown }, userAgent: string) => recoveryUse(ctx, input, userAgent),
    pairIssue: (session: SessionRecord) => pairIssue(ctx, session),
    pairBegin: (input: { code: unknown }) => pairBegin(ctx, input),
    pairFinish: (input: { response: unknown; label?: unknown }, userAgent: string) => pairFinish(ctx, input, userAgent),
  };
}

/** The bound ceremonies. */
export type AccountCeremonies = ReturnType<typeof accountCeremonies>;

/** Set-up's callback: makes the person's identity and personal tenant for `plan`. */
export type SetUp = (plan: SetupPlan) => ReturnType<Parameters<typeof createFinish>[3]>;
