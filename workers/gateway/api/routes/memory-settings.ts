/**
 * @module Memory with consent: whether the assistant's memory notes take part in a conversation.
 *
 * ```
 * GET /api/settings/memory              → {off: [conversation…]}
 * PUT /api/settings/memory {off: [...]} → the same: the conversations (`main`, a branch's id) memory is off in
 * ```
 *
 * Off in a conversation, nothing of memory is given to the model there: no note in its prompt, no
 * memory tool offered (and a memory tool the model names anyway is refused). Each connection says
 * too whether its provider may see memory at all (`PATCH /api/connections/{id}` `{memory}`): a
 * note is only ever sent to a provider the person allowed. Turning memory off needs no step-up;
 * both narrow what a provider sees.
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import type { NodeSettings } from "../assistant-host/node-settings.ts";
import { jsonBody } from "../request-body.ts";

/** At most this many conversations may have memory off. */
const MAX_OFF = 1000;

export function mountMemorySettingsRoutes(api: Hono<ApiEnv>, deps: { readonly settings: NodeSettings }): void {
  const read = () => ({ off: offList(deps.settings.get<{ off?: unknown }>("memory", {}).off) });

  api.get("/api/settings/memory", (c) => {
    sessionOf(c);
    return c.json(read());
  });

  api.put("/api/settings/memory", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["off"]);
    const off = body.off;
    if (!Array.isArray(off) || off.length > MAX_OFF || !off.every((v) => typeof v === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(v))) {
      const detail = `off is a list of at most ${MAX_OFF} conversation ids (main, or a branch's id)`;
      throw new HttpProblem(problem(400, "malformed-body", detail, [{ pointer: "#/off", detail }]));
    }
    deps.settings.put("memory", { off: [...new Set(off as string[])] });
    return c.json(read());
  });
}

function offList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
