/**
 * @module `POST /v1/{tenant}/{namespace}/actions/{Action}`: a signed command in, a signed receipt
 * out (wire.md). The gateway checks the JWS, its freshness and that it names this path; the engine
 * decides everything else. Input that is not a command gets a problem document and changes nothing.
 */
import type { Hono } from "hono";
import { parseCommand } from "../../../shared/identity/index.ts";
import { ChannelError } from "../../../shared/channel/messages.ts";
import { problem } from "../../../shared/problem.ts";
import type { SignedCommandAnswer } from "../../../shared/protocol/engine.ts";
import type { EngineLink } from "../../../shared/worker/engine-link.ts";
import { problemResponse } from "../problem-response.ts";
import { signedBody } from "../signed-body.ts";

export interface CommandRouteDeps {
  readonly engine: EngineLink;
  readonly now: () => number;
}

/** Sends a verified command to the engine; an engine that went away mid-request is a 503. The receipt comes back signed by the node. */
export async function submit(deps: CommandRouteDeps, jws: string, tenant: string, namespace: string, action: string): Promise<SignedCommandAnswer> {
  const verified = parseCommand(jws, { now: deps.now(), path: { tenant, namespace, action } });
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

export function mountCommandRoutes(app: Hono, deps: CommandRouteDeps): void {
  app.post("/v1/:tenant/:namespace/actions/:action", async function postCommand(c) {
    const { tenant, namespace, action } = c.req.param();
    const answer = await submit(deps, await signedBody(c, "command"), tenant, namespace, action);
    if (answer.kind === "problem") return problemResponse(c, answer.problem);
    const body = JSON.stringify({ receipt: answer.receipt, jws: answer.jws });
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (answer.replayed) headers["idempotent-replayed"] = "true";
    return c.body(body, answer.receipt.outcome === "accepted" ? 200 : 422, headers);
  });
}
