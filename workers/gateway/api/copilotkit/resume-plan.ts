/**
 * @module What an AG-UI resume entry asks of the approval it answers, decided without touching
 * anything: the answer it carries (`resolved` with `{approved, editedArgs?}`, or `cancelled`,
 * which denies), and whether that means deciding now, nothing (the approval was decided the same
 * way already: a resume is safe to replay), or a refusal (expired, decided the other way). The
 * caller turns a refusal into the run's `RUN_ERROR`.
 */
import type { ResumeEntry } from "@ag-ui/core";
import type { ApprovalView } from "../approvals/approval-records.ts";
import type { ToolCommand } from "../assistant-host/tool-calls.ts";

/** What a resume entry answers: yes or no, and for a yes to an action, its arguments as edited (all of them) or null. */
export interface Answer {
  readonly approve: boolean;
  readonly edited: Record<string, unknown> | null;
}

/** A refusal of a resume entry: a code for `RUN_ERROR` and a sentence for the person. */
export interface Refusal {
  readonly code: "interrupt-malformed" | "interrupt-expired" | "interrupt-decided";
  readonly message: string;
}

/** What to do: decide, or nothing (decided so already), or refuse. */
export type Plan = { readonly kind: "decide" } | { readonly kind: "decided" } | ({ readonly kind: "refused" } & Refusal);

/**
 * The answer `entry` carries for the tool call `command`, or why it carries none the node can read.
 * `editedArgs` are read as `POST /api/approvals/{id}` reads them: the arguments sent replace the
 * proposed ones, the others stay as proposed. A client sending the call's arguments in full (AG-UI's
 * approve-with-edits) gets exactly those; the `subject` the call acts on is not an argument to edit.
 */
export function answerOf(entry: ResumeEntry, command: Pick<ToolCommand, "kind" | "args" | "subject">): { ok: true; answer: Answer } | { ok: false; refusal: Refusal } {
  const malformed = (message: string) => ({ ok: false as const, refusal: { code: "interrupt-malformed" as const, message: `resume of ${clip(entry.interruptId)}: ${message}` } });
  if (entry.status === "cancelled") return { ok: true, answer: { approve: false, edited: null } };
  const payload: unknown = entry.payload;
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return malformed("a resolved tool call's payload is {approved: true | false, editedArgs?}");
  const { approved, approve, editedArgs } = payload as { approved?: unknown; approve?: unknown; editedArgs?: unknown };
  // AG-UI spells it `approved`; `approve` (as /api/approvals takes it) is read too, and the two must agree.
  const said = approved ?? approve;
  if (typeof said !== "boolean" || (approved !== undefined && approve !== undefined && approved !== approve)) return malformed("payload.approved is true or false");
  if (editedArgs === undefined || editedArgs === null) return { ok: true, answer: { approve: said, edited: null } };
  if (!said) return malformed("payload.editedArgs goes with approved: true");
  if (command.kind !== "action") return malformed("only an action takes edited arguments");
  if (typeof editedArgs !== "object" || Array.isArray(editedArgs)) return malformed("payload.editedArgs is an object: the action's arguments");
  const { subject, ...edited } = editedArgs as Record<string, unknown>;
  if (subject !== undefined && subject !== null && subject !== command.subject) return malformed("the record a call acts on (its subject) is not edited: deny it and ask again");
  return { ok: true, answer: { approve: true, edited: { ...command.args, ...edited } } };
}

/** What answering `approval` with `approve` at `now` means; see the module comment. */
export function planResume(approval: Pick<ApprovalView, "id" | "status" | "expiresAt">, approve: boolean, now: number): Plan {
  const id = clip(approval.id);
  switch (approval.status) {
    case "waiting":
      if (approval.expiresAt !== null && Date.parse(approval.expiresAt) <= now) return { kind: "refused", code: "interrupt-expired", message: `interrupt ${id} expired at ${approval.expiresAt}: nothing was done` };
      return { kind: "decide" };
    case "expired":
      return { kind: "refused", code: "interrupt-expired", message: `interrupt ${id} expired${approval.expiresAt === null ? "" : ` at ${approval.expiresAt}`}: nothing was done` };
    case "approved":
      return approve ? { kind: "decided" } : { kind: "refused", code: "interrupt-decided", message: `interrupt ${id} was approved already: too late to deny it` };
    case "denied":
      return approve ? { kind: "refused", code: "interrupt-decided", message: `interrupt ${id} was denied already: too late to approve it` } : { kind: "decided" };
  }
}

function clip(id: string): string {
  return JSON.stringify(id.slice(0, 128));
}
