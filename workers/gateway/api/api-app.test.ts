import assert from "node:assert/strict";
import { test } from "node:test";
import { isApiTarget } from "./api-app.ts";

test("the /api app takes /api and every path under it, in origin or absolute form, and nothing else", () => {
  for (const url of ["/api", "/api/", "/api/account", "/api?x=1", "/api/tasks/1/complete", "http://localhost:8787/api/account"]) assert.ok(isApiTarget(url), url);
  for (const url of [undefined, "/", "/apis", "/api-docs", "/v1/acme/ns/actions/A", "/health", "//api/account", "*", "http://localhost:8787/v1"]) assert.ok(!isApiTarget(url), String(url));
});
