/**
 * @module What an AG-UI resume entry asks of the ask it answers, decided without touching
 * anything: `resolved` with `{choices: [option index…], text?}` is the person's answer, checked
 * against the ask as `POST /api/asks/{id}/answer` checks it; an ask answered so already needs
 * nothing more (a resume is safe to send again); one answered otherwise, expired or withdrawn is
 * refused. The caller turns a refusal into the run's `RUN_ERROR`.
 */
import type { ResumeEntry } from "@ag-ui/core";
import { type AskView, checkAnswer } from "../assistant-host/asks.ts";

/** What to do: answer (with the checked answer), nothing (answered so already), or refuse. */
export type AskPlan =
  | { readonly kind: "answer"; readonly choices: readonly number[]; readonly text: string }
  | { readonly kind: "answered" }
  | { readonly kind: "refused"; readonly code: "interrupt-malformed" | "interrupt-expired" | "interrupt-decided"; readonly message: string };

/** What answering `ask` with `entry` means; see the module comment. */
export function planAskResume(entry: ResumeEntry, ask: AskView): AskPlan {
  const id = JSON.stringify(ask.id.slice(0, 128));
  const malformed = (message: string): AskPlan => ({ kind: "refused", code: "interrupt-malformed", message: `resume of ${id}: ${message}` });
  if (entry.status !== "resolved") return malformed("an ask is answered with status resolved and a payload {choices: [option index…], text?}");
  const payload: unknown = entry.payload;
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return malformed("the payload is {choices: [option index…], text?}");
  const unknown = Object.keys(payload).filter((k) => k !== "choices" && k !== "text");
  if (unknown.length > 0) return malformed(`payload.${unknown[0]?.slice(0, 64)} is not part of an answer: {choices, text?}`);
  const checked = checkAnswer(ask, payload as { choices?: unknown; text?: unknown });
  if (!checked.ok) return malformed(checked.errors.map((e) => `${e.pointer.replace(/^#\//, "payload.").replaceAll("/", ".")}: ${e.detail}`).join("; "));
  switch (ask.status) {
    case "open":
      return { kind: "answer", choices: checked.choices, text: checked.text };
    case "answered": {
      const same = ask.answer !== null && ask.answer.text === checked.text && ask.answer.choices.length === checked.choices.length && ask.answer.choices.every((c, i) => c === checked.choices[i]);
      return same ? { kind: "answered" } : { kind: "refused", code: "interrupt-decided", message: `interrupt ${id} was answered already, otherwise` };
    }
    case "expired":
      return { kind: "refused", code: "interrupt-expired", message: `interrupt ${id} expired${ask.expiresAt === null ? "" : ` at ${ask.expiresAt}`}: it can no longer be answered` };
    case "cancelled":
      return { kind: "refused", code: "interrupt-decided", message: `interrupt ${id} was withdrawn: its turn was cancelled` };
  }
}
