import assert from "node:assert/strict";
import { test } from "node:test";
import { ModelError, type ModelErrorKind, type ModelEvent } from "./model.ts";
import { backoffMs, withRetries, type RetryOptions } from "./retry.ts";

const DONE: ModelEvent = { type: "done", stopReason: "end" };
const HELLO: ModelEvent = { type: "text", delta: "hello" };

/** An attempt function answering the scripted outcomes in order: an error thrown at once, or events. */
function script(...outcomes: Array<ModelError | ModelEvent[] | { events: ModelEvent[]; then: ModelError }>) {
  let calls = 0;
  const attempt = () => {
    const outcome = outcomes[calls++];
    return (async function* () {
      if (outcome instanceof ModelError) throw outcome;
      if (Array.isArray(outcome)) return yield* outcome;
      yield* outcome!.events;
      throw outcome!.then;
    })();
  };
  return { attempt, calls: () => calls };
}

function options(extra: Partial<RetryOptions> = {}): RetryOptions & { waits: number[] } {
  const waits: number[] = [];
  return { maxAttempts: 4, baseMs: 100, maxMs: 2_000, signal: new AbortController().signal, sleep: async (ms) => void waits.push(ms), random: () => 0.5, waits, ...extra };
}

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function failure(events: AsyncIterable<ModelEvent>): Promise<ModelError> {
  const error = await collect(events).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
  return error;
}

test("a server error, no connection, a timeout and a cut before any event are tried again, with growing back-off", async () => {
  const opts = options();
  const run = script(new ModelError("server", "500"), new ModelError("unreachable", "refused"), new ModelError("cut", "cut"), [HELLO, DONE]);
  assert.deepEqual(await collect(withRetries(run.attempt, opts)), [HELLO, DONE]);
  assert.equal(run.calls(), 4);
  // Equal jitter at random 0.5: three quarters of 100, 200, 400.
  assert.deepEqual(opts.waits, [75, 150, 300]);
  const timeout = script(new ModelError("timeout", "slow"), [DONE]);
  assert.deepEqual(await collect(withRetries(timeout.attempt, options())), [DONE]);
});

test("a rate limit waits what the provider asked for; a wait beyond the cap is not waited for", async () => {
  const opts = options();
  const run = script(new ModelError("rate-limited", "429", { status: 429, retryAfterMs: 1_500 }), [DONE]);
  assert.deepEqual(await collect(withRetries(run.attempt, opts)), [DONE]);
  assert.deepEqual(opts.waits, [1_500]);

  const long = options();
  const error = await failure(withRetries(script(new ModelError("rate-limited", "429", { status: 429, retryAfterMs: 60_000 }), [DONE]).attempt, long));
  assert.equal(error.kind, "rate-limited");
  assert.equal(error.retryAfterMs, 60_000);
  assert.equal(error.attempts, 1);
  assert.deepEqual(long.waits, []);
});

test("a refused key, a refused request and a cancelled call are never tried again", async () => {
  for (const kind of ["auth", "bad-request", "cancelled", "malformed"] satisfies ModelErrorKind[]) {
    const opts = options();
    const run = script(new ModelError(kind, `${kind} failure`, { status: 400 }), [DONE]);
    const error = await failure(withRetries(run.attempt, opts));
    assert.equal(error.kind, kind);
    assert.equal(error.attempts, 1);
    assert.equal(error.status, 400);
    assert.equal(run.calls(), 1);
    assert.deepEqual(opts.waits, []);
  }
});

test("after the last attempt the last error is thrown with the number of attempts", async () => {
  const opts = options({ maxAttempts: 3 });
  const run = script(new ModelError("server", "500 a"), new ModelError("server", "502 b"), new ModelError("server", "503 c", { status: 503 }), [DONE]);
  const error = await failure(withRetries(run.attempt, opts));
  assert.equal(error.attempts, 3);
  assert.equal(error.status, 503);
  assert.match(error.message, /503 c \(after 3 attempts\)/);
  assert.equal(run.calls(), 3);
});

test("once an event has been passed on, a failure is final (the answer would be seen twice)", async () => {
  const run = script({ events: [HELLO], then: new ModelError("cut", "cut halfway") }, [HELLO, DONE]);
  const seen: ModelEvent[] = [];
  const error = await collect(
    (async function* () {
      for await (const event of withRetries(run.attempt, options())) {
        seen.push(event);
        yield event;
      }
    })(),
  ).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof ModelError);
  assert.equal(error.kind, "cut");
  assert.deepEqual(seen, [HELLO]);
  assert.equal(run.calls(), 1);
});

test("back-off doubles, is capped, and its jitter stays within half to all of it", () => {
  const error = new ModelError("server", "x");
  const at = (attempt: number, random: number) => backoffMs(error, attempt, { baseMs: 100, maxMs: 1_000, random: () => random });
  assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => at(n, 0)), [50, 100, 200, 400, 500, 500]);
  assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => at(n, 0.999_999)), [100, 200, 400, 800, 1_000, 1_000]);
});

test("an abort while waiting ends the retries as cancelled", async () => {
  const controller = new AbortController();
  const opts = options({
    signal: controller.signal,
    sleep: (_ms, signal) => {
      controller.abort();
      return Promise.reject(signal.reason);
    },
  });
  const error = await failure(withRetries(script(new ModelError("server", "500"), [DONE]).attempt, opts));
  assert.equal(error.kind, "cancelled");
  assert.equal(error.attempts, 1);
});

// The back-off is ten minutes: only the abort can end it within the test's timeout.
test("the real sleep waits, and stops at once on abort", { timeout: 30_000 }, async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const error = await failure(withRetries(script(new ModelError("server", "500"), [DONE]).attempt, { maxAttempts: 2, baseMs: 600_000, maxMs: 600_000, signal: controller.signal }));
  assert.equal(error.kind, "cancelled");
  assert.equal(error.attempts, 1);
});
