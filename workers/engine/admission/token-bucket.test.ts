import assert from "node:assert/strict";
import { test } from "node:test";
import { isFull, take } from "./token-bucket.ts";

test("a new bucket allows a burst, then one token per 1/rate s (issue 16 #4)", () => {
  let bucket;
  let allowed = 0;
  for (let i = 0; i < 10; i++) {
    const t = take(bucket, 1_000, 2, 5);
    bucket = t.bucket;
    if (t.ok) allowed++;
  }
  assert.equal(allowed, 5);
  const refused = take(bucket, 1_000, 2, 5);
  assert.equal(refused.ok, false);
  assert.equal(refused.retryAfterMs, 500);
  assert.equal(take(bucket, 1_499, 2, 5).ok, false);
  assert.equal(take(bucket, 1_500, 2, 5).ok, true);
});

test("a bucket never holds more than its burst, and a clock going back refills nothing", () => {
  const drained = { tokens: 0, at: 10_000 };
  assert.equal(take(drained, 5_000, 100, 3).ok, false);
  const later = take(drained, 1_000_000, 100, 3);
  assert.equal(later.ok, true);
  assert.equal(later.bucket.tokens, 2);
  assert.equal(isFull({ tokens: 2, at: 0 }, 9, 100, 3), false);
  assert.equal(isFull({ tokens: 2, at: 0 }, 10, 100, 3), true);
});
