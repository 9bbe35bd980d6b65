import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HttpProblem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { summarySubject } from "./branch-merge.ts";
import { BRANCH_DEPTH, historySegments, requireOpenConversation, rootConversation } from "./branches.ts";

/** A reader holding only branch records, by subject. */
function readerOf(branches: Record<string, { status: string; parent: string; from_message: string }>): PersonReader {
  return {
    record: (_tenant: unknown, _namespace: string, aggregate: string, subject: string) => {
      const state = aggregate === "Branch" ? branches[subject] : undefined;
      return state === undefined ? null : { state };
    },
  } as unknown as PersonReader;
}

const READER = readerOf({
  "branch-a": { status: "Open", parent: "main", from_message: "msg-1" },
  "branch-b": { status: "Merged", parent: "branch-a", from_message: "msg-5" },
  "branch-c": { status: "Closed", parent: "main", from_message: "msg-2" },
});

function status(conversation: string): number | "ok" {
  try {
    requireOpenConversation(READER, conversation);
    return "ok";
  } catch (error) {
    assert.ok(error instanceof HttpProblem);
    return error.problem.status;
  }
}

describe("branches", () => {
  it("gives a turn in a branch its conversation, then each parent up to the message it was opened from", () => {
    assert.deepEqual(historySegments(READER, "main", "msg-9"), [{ conversation: "main", upTo: "msg-9", exact: false }]);
    assert.deepEqual(historySegments(READER, "branch-b", "msg-9"), [
      { conversation: "branch-b", upTo: "msg-9", exact: false },
      { conversation: "branch-a", upTo: "msg-5", exact: true },
      { conversation: "main", upTo: "msg-1", exact: true },
    ]);
    assert.equal(rootConversation(READER, "branch-b"), "main");
    assert.equal(rootConversation(READER, "elsewhere"), "elsewhere");
  });

  it("stops following parents after BRANCH_DEPTH branches, whatever the records say", () => {
    const loop = readerOf({ "branch-x": { status: "Open", parent: "branch-y", from_message: "m" }, "branch-y": { status: "Open", parent: "branch-x", from_message: "m" } });
    assert.equal(historySegments(loop, "branch-x", "m").length, BRANCH_DEPTH + 1);
  });

  it("takes new messages in main and open branches only", () => {
    assert.equal(status("main"), "ok");
    assert.equal(status("branch-a"), "ok");
    assert.equal(status("branch-b"), 409);
    assert.equal(status("branch-c"), 409);
    assert.equal(status("branch-none"), 404);
    assert.equal(status("side"), 404);
  });

  it("names a merge's summary after its turn and end time: the same on every pass, listed at that time", () => {
    const at = Date.UTC(2026, 4, 2, 9, 0, 0);
    assert.equal(summarySubject("turn-1", at), summarySubject("turn-1", at));
    assert.notEqual(summarySubject("turn-1", at), summarySubject("turn-2", at));
    assert.match(summarySubject("turn-1", at), /^msg-[0-9a-z]{9}-[0-9a-f]{12}$/);
    // The time part is a time-ordered id's (record-id.ts): it sorts after every message made before.
    assert.equal(summarySubject("turn-1", at).slice(4, 13), at.toString(36).padStart(9, "0"));
    assert.ok(summarySubject("turn-9", at) > `msg-${(at - 1).toString(36).padStart(9, "0")}-ffffffffffff`);
  });
});
