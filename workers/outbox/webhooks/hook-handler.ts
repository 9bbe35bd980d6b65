/**
 * @module One webhook request, from its path to its answer. Only `POST /hooks/<source>` is served
 * (anything else is `404`). A source with no secret set is `503 hook-not-configured`: the route is
 * there, but nothing can be verified yet (senders that retry on 5xx, as Mastodon does, deliver
 * again once a secret is set; a 404 would tell them to give up). The body is read within its limit
 * (`413`) and deadline (`408`), must be strict UTF-8 and carry the source's signature (`401
 * bad-hook-signature` otherwise, and nothing is journaled), and must be a JSON object. A verified
 * delivery is journaled under its id before it is answered: `202` the first time, `200` for a
 * redelivery of the same id, which is not acted on again. Acting is the gateway's, from the journal.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { checkJsonTextDepth } from "../../../shared/json-limits.ts";
import { type Problem, problem } from "../../../shared/problem.ts";
import { HOOK_SOURCES, HOOK_TOPIC, type HookDelivery, type HookSource } from "../../../shared/protocol/outbox.ts";
import { type AppendEntry, type Appended, AppendBacklogError } from "./append-batcher.ts";
import { readBody } from "./body-reader.ts";
import { actionOf, SOURCE_RULES } from "./hook-sources.ts";

/** What handling a request needs. */
export interface HookHandlerDeps {
  /** The secret of a source: undefined when none is set, null while not known yet. */
  readonly secret: (source: HookSource) => string | undefined | null;
  /** Waits (a moment at most) for the secrets to be known; false when they still are not. */
  readonly loaded: () => Promise<boolean>;
  /** Journals an entry (batched); resolves once it is committed. */
  readonly append: (entry: AppendEntry) => Promise<Appended>;
  readonly now: () => number;
  /** The largest body, in bytes. */
  readonly bodyLimit: number;
  /** How long a body may take to arrive. */
  readonly bodyDeadlineMs: number;
}

/** What became of a request, for the log and the counters. */
export type HookOutcome = "admitted" | "duplicate" | "not-found" | "not-configured" | "unavailable" | "too-large" | "timeout" | "bad-signature" | "malformed";

const PATHS = new Map<string, HookSource>(HOOK_SOURCES.map((s) => [`/hooks/${s}`, s]));
/** Webhook bodies are shallow; this bound keeps JSON.parse's work in step with the body's size. */
const MAX_DEPTH = 64;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Answers one request; resolves with what it came to. */
export async function handleHook(req: IncomingMessage, res: ServerResponse, deps: HookHandlerDeps): Promise<HookOutcome> {
  const path = (req.url ?? "").split("?")[0] ?? "";
  const source = req.method === "POST" ? PATHS.get(path) : undefined;
  if (source === undefined) return refuse(res, "not-found", problem(404, "not-found", "the webhook listener serves POST /hooks/github, /hooks/mastodon and /hooks/mastodon-media only"));
  if (deps.secret(source) === null && !(await deps.loaded())) return refuse(res, "unavailable", { ...problem(503, "unavailable", "the node is starting; deliver again in a moment"), retryAfter: 5 });
  const secret = deps.secret(source);
  if (secret === undefined || secret === null) {
    return refuse(res, "not-configured", { ...problem(503, "hook-not-configured", `no secret is set for ${source} webhooks: set one in the node's settings (integrations, webhooks) first`), retryAfter: 300 });
  }
  const read = await readBody(req, deps.bodyLimit, deps.bodyDeadlineMs);
  if (!read.ok) {
    if (read.status === 413) return refuse(res, "too-large", problem(413, "body-too-large", `a webhook body may be at most ${deps.bodyLimit} bytes`));
    if (read.status === 408) return refuse(res, "timeout", problem(408, "request-timeout", `the body did not arrive within ${deps.bodyDeadlineMs / 1000} s`));
    return refuse(res, "malformed", problem(400, "malformed-body", "the body could not be read"));
  }
  const raw = read.body;
  let text: string;
  try {
    text = strictUtf8.decode(raw);
  } catch {
    return refuse(res, "malformed", problem(400, "malformed-body", "the body is not UTF-8"));
  }
  const rule = SOURCE_RULES[source];
  if (!(await rule.verify(secret, raw, text, req.headers))) {
    return refuse(res, "bad-signature", problem(401, "bad-hook-signature", `the delivery's signature is missing or does not match the ${source} secret`));
  }
  const body = parseObject(text);
  if (typeof body === "string") return refuse(res, "malformed", problem(400, "malformed-json", body));
  const head = rule.head(req.headers, raw, body);
  if (!head.ok) return refuse(res, "malformed", problem(400, "malformed-body", head.detail));
  const delivery: HookDelivery = { source, delivery: head.delivery, event: head.event, action: actionOf(body), receivedAt: deps.now(), body: text };
  let appended: Appended;
  try {
    appended = await deps.append({ topic: HOOK_TOPIC, key: `${source}:${head.delivery}`, payload: delivery, bytes: raw.length });
  } catch (error) {
    const busy = error instanceof AppendBacklogError;
    return refuse(res, "unavailable", { ...problem(503, "unavailable", busy ? "too many deliveries are waiting to be journaled; deliver again shortly" : "the delivery could not be journaled now; deliver again"), retryAfter: busy ? 1 : 5 });
  }
  send(res, appended.added ? 202 : 200, { delivery: head.delivery, status: appended.added ? "admitted" : "duplicate" });
  return appended.added ? "admitted" : "duplicate";
}

/** The body as a JSON object, or why it is not one. */
function parseObject(text: string): Record<string, unknown> | string {
  const deep = checkJsonTextDepth(text, MAX_DEPTH);
  if (deep !== null) return deep.detail;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `the body is not JSON (${(error as Error).message}); send webhooks as application/json`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "the body must be a JSON object";
  return value as Record<string, unknown>;
}

function refuse(res: ServerResponse, outcome: HookOutcome, p: Problem): HookOutcome {
  const body = JSON.stringify(p);
  // A body not read (or read only in part) leaves nothing the connection could carry on with.
  const close = outcome === "too-large" || outcome === "timeout" || outcome === "not-configured" || outcome === "unavailable" || outcome === "not-found";
  res.writeHead(p.status, {
    "content-type": "application/problem+json",
    "content-length": Buffer.byteLength(body),
    ...(p.retryAfter === undefined ? {} : { "retry-after": String(p.retryAfter) }),
    ...(close ? { connection: "close" } : {}),
  });
  res.end(body);
  return outcome;
}

function send(res: ServerResponse, status: number, value: object): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}
