/**
 * @module An AG-UI run's request (`RunAgentInput`), checked before anything streams: a JSON object
 * of its known fields within the JSON limits (request-body.ts), then AG-UI's own schema, then the
 * node's bounds. What does not fit is a `400` problem naming each field (`#/messages/3/role`). A
 * new run says the text of the last `user` message; a resume carries `resume` entries instead
 * (their payloads are read later, against the approvals they answer: a payload that does not fit
 * its interrupt is the run's `RUN_ERROR`, as AG-UI asks). Tools, context, state and forwarded
 * props are accepted and not used: the model is offered the node's own tools.
 */
import { contentToText, type ResumeEntry } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import type { Context } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { jsonBody } from "../request-body.ts";

/** The fields of `RunAgentInput`. */
const FIELDS = ["threadId", "runId", "parentRunId", "protocolVersion", "state", "messages", "tools", "context", "forwardedProps", "resume"] as const;
/** The longest thread or run id. */
const MAX_ID = 128;
/** The most resume entries one run answers. */
const MAX_RESUME = 16;
/** The most field problems named in one answer. */
const MAX_ERRORS = 20;

/** A checked run request. */
export interface RunRequest {
  readonly threadId: string;
  readonly runId: string;
  /** A new run: the text of the last `user` message; a resume: null. */
  readonly text: string | null;
  /** The resume entries (empty for a new run). */
  readonly resume: readonly ResumeEntry[];
}

/** Reads and checks the body of an AG-UI run; throws the `400` problem. */
export async function runRequestOf(c: Context): Promise<RunRequest> {
  const body = await jsonBody(c, FIELDS);
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const errors = parsed.error.issues.slice(0, MAX_ERRORS).map((issue) => ({ pointer: `#/${issue.path.map((p) => String(p).replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`, detail: issue.message }));
    throw new HttpProblem(problem(400, "malformed-body", `not an AG-UI RunAgentInput: ${errors.map((e) => `${e.pointer} ${e.detail}`).join("; ")}`, errors));
  }
  const input = parsed.data;
  const bad = (pointer: string, detail: string) => new HttpProblem(problem(400, "malformed-body", detail, [{ pointer, detail }]));
  if (input.threadId === "" || input.threadId.length > MAX_ID) throw bad("#/threadId", `threadId is 1 to ${MAX_ID} characters`);
  if (input.runId === "" || input.runId.length > MAX_ID) throw bad("#/runId", `runId is 1 to ${MAX_ID} characters`);
  const resume = input.resume ?? [];
  if (resume.length > MAX_RESUME) throw bad("#/resume", `at most ${MAX_RESUME} resume entries`);
  if (resume.length > 0) return { threadId: input.threadId, runId: input.runId, text: null, resume };
  const last = input.messages.findLastIndex((m) => m.role === "user");
  const said = last === -1 ? "" : contentToText((input.messages[last] as { content: Parameters<typeof contentToText>[0] }).content);
  if (said.trim() === "") throw bad(last === -1 ? "#/messages" : `#/messages/${last}/content`, "a new run says the text of its last user message: there is none");
  return { threadId: input.threadId, runId: input.runId, text: said, resume: [] };
}
