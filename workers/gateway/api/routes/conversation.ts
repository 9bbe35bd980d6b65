/**
 * @module The conversation with the assistant, records of `std.conversation` in the personal tenant:
 *
 * ```
 * GET  /api/messages?conversation=main&after=&limit=   → {items: [{id, role, status, conversation, text, attachments, turn, at, reactions}], next}
 * POST /api/messages {text, attachments?, conversation?} → 202 {id, turn}; the reply streams on /api/events
 * POST /api/messages/{id}/reactions {reaction}          → 200 the message, {receipt, jws}
 * POST /api/cancel {turn?}                              → 200 {cancelled: [turn ids]}
 * GET  /api/turns?after=&limit=                         → {items: [turn…], next}
 * GET  /api/turns/{id}                                  → the turn, {steps: [...], approvals: [...]}
 * POST /api/turns/{id}/retry                            → 202 the turn (a failed turn runs again)
 * GET  /api/activity?turn=&after=&limit=                → {items: [the assistant's proposals, decisions and results], next}
 * ```
 *
 * Saying something is two commands signed as the person (`Say`, then the turn's `Queue`), then a
 * `turn` journal entry the assistant worker runs; with no model configured nothing is written
 * (`409 no-model`), nor in a conversation other than `main` or an open branch (`404`; a branch
 * merged or closed: `409 branch-not-open`). Cancelling stops the running turn (the assistant keeps
 * the text it had, marked partial) and ends a queued or waiting one at once, withdrawing the asks
 * it waited for.
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { APPROVALS, approvalView } from "../approvals/approval-records.ts";
import { CONVERSATION, findMessage, MAIN, messageView, readTurn, stepsOf, turnView } from "../assistant-host/conversation.ts";
import { TOOL_APPROVAL, toolCommandOf } from "../assistant-host/tool-calls.ts";
import type { TurnHost } from "../assistant-host/turn-host.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import { findFile } from "../library/library-records.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { signedWrite } from "../personal/signed-write.ts";
import { say, saidIds } from "../assistant-host/say.ts";
import { jsonBody } from "../request-body.ts";

export interface ConversationRouteDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly now: () => number;
  readonly turns: TurnHost;
  /** Whether a model is configured for conversation. */
  readonly modelConfigured: () => boolean;
}

/** At most this many attachments per message (the contract's list holds ten). */
const MAX_ATTACHMENTS = 10;

export function mountConversationRoutes(api: Hono<ApiEnv>, deps: ConversationRouteDeps): void {
  const { reader, writer } = deps;

  api.get("/api/messages", (c) => {
    sessionOf(c);
    const conversation = conversationOf(c.req.query("conversation"), "?conversation");
    const page = pageRequest(c);
    const { rows } = reader.query(undefined, CONVERSATION, "Messages", { conversation, after: page.after ?? "", limit: page.limit + 1 });
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: null, limit: page.limit });
    return c.json({ items: items.map((row) => messageView(String(row.id), row)), next });
  });

  api.post("/api/messages", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["text", "attachments", "conversation"]);
    const text = body.text;
    if (typeof text !== "string" || text.trim() === "") throw badField("text", "text is what to say: a string that is not empty");
    const attachments = attachmentsOf(body.attachments);
    // Attachments are files of the person's library, kept now.
    const missing = attachments.flatMap((file, i) => (findFile(reader, file) === null ? [{ pointer: `#/attachments/${i}`, detail: `no library file '${file.slice(0, 128)}'` }] : []));
    if (missing.length > 0) throw new HttpProblem(problem(404, "not-found", missing.map((m) => m.detail).join("; "), missing));
    const conversation = conversationOf(body.conversation, "#/conversation");
    const { id, turn } = saidIds(deps.now());
    await say(deps, { id, turn, conversation, text, attachments });
    return c.json({ id, turn }, 202);
  });

  api.post("/api/messages/:id/reactions", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["reaction"]);
    if (typeof body.reaction !== "string" || body.reaction === "") throw badField("reaction", "reaction is a short text (an emoji, a word)");
    const id = c.req.param("id");
    if (findMessage(reader, id) === null) throw new HttpProblem(problem(404, "not-found", `no message '${id.slice(0, 128)}'`));
    const signed = await signedWrite(writer, { namespace: CONVERSATION, action: "React", subject: id, args: { reaction: body.reaction } });
    return c.json({ ...messageView(id, signed.receipt.state ?? {}), receipt: signed.receipt, jws: signed.jws });
  });

  api.post("/api/cancel", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["turn"]);
    if (body.turn !== undefined && typeof body.turn !== "string") throw badField("turn", "turn is the id of the turn to stop");
    const active = reader.query(undefined, CONVERSATION, "Active", { limit: 200 }).rows.map((row) => turnView(String(row.id), row));
    const chosen = body.turn === undefined ? active : active.filter((t) => t.id === body.turn);
    if (body.turn !== undefined && chosen.length === 0) {
      readTurn(reader, body.turn);
      throw new HttpProblem(problem(409, "turn-over", `turn '${body.turn.slice(0, 128)}' has ended already`));
    }
    const cancelled: string[] = [];
    for (const turn of chosen) {
      // A running turn is the assistant's to stop: it keeps and records the text it had.
      if (turn.status === "running" && deps.turns.cancel(turn.id)) {
        cancelled.push(turn.id);
        continue;
      }
      const answer = await writer.act({ namespace: CONVERSATION, action: "Cancel", subject: turn.id, args: { reply: "", steps: turn.steps, tokens_in: turn.tokensIn, tokens_out: turn.tokensOut } });
      if (answer.kind === "receipt" && answer.outcome === "accepted") {
        cancelled.push(turn.id);
        deps.turns.cancel(turn.id);
        deps.turns.turnFrame(turn.id, "cancelled");
        // Its open asks are withdrawn; a merge turn's branch is open again.
        await deps.turns.afterEnd(turn, "cancelled", "");
      }
    }
    return c.json({ cancelled });
  });

  api.get("/api/turns", (c) => {
    sessionOf(c);
    const page = pageRequest(c);
    const { rows } = reader.query(undefined, CONVERSATION, "Turns", { after: page.after ?? "", limit: page.limit + 1 });
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: null, limit: page.limit });
    return c.json({ items: items.map((row) => turnView(String(row.id), row)), next });
  });

  api.get("/api/turns/:id", (c) => {
    sessionOf(c);
    const turn = readTurn(reader, c.req.param("id"));
    const steps = stepsOf(reader, turn.id).map((s) => ({ n: s.n, ...s.body, tokensIn: s.tokensIn, tokensOut: s.tokensOut, ms: s.ms }));
    const approvals = reader.query(undefined, APPROVALS, "OfTurn", { turn: turn.id, limit: 200 }).rows.map((row) => activityOf(reader, String(row.id)));
    return c.json({ ...turn, steps, approvals });
  });

  api.post("/api/turns/:id/retry", async (c) => {
    sessionOf(c);
    const turn = readTurn(reader, c.req.param("id"));
    const signed = await signedWrite(writer, { namespace: CONVERSATION, action: "Retry", subject: turn.id, args: {} });
    // Announced before the hand-off: the turn may run, and finish, before enqueue returns.
    deps.turns.turnFrame(turn.id, "queued");
    await deps.turns.enqueue(turn.id, `${turn.id}:retry:${signed.receipt.seq}`);
    return c.json(turnView(turn.id, signed.receipt.state ?? {}), 202);
  });

  api.get("/api/activity", (c) => {
    sessionOf(c);
    const page = pageRequest(c);
    const turn = c.req.query("turn");
    const { rows } =
      turn === undefined || turn === ""
        ? reader.query(undefined, APPROVALS, "ByKind", { kind: TOOL_APPROVAL, after: page.after ?? "", limit: page.limit + 1 })
        : reader.query(undefined, APPROVALS, "OfTurn", { turn, limit: 200 });
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: turn === undefined || turn === "" ? null : page.after, limit: page.limit });
    return c.json({ items: items.map((row) => activityOf(reader, String(row.id))), next });
  });
}

/** One approval as the activity shows it: what was proposed (tool, arguments, the dry run), who decided, when, with which session, and what came of it. */
function activityOf(reader: PersonReader, id: string): Record<string, unknown> {
  // One read: the query rows lack the payload (the proposed command) and the edited arguments.
  const record = reader.record(undefined, APPROVALS, "Approval", id);
  if (record === null) throw new HttpProblem(problem(404, "not-found", `no approval '${id.slice(0, 128)}'`));
  const { payload, ...view } = approvalView(id, record.state, true);
  if (view.kind !== TOOL_APPROVAL) return view;
  const command = toolCommandOf({ id, payload: payload ?? "null" });
  const editedText = record.state.edited_args;
  const editedArgs = typeof editedText === "string" && editedText !== "" ? (JSON.parse(editedText) as unknown) : null;
  return { ...view, tool: command.tool, subject: command.subject, args: command.args, editedArgs, dryRun: command.dryRun };
}

function conversationOf(value: unknown, pointer: string): string {
  if (value === undefined || value === "") return MAIN;
  if (typeof value === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(value)) return value;
  const detail = "conversation is main or a branch's id";
  throw new HttpProblem(problem(400, pointer.startsWith("?") ? "bad-parameters" : "malformed-body", detail, [{ pointer, detail }]));
}

function attachmentsOf(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_ATTACHMENTS || !value.every((v) => typeof v === "string" && v !== "")) throw badField("attachments", `attachments is a list of at most ${MAX_ATTACHMENTS} library file ids`);
  return value as string[];
}

function badField(field: string, detail: string): HttpProblem {
  return new HttpProblem(problem(400, "malformed-body", detail, [{ pointer: `#/${field}`, detail }]));
}
