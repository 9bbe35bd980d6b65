import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type BaseEvent, EventType } from "@ag-ui/core";
import type { RecordedStep, TurnHead } from "../../../../shared/protocol/assistant.ts";
import type { ApprovalView } from "../approvals/approval-records.ts";
import type { TurnView } from "../assistant-host/conversation.ts";
import type { TurnFrame } from "../assistant-host/turn-host.ts";
import { TurnEvents } from "./turn-events.ts";
import type { TurnSource } from "./turn-source.ts";

const TURN = "turn-1";
const IDS = { threadId: "thread-1", runId: "run-1", turn: TURN, message: "msg-1", conversation: "main" };

/** A turn's records, changed by the test as the assistant would. */
class FakeTurn implements TurnSource {
  status: TurnHead["status"] | null = null;
  recorded: RecordedStep[] = [];
  approvals: ApprovalView[] = [];
  stepReads = 0;

  turn(): TurnView | null {
    return this.status === null ? null : ({ id: TURN, status: this.status, conversation: "main", message: "msg-1", error: null } as unknown as TurnView);
  }
  steps(): readonly RecordedStep[] {
    this.stepReads++;
    return [...this.recorded];
  }
  stepRecorded(_turn: string, n: number): boolean {
    return this.recorded.some((s) => s.n === n);
  }
  waiting(_turn: string, id?: string): ApprovalView | null {
    return this.approvals.find((a) => a.status === "waiting" && (id === undefined || a.id === id)) ?? null;
  }
  messages() {
    return [{ id: "msg-1", role: "user" as const, content: "hi" }];
  }
  model(text: string, calls: { id: string; name: string; args: string }[] = []): void {
    this.recorded.push({ n: this.recorded.length, body: { kind: "model", text, toolCalls: calls.map((c) => ({ id: c.id, name: c.name, argumentsJson: c.args })), stopReason: calls.length > 0 ? "tool_calls" : "end", model: "m1", connection: "local" }, tokensIn: 1, tokensOut: 1, ms: 1 });
  }
  tool(id: string, content: string): void {
    this.recorded.push({ n: this.recorded.length, body: { kind: "tool", toolCallId: id, name: "std_tasks_Open", content, isError: false }, tokensIn: 0, tokensOut: 0, ms: 1 });
  }
}

function follow(source: FakeTurn, resumed: string[] = []) {
  const events: BaseEvent[] = [];
  let ended = 0;
  const run = new TurnEvents(source, IDS, { emit: (e) => events.push(e), ended: () => ended++ });
  run.prime(resumed);
  const frame = (kind: TurnFrame["kind"], fields: Record<string, unknown>) => run.onFrame({ kind, fields: { turn: TURN, ...fields } });
  return { run, events, frame, ended: () => ended };
}

/** The events as `TYPE` or `TYPE:detail`, to compare in order. */
function shape(events: readonly BaseEvent[]): string[] {
  return events.map((e) => {
    const x = e as BaseEvent & Record<string, unknown>;
    if (x.type === "TEXT_MESSAGE_CONTENT") return `TEXT:${String(x.delta)}`;
    if (x.type.startsWith("TOOL_CALL_")) return `${x.type}:${String(x.toolCallId)}`;
    if (x.type === "STATE_SNAPSHOT") return `STATE:${String((x.snapshot as { status: string }).status)}`;
    return x.type;
  });
}

const waiting: ApprovalView = {
  id: "apv-1-2-0",
  kind: "tool",
  summary: "std.tasks.Create: {\"title\":\"x\"}",
  status: "waiting",
  sensitive: false,
  digest: "d",
  target: "std.tasks.Create",
  requestedBy: null,
  requestedAt: null,
  decidedBy: null,
  decidedAt: null,
  carriedOutAt: null,
  outcome: null,
  turn: TURN,
  expiresAt: "2030-01-01T00:00:00.000Z",
  session: null,
  payload: JSON.stringify({ tool: "std.tasks.Create", toolCallId: "call_ask", kind: "action", namespace: "std.tasks", member: "Create", subject: "task-1", args: { title: "x" }, idempotencyKey: "apv-1-2-0", dryRun: null }),
};

describe("a turn as the AG-UI events of a run", () => {
  it("streams text, and brings in a model call's tool calls and results, in the order the turn made them", () => {
    const source = new FakeTurn();
    const { events, frame, ended } = follow(source);
    assert.deepEqual(events, [], "a turn not yet made shows nothing");
    source.status = "queued";
    frame("turn", { status: "queued" });
    source.status = "running";
    frame("turn", { status: "running" });
    frame("text", { delta: "Let me " });
    frame("text", { delta: "look." });
    source.model("Let me look.", [{ id: "call_r", name: "std_tasks_Open", args: "{\"limit\":5}" }]);
    source.tool("call_r", "{\"rows\":[]}");
    frame("text", { delta: "Nothing is open." });
    source.model("Nothing is open.");
    source.status = "done";
    frame("turn", { status: "done" });
    assert.deepEqual(shape(events), [
      "STATE:queued",
      "STATE:running",
      "TEXT_MESSAGE_START",
      "TEXT:Let me ",
      "TEXT:look.",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START:call_r",
      "TOOL_CALL_ARGS:call_r",
      "TOOL_CALL_END:call_r",
      "TOOL_CALL_RESULT:call_r",
      "TEXT_MESSAGE_START",
      "TEXT:\n\n",
      "TEXT:Nothing is open.",
      "TEXT_MESSAGE_END",
      "STATE:done",
      "MESSAGES_SNAPSHOT",
      "RUN_FINISHED",
    ]);
    assert.equal(ended(), 1);
    const fields = events as unknown as Record<string, unknown>[];
    const ids = fields.flatMap((e) => (e.messageId === undefined ? [] : [String(e.messageId)]));
    assert.deepEqual([...new Set(ids)], ["msg-1.r", `${TURN}.s0001`], "the text is the reply's; a result is its step's");
    const start = fields.find((e) => e.type === EventType.TOOL_CALL_START) as { parentMessageId: string };
    assert.equal(start.parentMessageId, "msg-1.r", "tool calls go under the reply");
    frame("text", { delta: "late" });
    assert.equal(events.length, 17, "nothing after the run ended");
  });

  it("reads the steps only when a new model call starts or the status changes, not for every piece of text", () => {
    const source = new FakeTurn();
    const { frame } = follow(source);
    source.status = "running";
    const before = source.stepReads;
    for (let i = 0; i < 50; i++) frame("text", { delta: `w${i} ` });
    assert.equal(source.stepReads, before);
  });

  it("a turn waiting for an approval ends the run with the interrupt, after the snapshots", () => {
    const source = new FakeTurn();
    const { events, frame } = follow(source);
    source.status = "running";
    source.model("", [{ id: "call_ask", name: "std_tasks_Create", args: "{\"title\":\"x\"}" }]);
    source.approvals.push(waiting);
    source.status = "waiting-approval";
    frame("turn", { status: "waiting-approval", approval: waiting.id });
    assert.deepEqual(shape(events), ["TOOL_CALL_START:call_ask", "TOOL_CALL_ARGS:call_ask", "TOOL_CALL_END:call_ask", "STATE:waiting-approval", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
    const finished = events.at(-1) as unknown as { outcome: { type: string; interrupts: Record<string, unknown>[] } };
    assert.equal(finished.outcome.type, "interrupt");
    const [interrupt] = finished.outcome.interrupts;
    assert.equal(interrupt?.id, waiting.id);
    assert.equal(interrupt?.reason, "tool_call");
    assert.equal(interrupt?.toolCallId, "call_ask");
    assert.equal(interrupt?.expiresAt, waiting.expiresAt);
    assert.deepEqual((interrupt?.responseSchema as { required: string[] }).required, ["approved"]);
  });

  it("a resumed run shows only what came after the call it answers: the result, then the rest of the turn", () => {
    const source = new FakeTurn();
    source.status = "waiting-approval";
    source.model("Checking.", [
      { id: "call_read", name: "std_tasks_Open", args: "{}" },
      { id: "call_ask", name: "std_tasks_Create", args: "{\"title\":\"x\"}" },
    ]);
    source.tool("call_read", "{\"rows\":[]}");
    const { events, frame, run } = follow(source, ["call_ask"]);
    run.begin();
    assert.deepEqual(shape(events), ["STATE:waiting-approval"], "the approval decided, the turn is about to go on");
    source.tool("call_ask", "{\"done\":true}");
    source.status = "running";
    frame("turn", { status: "running" });
    frame("text", { delta: "Added." });
    source.model("Added.");
    source.status = "done";
    frame("turn", { status: "done" });
    // No call again, not the result shown before the turn stopped; the text joins the reply's.
    assert.deepEqual(shape(events), ["STATE:waiting-approval", "TOOL_CALL_RESULT:call_ask", "STATE:running", "TEXT_MESSAGE_START", "TEXT:\n\n", "TEXT:Added.", "TEXT_MESSAGE_END", "STATE:done", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
  });

  it("a resume sent again once the turn is over shows the rest of the turn from the records, then finishes", () => {
    const source = new FakeTurn();
    source.model("", [{ id: "call_ask", name: "std_tasks_Create", args: "{}" }]);
    source.tool("call_ask", "{\"done\":true}");
    source.model("Added it.");
    source.status = "done";
    const { events, run, ended } = follow(source, ["call_ask"]);
    run.begin();
    assert.deepEqual(shape(events), ["STATE:done", "TOOL_CALL_RESULT:call_ask", "TEXT_MESSAGE_START", "TEXT:Added it.", "TEXT_MESSAGE_END", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
    assert.equal(ended(), 1);
  });

  it("failed and cancelled turns are RUN_ERROR; the node's own stop closes an open text message first", () => {
    for (const [status, code] of [["failed", "turn-failed"], ["cancelled", "turn-cancelled"]] as const) {
      const source = new FakeTurn();
      const { events, frame } = follow(source);
      source.status = status;
      frame("turn", { status, error: "the model's server failed" });
      const last = events.at(-1) as unknown as { type: string; code: string; message: string };
      assert.equal(last.type, "RUN_ERROR");
      assert.equal(last.code, code);
    }
    const source = new FakeTurn();
    const { events, frame, run, ended } = follow(source);
    frame("text", { delta: "Once upon" });
    run.fail("run-timeout", "stopped following");
    assert.deepEqual(shape(events), ["TEXT_MESSAGE_START", "TEXT:Once upon", "TEXT_MESSAGE_END", "RUN_ERROR"]);
    assert.equal(ended(), 1);
    run.fail("run-timeout", "again");
    assert.equal(ended(), 1, "ends once");
  });

  it("frames of other turns are not this run's", () => {
    const source = new FakeTurn();
    const { events, run } = follow(source);
    run.onFrame({ kind: "text", fields: { turn: "turn-2", delta: "not mine" } });
    run.onFrame({ kind: "turn", fields: { turn: "turn-2", status: "done" } });
    assert.deepEqual(events, []);
  });
});
