import assert from "node:assert/strict";
import { test } from "node:test";
import { parseSteps } from "./workbench.ts";

test("issue 17 #11: the Workbench takes the specification's {\"steps\": [...]} as well as a bare list", () => {
  const step = { action: "Start", subject: "t1", args: { label: "x" } };
  assert.deepEqual(parseSteps(JSON.stringify([step])), [step]);
  assert.deepEqual(parseSteps(JSON.stringify({ steps: [step] })), [step]);
  assert.match(parseSteps(JSON.stringify({ stepz: [step] })) as string, /JSON list of steps, or \{"steps"/);
  assert.match(parseSteps(JSON.stringify({ steps: "no" })) as string, /JSON list/);
});
