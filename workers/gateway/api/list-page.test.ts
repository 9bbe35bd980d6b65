import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { HttpProblem } from "../../../shared/problem.ts";
import { pageOf, pageRequest } from "./list-page.ts";

const items = Array.from({ length: 120 }, (_, i) => ({ id: `item-${i}` }));

function app() {
  const a = new Hono();
  a.onError((error, c) => (error instanceof HttpProblem ? c.json(error.problem, error.problem.status as 400) : c.text("bug", 500)));
  a.get("/list", (c) => c.json(pageOf(items, (i) => i.id, pageRequest(c))));
  return a;
}

test("pages walk the whole list once, in order, 50 by default and at most 200", async () => {
  const seen: string[] = [];
  let next: string | null = null;
  let pages = 0;
  do {
    const res = await app().request(`/list${next === null ? "" : `?after=${next}`}`);
    const page = (await res.json()) as { items: { id: string }[]; next: string | null };
    assert.ok(page.items.length <= 50);
    seen.push(...page.items.map((i) => i.id));
    next = page.next;
    pages++;
  } while (next !== null);
  assert.equal(pages, 3);
  assert.deepEqual(seen, items.map((i) => i.id));
  const all = (await (await app().request("/list?limit=200")).json()) as { items: unknown[]; next: string | null };
  assert.deepEqual([all.items.length, all.next], [120, null]);
  const exact = (await (await app().request("/list?limit=120")).json()) as { next: string | null };
  assert.equal(exact.next, null, "no empty last page");
});

test("a bad limit or cursor is 400 bad-parameters", async () => {
  for (const q of ["limit=0", "limit=201", "limit=-1", "limit=1.5", "limit=abc", "limit=99999", "after=%00", "after=a.b", `after=${Buffer.from("nobody").toString("base64url")}`]) {
    const res = await app().request(`/list?${q}`);
    assert.equal(res.status, 400, q);
    assert.equal(((await res.json()) as { code: string }).code, "bad-parameters", q);
  }
});
