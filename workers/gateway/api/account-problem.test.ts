import assert from "node:assert/strict";
import { test } from "node:test";
import { problemCatalog } from "../../../shared/problem-catalog.ts";
import { ACCOUNT_ERROR_CODES, accountError } from "./account/account-errors.ts";
import { accountProblem } from "./account-problem.ts";

test("every ceremony refusal becomes the problem of the same code, with the catalogue's status and title", () => {
  for (const code of ACCOUNT_ERROR_CODES) {
    const error = accountError(code, "why");
    assert.equal(error.status, problemCatalog[code].status, code);
    const p = accountProblem(error);
    assert.deepEqual([p.code, p.status, p.title, p.detail], [code, problemCatalog[code].status, problemCatalog[code].title, "why"]);
  }
});

test("a lock carries Retry-After; why a check failed is never sent", () => {
  assert.equal(accountProblem(accountError("rate-limited", "later", 600)).retryAfter, 600);
  const p = accountProblem({ ...accountError("unauthenticated", "no"), reason: "signature did not verify" });
  assert.ok(!JSON.stringify(p).includes("signature"));
});
