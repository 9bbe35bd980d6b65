/**
 * @module `GET /health`: `200 {status: "ok" | "degraded", version, uptime, workers, statuses, role, …}`
 * while every required worker runs (`degraded` names what keeps writes from working as they should,
 * and the workers that are not required but have failed or stopped), else `503`, a problem document
 * naming the required workers that do not run. `statuses` holds each worker's status line, for
 * those that report one (what an idle worker waits for).
 */
import type { Hono } from "hono";
import { problem } from "../../../shared/problem.ts";
import type { GatewayView } from "../app.ts";
import { noteProblem } from "../problem-response.ts";

export function mountHealthRoute(app: Hono, view: GatewayView): void {
  app.get("/health", async function health(c) {
    const { states, required, statuses } = view.workers();
    const down = required.filter((name) => states[name] !== "running");
    // A worker that is not required and is down leaves the node answering, with less to offer.
    const lesser = Object.entries(states)
      .filter(([name, state]) => !required.includes(name) && (state === "failed" || state === "stopped"))
      .map(([name, state]) => `the ${name} worker is not running (${state})`);
    const [consensus, engineDegraded] = await Promise.all([view.consensus?.() ?? null, view.degraded?.() ?? []]);
    const degraded = [...engineDegraded, ...lesser];
    // One voter is its own leader; a replicated voter says what it is, and the console reads `consensus`.
    const body = {
      version: view.version,
      uptime: Math.round((Date.now() - view.startedAt) / 1000),
      workers: states,
      statuses,
      role: consensus?.role ?? "leader",
      ...(consensus ? { term: consensus.term, leader: consensus.leader, consensus } : {}),
    };
    // Running but unable to write as it should, or without a worker that is not required: still 200 (the node answers), and says why.
    if (down.length === 0 && degraded.length > 0) return c.json({ status: "degraded", degraded, ...body });
    if (down.length === 0) return c.json({ status: "ok", ...body });
    const unavailable = problem(503, "unavailable", `not running: ${down.join(", ")}`);
    noteProblem(c, unavailable);
    return c.body(
      JSON.stringify({ ...unavailable, status: 503, health: "unavailable", down, ...body }),
      503,
      { "content-type": "application/problem+json" },
    );
  });
}
