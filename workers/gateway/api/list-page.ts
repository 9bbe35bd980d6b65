/**
 * @module The `/api` list convention: `GET …?after=CURSOR&limit=N` → `{"items": […], "next":
 * CURSOR|null}`, `limit` 1–200 (50 when absent). A cursor is opaque to the caller: the base64url of
 * the last item's id, so a page after it starts with the item that followed it then, whatever was
 * added or removed since. A bad `limit` or `after` is `400 bad-parameters`.
 */
import type { Context } from "hono";
import { HttpProblem, problem } from "../../../shared/problem.ts";

/** Items per page when `limit` is absent, and at most. */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** A page of a list. */
export interface Page<T> {
  readonly items: T[];
  readonly next: string | null;
}

/** The request's `after` (decoded to an id, or null) and `limit`. */
export function pageRequest(c: Context): { after: string | null; limit: number } {
  const rawLimit = c.req.query("limit");
  const limit = rawLimit === undefined ? DEFAULT_LIMIT : /^\d{1,3}$/.test(rawLimit) ? Number(rawLimit) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) throw badParameter("limit", `limit is a whole number from 1 to ${MAX_LIMIT}`);
  const rawAfter = c.req.query("after");
  if (rawAfter === undefined || rawAfter === "") return { after: null, limit };
  if (!/^[A-Za-z0-9_-]{1,256}$/.test(rawAfter)) throw badParameter("after", "after is a cursor from an earlier page's next");
  return { after: Buffer.from(rawAfter, "base64url").toString("utf8"), limit };
}

/** The page of `items` (in their order) after the item whose id is `after`; an unknown `after` is a 400. */
export function pageOf<T>(items: readonly T[], idOf: (item: T) => string, request: { after: string | null; limit: number }): Page<T> {
  let start = 0;
  if (request.after !== null) {
    const at = items.findIndex((item) => idOf(item) === request.after);
    if (at < 0) throw badParameter("after", "that cursor's item is gone: start again from the first page");
    start = at + 1;
  }
  const page = items.slice(start, start + request.limit);
  const last = page.at(-1);
  const more = start + request.limit < items.length && last !== undefined;
  return { items: page, next: more ? Buffer.from(idOf(last), "utf8").toString("base64url") : null };
}

function badParameter(name: string, detail: string): HttpProblem {
  return new HttpProblem(problem(400, "bad-parameters", detail, [{ pointer: `?${name}`, detail }]));
}
