/**
 * @module Read consistency on a replicated engine. Every read of the store (queries, records,
 * history, GraphQL) first gets a read point from the engine: by default a linearizable one — the
 * leader confirms it still leads and this voter waits until it has applied that point — or, with
 * `?consistency=local`, this voter's state as it is. Either way the answer says how fresh it is:
 * `Charter-Consistency`, `Charter-Applied-Index`, `Charter-Commit-Index` and, for a local read,
 * `Charter-Staleness-Ms` (time since this voter last heard from its leader; 0 on the leader).
 */
import type { Hono, MiddlewareHandler } from "hono";
import { ChannelError } from "../../shared/channel/messages.ts";
import { problem } from "../../shared/problem.ts";
import type { EngineLink } from "../../shared/worker/engine-link.ts";
import { problemResponse } from "./problem-response.ts";

/** The routes that read the store. */
const READ_PATHS = ["/v1/:tenant/:namespace/queries/*", "/v1/:tenant/:namespace/records/*", "/v1/:tenant/:namespace/graphql"];

export function mountReadConsistency(app: Hono, engine: EngineLink): void {
  const middleware: MiddlewareHandler = async function readConsistency(c, next) {
    const asked = c.req.query("consistency") ?? "strong";
    if (asked !== "strong" && asked !== "local") {
      return problemResponse(c, problem(400, "bad-consistency", `consistency is 'strong' (the default: linearizable) or 'local' (this voter's state, possibly stale), not '${asked}'`));
    }
    let point;
    try {
      point = await engine.request("read-point", { consistency: asked });
    } catch (error) {
      if (!(error instanceof ChannelError)) throw error;
      return problemResponse(c, problem(503, "engine-unavailable", "the engine is restarting; read again shortly"));
    }
    if (!point.ok) return problemResponse(c, point.problem);
    await next();
    c.header("charter-consistency", asked);
    c.header("charter-applied-index", String(point.appliedIndex));
    c.header("charter-commit-index", String(point.commitIndex));
    if (asked === "local") c.header("charter-staleness-ms", point.leaderContactMs === null ? "unknown" : String(point.leaderContactMs));
  };
  for (const path of READ_PATHS) app.use(path, middleware);
}
