/** @module Tests for `GET /health` on the app alone, with the process tree as a view: ok, degraded, unavailable, and the workers' status lines. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { silentLogger } from "../../../shared/log.ts";
import type { Lifecycle } from "../../../shared/protocol/lifecycle.ts";
import { createApp } from "../app.ts";

const required = ["engine", "gateway"];
const statuses = { assistant: "idle: no model configured", outbox: "idle: no connector configured" };

async function health(states: Record<string, Lifecycle>, degraded: string[] = []): Promise<{ code: number; body: Record<string, unknown> }> {
  const app = createApp({ version: "0.0.0", startedAt: Date.now(), workers: () => ({ states, required, statuses }), degraded: async () => degraded }, { bodyLimit: 1024, log: silentLogger });
  const response = await app.request("/health");
  return { code: response.status, body: (await response.json()) as Record<string, unknown> };
}

test("every worker running: ok, with each worker's state and the status lines reported", async () => {
  const states = { engine: "running", gateway: "running", assistant: "running", outbox: "running" } as const;
  const { code, body } = await health(states);
  assert.equal(code, 200);
  assert.equal(body.status, "ok");
  assert.deepEqual(body.workers, states);
  assert.deepEqual(body.statuses, statuses);
  assert.equal(body.degraded, undefined);
});

test("a worker that is not required has failed: 200, degraded, naming it beside the engine's reasons", async () => {
  const { code, body } = await health({ engine: "running", gateway: "running", assistant: "failed", outbox: "starting" }, ["the disk is under the reserve"]);
  assert.equal(code, 200);
  assert.equal(body.status, "degraded");
  assert.deepEqual(body.degraded, ["the disk is under the reserve", "the assistant worker is not running (failed)"]);
});

test("a required worker down: 503 naming it, the states and status lines still there", async () => {
  const { code, body } = await health({ engine: "failed", gateway: "running", assistant: "running" });
  assert.equal(code, 503);
  assert.deepEqual(body.down, ["engine"]);
  assert.equal(body.health, "unavailable");
  assert.deepEqual(body.statuses, statuses);
});
