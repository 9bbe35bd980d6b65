import assert from "node:assert/strict";
import { test } from "node:test";
import { hostFacts, hostWarnings } from "./host-check.ts";

test("a host of 2 cores and 2 GB free gets no warning; less of either gets one each", () => {
  assert.deepEqual(hostWarnings({ cores: 2, freeBytes: 2e9 }), []);
  assert.deepEqual(hostWarnings({ cores: 8, freeBytes: 16e9 }), []);
  const [cores, memory, ...rest] = hostWarnings({ cores: 1, freeBytes: 1.5e9 });
  assert.equal(cores, "this machine has 1 core; the node is made for at least 2: expect it to be slow");
  assert.match(memory ?? "", /^this machine has 1\.5 GB of memory free; the node is made for at least 2 GB free/);
  assert.deepEqual(rest, []);
});

test("the facts are this machine's", () => {
  const facts = hostFacts();
  assert.ok(Number.isInteger(facts.cores) && facts.cores >= 1);
  assert.ok(facts.freeBytes > 0);
});
