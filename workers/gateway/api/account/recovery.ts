/**
 * @module Recovery codes: ten, shown once, kept only as hashes, each good for one use. Using one
 * signs in once, for a short while and only to add a passkey — the way back for a person who lost
 * every passkey. A code has 80 bits, so a fast hash is enough; wrong codes still count towards the
 * guessing limit.
 */
import { fail, ok } from "../../../../shared/result.ts";
import { type AccountContext, admitGuess, type NewSession, newSession, noteWrongGuess, type Outcome, requireStepUp } from "./account-context.ts";
import { accountError } from "./account-errors.ts";
import type { SessionRecord } from "./account-store.ts";
import { codeHash, newCode, normalizeCode } from "./codes.ts";

/** How many codes a set holds. */
export const RECOVERY_CODE_COUNT = 10;
/** A code's length in characters (`XXXX-XXXX-XXXX-XXXX`, 80 bits). */
export const RECOVERY_CODE_LENGTH = 16;

/** Makes a new set of codes, replacing the old one; answers them (the only time they are seen). */
export function issueRecoveryCodes(ctx: AccountContext): string[] {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => newCode(ctx.random, RECOVERY_CODE_LENGTH));
  ctx.store.replaceRecoveryCodes(codes.map(codeHash), ctx.clock.now());
  return codes;
}

/** How many codes are left and when the set was made. */
export function recoveryStatus(ctx: AccountContext): { codesLeft: number; createdAt: number | null } {
  return ctx.store.recoveryStatus();
}

/** A new set of codes (step-up): the old ones stop working. */
export function recoveryRegenerate(ctx: AccountContext, session: SessionRecord): Outcome<{ codes: string[] }> {
  const allowed = requireStepUp(ctx, session);
  if (!allowed.ok) return allowed;
  return ok({ codes: issueRecoveryCodes(ctx) });
}

/** Uses a code: a one-time sign-in that may only add a passkey. */
export function recoveryUse(ctx: AccountContext, input: { code: unknown }, userAgent: string): Outcome<NewSession> {
  if (ctx.store.account()?.ready !== true) return fail(accountError("not-set-up", "this node has no account yet"));
  const admitted = admitGuess(ctx, "recovery");
  if (!admitted.ok) return admitted;
  const code = normalizeCode(input.code, RECOVERY_CODE_LENGTH);
  if (code === null || !ctx.store.useRecoveryCode(codeHash(code), ctx.clock.now())) {
    noteWrongGuess(ctx, "recovery");
    return fail(accountError("bad-recovery-code", "this recovery code is unknown or was already used"));
  }
  return ok(newSession(ctx, "recovery", userAgent));
}
