/**
 * @module What to say next (assistant-host/suggestions.ts):
 *
 * ```
 * GET /api/suggestions → {items: [{text, kind: "task" | "approval" | "ask" | "follow-up", ref}]}   (at most 6)
 * ```
 *
 * `ref` is the record a suggestion is about: the task, the approval or the ask, or for a model's
 * follow-up the last message of the main conversation it follows. A model's failure leaves the
 * follow-ups out; it never fails the route.
 */
import type { Hono } from "hono";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { Suggestions, type SuggestionsDeps } from "../assistant-host/suggestions.ts";

export type SuggestionRouteDeps = SuggestionsDeps;

export function mountSuggestionRoutes(api: Hono<ApiEnv>, deps: SuggestionRouteDeps): void {
  const suggestions = new Suggestions(deps);

  api.get("/api/suggestions", async (c) => {
    sessionOf(c);
    return c.json({ items: await suggestions.list() });
  });
}
