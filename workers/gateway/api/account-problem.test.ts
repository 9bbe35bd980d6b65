import assert from "node:assert/strict";
import { test } from "node:test";
import { problemCatalog } from "../../../shared/problem-catalog.ts";
import { accountError, accountErrorCatalog, type AccountErrorCode } from "./account/account-errors.ts";
import { ACCOUNT_PROBLEMS, accountProblem } from "./account-problem.ts";

test("every ceremony refusal becomes the problem of the same code, with the same status and title", () => {
  for (const code of Object.keys(accountErrorCatalog) as AccountErrorCode[]) {
    assert.equal(ACCOUNT_PROBLEMS[code], code);
    const p = accountProblem(accountError(code, "why"));
    assert.deepEqual([p.code, p.status, p.detail], [code, accountErrorCatalog[code].status, "why"]);
    assert.equal(problemCatalog[ACCOUNT_PROBLEMS[code]].status, accountErrorCatalog[code].status, code);
  }
});

test("a lock carries Retry-After; why a check failed is never sent", () => {
  assert.equal(accountProblem(accountError("rate-limited", "later", 600)).retryAfter, 600);
  const p = accountProblem({ ...accountError("unauthenticated", "no"), reason: "signature did not verify" });
  assert.ok(!JSON.stringify(p).includes("signature"));
});
