import assert from "node:assert/strict";
import { test } from "node:test";
import type { LoadedArtifact } from "../../../contracts/runtime/index.ts";
import { ArgumentError } from "../../../contracts/runtime/index.ts";
import { runGroups } from "./run-groups.ts";

/** A program whose `Boom` throws a RangeError (as a recursive walk of a deep value would) and whose `Bad` has ill-typed arguments. */
const program = {
  defaultState: () => ({ n: 0 }),
  execute: (action: string, input: { state: { n: number } }) => {
    if (action === "T.Boom") throw new RangeError("Maximum call stack size exceeded");
    if (action === "T.Bad") throw new ArgumentError([{ field: "x", message: "must be an Int" }]);
    return { outcome: "accepted", state: { n: input.state.n + 1 } };
  },
} as unknown as LoadedArtifact;

const step = (action: string) => ({ action, args: {}, context: { signer: "did:key:z", time: 0 } });

test("issue 16 #2: a program that throws is a recorded program_failed refusal, and the group goes on from the state before it", () => {
  const [results] = runGroups(() => program, [{ artifact: "art", aggregate: "T", state: null, steps: [step("T.Inc"), step("T.Boom"), step("T.Bad"), step("T.Inc")] }]);
  assert.ok(results);
  const [first, boom, bad, last] = results;
  assert.equal(first?.kind === "decided" && first.outcome.outcome, "accepted");
  assert.ok(boom?.kind === "decided" && boom.outcome.outcome === "refused");
  if (boom.kind === "decided" && boom.outcome.outcome === "refused") {
    assert.equal(boom.outcome.reason.code, "program_failed");
    assert.equal(boom.outcome.reason.message, "the contract program could not run this command (RangeError)", "the same words on every voter: the error's kind, not its message");
    assert.deepEqual(boom.after, { n: 1 });
  }
  assert.equal(bad?.kind, "bad-arguments");
  assert.ok(last?.kind === "decided" && last.outcome.outcome === "accepted" && last.after.n === 2);
});
