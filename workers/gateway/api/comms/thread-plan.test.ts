import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_PARENTS, planThread, type ThreadLookup } from "./thread-plan.ts";

/** An in-memory store of what planning reads: recorded messages' threads and References, with every lookup counted. */
function store() {
  const messages = new Map<string, string>();
  const references = new Map<string, string>();
  const reads = { n: 0 };
  const lookup: ThreadLookup = {
    messageThread: (id) => {
      reads.n++;
      return messages.get(id) ?? null;
    },
    awaitedThread: (id) => {
      reads.n++;
      return references.get(id) ?? null;
    },
  };
  /** Records a message as the consumer does: the plan's thread, and a Reference under each parent it awaits. */
  const record = (messageId: string, parents: { inReplyTo?: string; references?: string[] } = {}) => {
    const plan = planThread({ messageId, inReplyTo: parents.inReplyTo ?? "", references: parents.references ?? [] }, `thr-${messageId}`, lookup);
    messages.set(messageId, plan.thread);
    for (const parent of plan.awaits) if (!references.has(parent)) references.set(parent, plan.thread);
    return plan;
  };
  return { record, lookup, reads, messages, references };
}

describe("thread building", () => {
  it("a message with no parents starts its own thread", () => {
    const s = store();
    assert.deepEqual(s.record("<a@x>"), { thread: "thr-<a@x>", own: true, awaits: [] });
  });

  it("a reply joins its parent's thread, by In-Reply-To or by References", () => {
    const s = store();
    s.record("<a@x>");
    assert.equal(s.record("<b@x>", { inReplyTo: "<a@x>" }).thread, "thr-<a@x>");
    assert.equal(s.record("<c@x>", { references: ["<a@x>", "<b@x>"] }).thread, "thr-<a@x>");
    // The nearest parent wins: the last of References, then the ones before it.
    s.record("<other@x>");
    assert.equal(s.record("<d@x>", { references: ["<other@x>", "<c@x>"] }).thread, "thr-<a@x>");
  });

  it("a parent that arrives after its reply joins the reply's thread", () => {
    const s = store();
    const reply = s.record("<r@x>", { inReplyTo: "<p@x>", references: ["<root@x>", "<p@x>"] });
    assert.equal(reply.thread, "thr-<r@x>");
    assert.deepEqual([...reply.awaits].sort(), ["<p@x>", "<root@x>"]);
    const parent = s.record("<p@x>", { references: ["<root@x>"] });
    assert.deepEqual(parent, { thread: "thr-<r@x>", own: false, awaits: [] }, "it finds the Reference its reply left, and awaits nothing claimed already");
    assert.equal(s.record("<root@x>").thread, "thr-<r@x>", "and so does the root, before either");
  });

  it("two replies to a parent not recorded yet share a thread", () => {
    const s = store();
    const first = s.record("<r1@x>", { inReplyTo: "<gone@x>" });
    assert.equal(s.record("<r2@x>", { inReplyTo: "<gone@x>" }).thread, first.thread);
  });

  it("does not count a message as its own parent, nor a parent twice", () => {
    const s = store();
    const plan = s.record("<self@x>", { inReplyTo: "<self@x>", references: ["<p@x>", "<p@x>", "<self@x>"] });
    assert.equal(plan.thread, "thr-<self@x>");
    assert.deepEqual(plan.awaits, ["<p@x>"]);
  });

  it("looks at no more than MAX_PARENTS parents, however many References a message names", () => {
    const s = store();
    const references = Array.from({ length: 500 }, (_, i) => `<ref${i}@x>`);
    s.reads.n = 0;
    const plan = s.record("<many@x>", { references });
    assert.equal(plan.awaits.length, MAX_PARENTS);
    assert.ok(s.reads.n <= 2 * MAX_PARENTS + 1, `${s.reads.n} lookups`);
    assert.equal(plan.awaits[0], "<ref499@x>", "the nearest first");
  });
});
