/**
 * @module Refusal reasons: the one place their wording is decided, shared by the code generator
 * (which bakes them into each action's refusal table) and the reference interpreter, so both give
 * byte-identical receipts.
 */

/** The reasons a command is refused, as receipts carry them (a wire format: snake_case, never renamed). */
export type RefusalCode = "condition_failed" | "unauthorized" | "text_too_long" | "list_full" | "overflow" | "division_by_zero" | "program_failed" | "merge_conflict";

/**
 * Why a refused command was refused, as its receipt carries it (`wire.md`): the one definition,
 * used by the compiler's refusal tables, the interpreter, the engine, receipts, the console and the
 * CLI. `condition` and `line` accompany `condition_failed` (`line` also an assignment's failure);
 * `message` is for a person.
 */
export interface Reason {
  readonly code: RefusalCode;
  readonly condition: string | null;
  readonly line: number | null;
  readonly message: string;
}

/** The source line an evaluation belongs to: a `validate` condition or an `apply` assignment. */
export interface Site {
  /** The condition's text, or null inside `apply`. */
  readonly condition: string | null;
  /** The condition's or assignment's text, for messages. */
  readonly text: string;
  readonly line: number;
}

export const refusals = {
  conditionFailed(text: string, line: number): Reason {
    return { code: "condition_failed", condition: text, line, message: `condition does not hold: ${text}` };
  },
  unsetAuthorizer(field: string, line: number | null): Reason {
    return { code: "unauthorized", condition: null, line, message: `state.${field} is unset, so nobody may do this yet` };
  },
  wrongSigner(field: string, line: number | null): Reason {
    return { code: "unauthorized", condition: null, line, message: `only the identity in state.${field} may do this` };
  },
  argumentTooLong(param: string, len: number): Reason {
    return { code: "text_too_long", condition: null, line: null, message: `argument ${param} is longer than ${len} characters` };
  },
  argumentListFull(param: string, cap: number): Reason {
    return { code: "list_full", condition: null, line: null, message: `argument ${param} has more than ${cap} elements` };
  },
  textTooLong(site: Site, len: number): Reason {
    return { code: "text_too_long", condition: site.condition, line: site.line, message: `text longer than ${len} characters in ${site.text}` };
  },
  listFull(site: Site, cap: number): Reason {
    return { code: "list_full", condition: site.condition, line: site.line, message: `list would hold more than ${cap} elements in ${site.text}` };
  },
  overflow(site: Site): Reason {
    return { code: "overflow", condition: site.condition, line: site.line, message: `integer overflow in ${site.text}` };
  },
  /**
   * The program could not run the command at all (it threw rather than deciding). Recorded like any
   * refusal, so every voter applying the same log entry records the same thing instead of failing
   * on it again and again; the message names only the error's kind, which is the same everywhere.
   */
  programFailed(kind: string): Reason {
    return { code: "program_failed", condition: null, line: null, message: `the contract program could not run this command (${kind})` };
  },
  /**
   * A command made apart on another device that no longer holds once the devices' histories are
   * merged: `why` is the refusal the merged state gives it (or a concurrent change, for `merge reject`).
   */
  mergeConflict(why: Reason | null, concurrent: string | null): Reason {
    const message = concurrent !== null ? `the record was changed on another device meanwhile (command ${concurrent.slice(0, 12)}); kept as a conflict to settle` : `after merging with another device: ${why?.message ?? "no longer allowed"}`;
    return { code: "merge_conflict", condition: why?.condition ?? null, line: why?.line ?? null, message };
  },
  divisionByZero(site: Site): Reason {
    return { code: "division_by_zero", condition: site.condition, line: site.line, message: `division by zero in ${site.text}` };
  },
};
