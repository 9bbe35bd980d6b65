/**
 * @module The assistant's asks (choice wizards), records of `std.conversation` in the personal tenant:
 *
 * ```
 * GET  /api/asks?status=open|all&after=&limit= → {items: [{id, turn, question, options: [{label, description}], multiple, allowOther,
 *                                                status, expiresAt, answer: {choices, labels, text} | null, answeredAt}], next}
 * GET  /api/asks/{id}                          → the ask
 * POST /api/asks/{id}/answer {choices: [index…], text?} → 200 the ask, answered; its turn runs on
 * ```
 *
 * An ask is made by the assistant's `ask_person` tool, and its turn waits for the answer. Answering
 * is assistant-host/answer-ask.ts: a choice out of range, several for an ask that takes one, a text
 * where the ask takes only its options, or neither choice nor text is `400` naming the field and
 * writes nothing; an ask answered, expired or withdrawn (its turn cancelled) is `409 ask-closed`.
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { answerAsk } from "../assistant-host/answer-ask.ts";
import { askView, readAsk } from "../assistant-host/asks.ts";
import { CONVERSATION } from "../assistant-host/conversation.ts";
import type { TurnHost } from "../assistant-host/turn-host.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { jsonBody } from "../request-body.ts";

export interface AskRouteDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly now: () => number;
  readonly turns: Pick<TurnHost, "enqueue" | "askFrame">;
}

/** Mounts the asks routes. */
export function mountAskRoutes(api: Hono<ApiEnv>, deps: AskRouteDeps): void {
  const { reader } = deps;
  const answerDeps = { ...deps, onAsk: deps.turns.askFrame.bind(deps.turns) };

  api.get("/api/asks", (c) => {
    sessionOf(c);
    const status = statusParameter(c.req.query("status"));
    const page = pageRequest(c);
    const params = { after: page.after ?? "", limit: page.limit + 1 };
    // One row more than the page tells whether another page follows.
    const { rows } = reader.query(undefined, CONVERSATION, status === "open" ? "Open" : "Asks", params);
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: null, limit: page.limit });
    const now = deps.now();
    const views = items.map((row) => askView(String(row.id), row, now));
    // Waiting means waiting now: one past its time is expired, even before that is recorded.
    return c.json({ items: status === "open" ? views.filter((a) => a.status === "open") : views, next });
  });

  api.get("/api/asks/:id", (c) => {
    sessionOf(c);
    return c.json(readAsk(reader, c.req.param("id"), deps.now()));
  });

  api.post("/api/asks/:id/answer", async (c) => {
    const session = sessionOf(c);
    const body = await jsonBody(c, ["choices", "text"]);
    return c.json(await answerAsk(answerDeps, c.req.param("id"), body, session.id));
  });
}

function statusParameter(value: string | undefined): "open" | "all" {
  if (value === undefined || value === "" || value === "open") return "open";
  if (value === "all") return "all";
  const detail = "status is open or all";
  throw new HttpProblem(problem(400, "bad-parameters", detail, [{ pointer: "?status", detail }]));
}
