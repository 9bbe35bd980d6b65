/**
 * @module Branches: side conversations opened from a message, merged back as a summary; records of
 * `std.conversation` in the personal tenant:
 *
 * ```
 * GET  /api/branches?status=open|merging|merged|closed|all&after=&limit=
 *                                      → {items: [{id, parent, from, title, status, createdAt, mergeTurn, summary, mergedAt, closedAt}], next}
 * POST /api/branches {from, title?}    → 201 {id, parent, from, title, status: "open", createdAt, …, receipt, jws}
 * GET  /api/branches/{id}              → the branch
 * POST /api/branches/{id}/merge        → 202 {branch, turn}: a turn summarises the branch into its parent
 * POST /api/branches/{id}/close        → 200 the branch, closed without merging
 * ```
 *
 * A branch's id is a conversation: `POST /api/messages {text, conversation: id}` speaks in it while it
 * is open, `GET /api/messages?conversation=id` lists it. `from` is any message of a conversation
 * (`404` when there is none); the branch's parent is that message's conversation. Merging or closing
 * a branch that is not open (merging, merged, closed) is `409 branch-not-open`; merging one with no
 * messages `409 branch-empty`. What a stop left of a merge is finished by the listing and by a merge
 * (assistant-host/branch-merge.ts).
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { finishMerges, type StartMergeDeps, startMerge } from "../assistant-host/branch-merge.ts";
import { BRANCH_STATUS_VALUES, type BranchStatus, branchId, branchView, notOpen, readBranch } from "../assistant-host/branches.ts";
import { CONVERSATION, findMessage } from "../assistant-host/conversation.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import { signedWrite } from "../personal/signed-write.ts";
import { jsonBody } from "../request-body.ts";

export type BranchRouteDeps = StartMergeDeps;

/** The most characters of a branch's title, and of one made from the message it starts from. */
const TITLE_CHARS = 200;
const MADE_TITLE_CHARS = 80;

/** Mounts the branches routes. */
export function mountBranchRoutes(api: Hono<ApiEnv>, deps: BranchRouteDeps): void {
  const { reader, writer } = deps;

  api.get("/api/branches", async (c) => {
    sessionOf(c);
    const status = statusParameter(c.req.query("status"));
    const page = pageRequest(c);
    // A merge a stop left between its turn's end and its summary is finished before it is shown.
    await finishMerges(deps);
    const { rows } = reader.query(undefined, CONVERSATION, "Branches", {
      status: status === "all" ? BRANCH_STATUS_VALUES.open : BRANCH_STATUS_VALUES[status],
      all: status === "all",
      after: page.after ?? "",
      limit: page.limit + 1,
    });
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: null, limit: page.limit });
    return c.json({ items: items.map((row) => branchView(String(row.id), row)), next });
  });

  api.post("/api/branches", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["from", "title"]);
    if (typeof body.from !== "string" || !/^[A-Za-z0-9._:-]{1,128}$/.test(body.from)) throw badField("from", "from is the id of the message the branch starts from");
    if (body.title !== undefined && (typeof body.title !== "string" || body.title.length > TITLE_CHARS)) throw badField("title", `title is a string of at most ${TITLE_CHARS} characters`);
    const from = findMessage(reader, body.from);
    if (from === null) throw new HttpProblem(problem(404, "not-found", `no message '${body.from}'`));
    const title = typeof body.title === "string" && body.title.trim() !== "" ? body.title.trim() : madeTitle(from.text);
    const id = branchId(deps.now());
    const signed = await signedWrite(writer, { namespace: CONVERSATION, action: "OpenBranch", subject: id, args: { parent: from.conversation, from_message: from.id, title } });
    return c.json({ ...branchView(id, signed.receipt.state ?? {}), receipt: signed.receipt, jws: signed.jws }, 201);
  });

  api.get("/api/branches/:id", (c) => {
    sessionOf(c);
    return c.json(readBranch(reader, c.req.param("id")));
  });

  api.post("/api/branches/:id/merge", async (c) => {
    sessionOf(c);
    await jsonBody(c, []);
    return c.json(await startMerge(deps, c.req.param("id")), 202);
  });

  api.post("/api/branches/:id/close", async (c) => {
    sessionOf(c);
    await jsonBody(c, []);
    const branch = readBranch(reader, c.req.param("id"));
    if (branch.status !== "open") throw notOpen(branch);
    const signed = await signedWrite(writer, { namespace: CONVERSATION, action: "Close", subject: branch.id, args: {} });
    return c.json({ ...branchView(branch.id, signed.receipt.state ?? {}), receipt: signed.receipt, jws: signed.jws });
  });
}

/** A title made from the first line of the message a branch starts from. */
function madeTitle(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length <= MADE_TITLE_CHARS ? line : `${line.slice(0, MADE_TITLE_CHARS - 1)}…`;
}

function statusParameter(value: string | undefined): BranchStatus | "all" {
  if (value === undefined || value === "" || value === "all") return "all";
  if (Object.hasOwn(BRANCH_STATUS_VALUES, value)) return value as BranchStatus;
  const detail = "status is one of open, merging, merged, closed, all";
  throw new HttpProblem(problem(400, "bad-parameters", detail, [{ pointer: "?status", detail }]));
}

function badField(field: string, detail: string): HttpProblem {
  return new HttpProblem(problem(400, "malformed-body", detail, [{ pointer: `#/${field}`, detail }]));
}
