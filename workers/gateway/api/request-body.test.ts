import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { HttpProblem } from "../../../shared/problem.ts";
import { jsonBody } from "./request-body.ts";

const app = new Hono();
app.onError((error, c) => (error instanceof HttpProblem ? c.json(error.problem, error.problem.status as 400) : c.text("bug", 500)));
app.post("/", async (c) => c.json(await jsonBody(c, ["a", "b"])));

async function post(body: string, type = "application/json") {
  const res = await app.request("/", { method: "POST", body, headers: { "content-type": type } });
  return { status: res.status, body: (await res.json()) as { code?: string; detail?: string; errors?: unknown } };
}

test("a body of known fields is read; an empty one is {}", async () => {
  assert.deepEqual((await post('{"a":1}')).body, { a: 1 });
  assert.deepEqual((await post("")).body, {});
});

test("unknown fields are 400 naming them", async () => {
  const answer = await post('{"a":1,"c":2,"d/e":3}');
  assert.equal(answer.status, 400);
  assert.equal(answer.body.code, "malformed-body");
  assert.equal(answer.body.detail, 'unknown fields: "c", "d/e"');
  assert.deepEqual(answer.body.errors, [
    { pointer: "#/c", detail: "unknown field" },
    { pointer: "#/d~1e", detail: "unknown field" },
  ]);
});

test("not JSON, not an object, too deep, or not sent as JSON: each its own problem", async () => {
  assert.equal((await post("{")).body.code, "malformed-json");
  assert.equal((await post("[1]")).body.code, "malformed-body");
  assert.equal((await post(`${"[".repeat(40)}${"]".repeat(40)}`)).body.code, "json-over-limit");
  assert.equal((await post('{"a":1}', "text/plain")).status, 415);
});
