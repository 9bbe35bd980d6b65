/**
 * @module AG-UI on `/copilotkit`: the assistant's conversation for apps built on AG-UI or
 * CopilotKit. Behind the same gate as `/api` (a session, the node's `Origin`, the body limit).
 *
 * ```
 * POST /copilotkit    RunAgentInput {threadId, runId, messages, tools?, context?, state?, forwardedProps?, resume?}
 * POST /copilotkit/*  the same agent (a CopilotKit client posting to /copilotkit/agent/<name>/run)
 *   → 200 text/event-stream: RUN_STARTED, STATE_SNAPSHOT, TEXT_MESSAGE_*, TOOL_CALL_*, MESSAGES_SNAPSHOT,
 *     then RUN_FINISHED (success, or an interrupt per approval or ask waited for) or RUN_ERROR
 * ```
 *
 * A body that is not a `RunAgentInput` is a `400` problem before anything streams; everything
 * after is events (copilotkit/agui-run.ts).
 */
import type { Context, Hono } from "hono";
import { sessionTokenFrom } from "../account/sessions.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { type AguiRunDeps, runAgui } from "../copilotkit/agui-run.ts";
import { EventStream } from "../copilotkit/event-stream.ts";
import { runRequestOf } from "../copilotkit/run-input.ts";

export type CopilotkitRouteDeps = AguiRunDeps;

/** Mounts `POST /copilotkit` and `POST /copilotkit/*`. */
export function mountCopilotkitRoutes(api: Hono<ApiEnv>, deps: CopilotkitRouteDeps): void {
  const run = async (c: Context<ApiEnv>) => {
    const session = sessionOf(c);
    const request = await runRequestOf(c);
    const out = new EventStream();
    void runAgui(deps, request, { session, token: sessionTokenFrom(c.req.header("cookie")) }, out);
    return new Response(out.readable, { status: 200, headers: { "content-type": out.contentType, "cache-control": "no-cache", "x-accel-buffering": "no" } });
  };
  api.post("/copilotkit", run);
  api.post("/copilotkit/*", run);
}
