/**
 * @module `POST /v1/{tenant}/{namespace}/actions/{Action}`: a signed command in, a signed receipt
 * out (wire.md). The gateway checks the JWS, its freshness and that it names this path; the engine
 * decides everything else. Input that is not a command gets a problem document and changes nothing.
 *
 * The route is served on node:http itself, ahead of the Hono app: the write path's busiest route
 * skips the web Request and Response that every Hono route costs (about 20 µs of the gateway's CPU
 * per command here). It keeps the app's rules: the body limit (413, discard-body.ts), the problem
 * documents, and the error mapper's 500 for anything unexpected.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseCommand, receiptJsonOf } from "../../../shared/identity/index.ts";
import { ChannelError } from "../../../shared/channel/messages.ts";
import { type Logger, requestLogger } from "../../../shared/log.ts";
import { HttpProblem, type Problem, problem } from "../../../shared/problem.ts";
import { internalProblem, logAnswer, sendProblem } from "../problem-response.ts";
import type { SignedCommandAnswer } from "../../../shared/protocol/engine.ts";
import type { EngineLink } from "../../../shared/worker/engine-link.ts";
import { discardBody } from "../discard-body.ts";
import { jwsFromBody } from "../signed-body.ts";

export interface CommandRouteDeps {
  readonly engine: EngineLink;
  readonly now: () => number;
}

export interface CommandListenerDeps extends CommandRouteDeps {
  /** The most bytes a request body may have (the app's body limit). */
  readonly bodyLimit: number;
  readonly log: Logger;
}

/** Sends a verified command to the engine; an engine that went away mid-request is a 503. The receipt comes back signed by the node. */
export async function submit(deps: CommandRouteDeps, jws: string, tenant: string, namespace: string, action: string, options: { readonly signedHere?: boolean } = {}): Promise<SignedCommandAnswer> {
  const verified = parseCommand(jws, { now: deps.now(), path: { tenant, namespace, action }, signedHere: options.signedHere === true });
  if (!verified.ok) return { kind: "problem", problem: verified.error };
  const { payload, signer, digest } = verified.value;
  try {
    return await deps.engine.request("command", { jws, digest, signer, payload });
  } catch (error) {
    if (error instanceof ChannelError) {
      return { kind: "problem", problem: problem(503, "engine-unavailable", "the engine is restarting; send the same command again (its idempotency key makes that safe)") };
    }
    throw error;
  }
}

/** The route's pattern, as the answers' log lines name it. */
const ROUTE = "/v1/:tenant/:namespace/actions/:action";

/** The route's path; a parameter is one segment, the query string is ignored (as Hono's router does). */
const COMMAND_PATH = /^\/v1\/([^/?]+)\/([^/?]+)\/actions\/([^/?]+)(?:\?.*)?$/;

/** A path parameter, percent-decoded; one that does not decode is taken as it is (as Hono does). */
function param(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The command route as a node:http listener: it answers a `POST` to the route's path and returns
 * true; any other request it leaves alone and returns false, for the Hono app to answer.
 */
export function commandListener(deps: CommandListenerDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const answers = requestLogger(deps.log);
  return function postCommand(req, res) {
    if (req.method !== "POST") return false;
    const path = COMMAND_PATH.exec(req.url ?? "");
    if (path === null) return false;
    serve({ ...deps, answers }, req, res, param(path[1] as string), param(path[2] as string), param(path[3] as string)).catch((error: unknown) => {
      deps.log.error("unhandled error", { method: "POST", route: ROUTE, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      if (!res.headersSent) answerProblem(answers, res, internalProblem());
      else res.destroy();
    });
    return true;
  };
}

async function serve(deps: CommandListenerDeps & { answers: Logger }, req: IncomingMessage, res: ServerResponse, tenant: string, namespace: string, action: string): Promise<void> {
  const body = await readBody(req, deps.bodyLimit);
  if (body === undefined) return; // the client went away before sending the whole body
  if (typeof body !== "string") {
    // Unless the rest of the body was read (and thrown away), this connection cannot carry another request.
    if (!(await discardBody(req, body.read))) res.setHeader("connection", "close");
    answerProblem(deps.answers, res, problem(413, "body-too-large", `the request body is over the limit of ${deps.bodyLimit} bytes`));
    return;
  }
  let jws: string;
  try {
    jws = jwsFromBody(req.headers["content-type"], body, "command");
  } catch (error) {
    if (error instanceof HttpProblem) return answerProblem(deps.answers, res, error.problem);
    throw error;
  }
  const answer = await submit(deps, jws, tenant, namespace, action);
  if (answer.kind === "problem") return answerProblem(deps.answers, res, answer.problem);
  // A refusal (422) is logged by the engine, with its reason, where it was decided.
  send(res, answer.outcome === "accepted" ? 200 : 422, "application/json", receiptBody(answer.jws), answer.replayed ? { "idempotent-replayed": "true" } : undefined);
}

/** wire.md's answer to a command, `{"receipt": …, "jws": "…"}`, built from the JWS (whose payload is the receipt). */
export function receiptBody(jws: string): string {
  return `{"receipt":${receiptJsonOf(jws)},"jws":"${jws}"}`;
}

/**
 * The body as text; `{read}` when it is over `limit` bytes (a declared Content-Length is checked as
 * it is, a chunked body as it streams: `read` bytes of it were read); undefined when the client
 * went away first.
 */
function readBody(req: IncomingMessage, limit: number): Promise<string | { read: number } | undefined> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && req.headers["transfer-encoding"] === undefined && Number.parseInt(declared, 10) > limit) return Promise.resolve({ read: 0 });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (value: string | { read: number } | undefined) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        req.pause();
        settle({ read: size });
      }
    };
    const onEnd = () => settle((chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)).toString("utf8"));
    const onGone = () => settle(undefined);
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}

function send(res: ServerResponse, status: number, type: string, body: string, extra?: Record<string, string>): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body), ...extra });
  res.end(body);
}

/** Answers with a problem and logs the answer, as the app's routes are (problem-response.ts). */
function answerProblem(answers: Logger, res: ServerResponse, p: Problem): void {
  sendProblem(res, p);
  logAnswer(answers, { method: "POST", route: ROUTE, status: p.status, code: p.code });
}
