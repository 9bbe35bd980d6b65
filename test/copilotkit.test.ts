/**
 * AG-UI on `/copilotkit` end to end: a real node with a signed-in person and the OpenAI-protocol
 * model double, talked to by `@ag-ui/client`'s `HttpAgent` (which also checks the event stream
 * against the protocol's rules). A run streams the turn's text and tool calls; a call waiting for
 * approval ends the run with an interrupt; a resume decides it as `POST /api/approvals/{id}` would,
 * once, and streams the rest of the turn; late, unknown and malformed resumes are `RUN_ERROR`; the
 * `/api` gate stands in front.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type BaseEvent, HttpAgent, type Interrupt, type RunAgentInput, type RunAgentParameters } from "@ag-ui/client";
import { type AssistantNode, startAssistantNode } from "./helpers/assistant-node.ts";
import { stopCharter, waitFor } from "./helpers/charter-process.ts";

const CREATE = "std_tasks_Create";
const OPEN = "std_tasks_Open";

type Event = BaseEvent & Record<string, any>;

describe("AG-UI on /copilotkit", () => {
  let a: AssistantNode;

  before(async () => {
    a = await startAssistantNode({ "std.tasks.Create": "ask", "std.tasks.Open": "read" });
  });
  after(async () => {
    await a?.stop();
  });

  function agent(path = "/copilotkit", headers: Record<string, string> = { cookie: a.cookie, origin: a.api.origin }): HttpAgent {
    return new HttpAgent({ url: `${a.node.url}${path}`, headers });
  }

  /** Runs `agent` (after the person says `text`, when given) and answers every event it streamed. */
  async function run(on: HttpAgent, text?: string, parameters: RunAgentParameters = {}): Promise<Event[]> {
    if (text !== undefined) on.addMessage({ id: randomUUID(), role: "user", content: text });
    const events: Event[] = [];
    await on.runAgent(parameters, { onEvent: ({ event }) => void events.push(event as Event) });
    return events;
  }

  const of = (events: readonly Event[], type: string) => events.filter((e) => e.type === type);
  const last = (events: readonly Event[]) => events.at(-1) as Event;
  const text = (events: readonly Event[]) => of(events, "TEXT_MESSAGE_CONTENT").map((e) => String(e.delta)).join("");

  /** Runs until the turn waits for an approval; answers the interrupt. */
  async function interrupted(on: HttpAgent, said: string): Promise<{ events: Event[]; interrupt: Interrupt }> {
    const events = await run(on, said);
    const end = last(events);
    assert.equal(end.type, "RUN_FINISHED", JSON.stringify(end));
    assert.equal(end.outcome?.type, "interrupt", JSON.stringify(end));
    return { events, interrupt: end.outcome.interrupts[0] as Interrupt };
  }

  /** The node's log lines (`DATA/logs/charter.log`). */
  const logLines = () =>
    readFileSync(join(a.node.dataDir, "logs", "charter.log"), "utf8")
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  const tasksTitled = async (title: string) => (await a.call("GET", "/api/tasks")).body.items.filter((t: { title: string }) => t.title === title);

  it("a run streams the turn's text and ends RUN_FINISHED; the conversation keeps both messages", async () => {
    a.model.reply({ text: ["Hel", "lo, ", "Ada."] });
    const on = agent();
    const events = await run(on, "Hi from AG-UI");
    assert.equal(events[0]?.type, "RUN_STARTED");
    assert.equal(events[0]?.threadId, on.threadId);
    assert.equal(text(events), "Hello, Ada.");
    assert.ok(of(events, "TEXT_MESSAGE_CONTENT").length >= 3, "the text came in pieces");
    const end = last(events);
    assert.equal(end.type, "RUN_FINISHED");
    assert.equal(end.outcome?.type, "success");
    assert.equal(of(events, "STATE_SNAPSHOT").at(-1)?.snapshot.status, "done");
    assert.equal(events.at(-2)?.type, "MESSAGES_SNAPSHOT");
    // The client's messages are the node's now: the person's message under its id, the reply as `<id>.r`.
    const mine = on.messages.find((m) => m.role === "user" && m.content === "Hi from AG-UI");
    assert.match(String(mine?.id), /^msg-/);
    const reply = on.messages.find((m) => m.id === `${mine?.id}.r`);
    assert.equal(reply?.content, "Hello, Ada.");
    const listed = (await a.call("GET", "/api/messages?limit=200")).body.items.filter((m: { id: string }) => m.id === mine?.id || m.id === `${mine?.id}.r`);
    assert.deepEqual(
      listed.map((m: { role: string; text: string }) => [m.role, m.text]),
      [
        ["person", "Hi from AG-UI"],
        ["assistant", "Hello, Ada."],
      ],
    );
    const turn = String(of(events, "STATE_SNAPSHOT")[0]?.snapshot.turn);
    await a.events.status(turn, "done");
    assert.equal(a.events.text(turn), "Hello, Ada.", "/api/events heard the same turn");
  });

  it("text, a read tool's call and result, and more text come in the order the turn made them", async () => {
    a.model.reply({ text: ["Let me look."], toolCalls: [{ id: "call_look", name: OPEN, arguments: JSON.stringify({ after: "", limit: 5 }) }] }, { text: ["Here ", "they are."] });
    const on = agent("/copilotkit/agent/charter/run");
    const events = await run(on, "What is open?");
    const order = events.filter((e) => e.type.startsWith("TEXT_MESSAGE_") || e.type.startsWith("TOOL_CALL_")).map((e) => (e.type === "TEXT_MESSAGE_CONTENT" ? `${e.type}:${e.delta}` : e.type));
    assert.deepEqual(order, [
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT:Let me look.",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "TOOL_CALL_RESULT",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT:\n\n",
      "TEXT_MESSAGE_CONTENT:Here ",
      "TEXT_MESSAGE_CONTENT:they are.",
      "TEXT_MESSAGE_END",
    ]);
    assert.equal(of(events, "TOOL_CALL_START")[0]?.toolCallName, OPEN);
    assert.equal(of(events, "TOOL_CALL_START")[0]?.toolCallId, "call_look");
    assert.match(String(of(events, "TOOL_CALL_RESULT")[0]?.content), /"rows"/);
    assert.equal(last(events).type, "RUN_FINISHED");
    // The streamed reply is the recorded one.
    const reply = on.messages.find((m) => m.role === "assistant" && m.content?.startsWith("Let me look."));
    const recorded = (await a.call("GET", "/api/messages?limit=200")).body.items.find((m: { id: string }) => m.id === reply?.id);
    assert.equal(recorded.text, "Let me look.\n\nHere they are.");
    assert.equal(reply?.content, recorded.text);
  });

  it("a call to an ask action ends the run with an interrupt; a resume approving it carries it out once, signed by the person", async () => {
    a.model.reply({ toolCalls: [{ id: "call_oat", name: CREATE, arguments: JSON.stringify({ title: "Oat milk via AG-UI" }) }] }, { text: ["Added ", "it."] });
    const on = agent();
    const { events, interrupt } = await interrupted(on, "Remind me to buy oat milk");
    assert.match(interrupt.id, /^apv-/);
    assert.equal(interrupt.reason, "tool_call");
    assert.equal(interrupt.toolCallId, "call_oat");
    assert.ok(interrupt.expiresAt !== undefined && Date.parse(interrupt.expiresAt) > Date.now(), String(interrupt.expiresAt));
    assert.deepEqual(on.pendingInterrupts.map((i) => i.id), [interrupt.id]);
    assert.deepEqual(of(events, "TOOL_CALL_START").map((e) => e.toolCallId), ["call_oat"]);
    assert.equal(JSON.parse(of(events, "TOOL_CALL_ARGS").map((e) => e.delta).join("")).title, "Oat milk via AG-UI");
    assert.equal(of(events, "STATE_SNAPSHOT").at(-1)?.snapshot.status, "waiting-approval");
    assert.equal(events.at(-2)?.type, "MESSAGES_SNAPSHOT", "the snapshot comes before the interrupt");
    const approval = (await a.call("GET", `/api/approvals/${interrupt.id}`)).body;
    assert.equal(approval.status, "waiting");
    assert.equal(approval.expiresAt, interrupt.expiresAt);
    assert.equal((await tasksTitled("Oat milk via AG-UI")).length, 0, "nothing is written before the person decides");

    const resumed = await run(on, undefined, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] });
    assert.equal(last(resumed).type, "RUN_FINISHED", JSON.stringify(last(resumed)));
    assert.equal(last(resumed).outcome?.type, "success");
    assert.equal(of(resumed, "TOOL_CALL_START").length, 0, "the call is not made again");
    const result = of(resumed, "TOOL_CALL_RESULT");
    assert.deepEqual(result.map((e) => e.toolCallId), ["call_oat"]);
    assert.match(String(result[0]?.content), /"receipt"/);
    assert.equal(text(resumed), "Added it.");
    assert.deepEqual(on.pendingInterrupts, []);

    const tasks = await tasksTitled("Oat milk via AG-UI");
    assert.equal(tasks.length, 1);
    const task = (await a.call("GET", `/api/personal/std.tasks/Task/${tasks[0].id}`)).body;
    assert.deepEqual(
      task.history.items.map((h: { action: string; signer: string }) => [h.action, h.signer]),
      [["Create", a.person]],
      "the approved command, signed by the person",
    );
    const decided = (await a.call("GET", `/api/approvals/${interrupt.id}`)).body;
    assert.equal(decided.status, "approved");
    assert.equal(decided.decidedBy, a.person);
    const current = (await a.call("GET", "/api/account/sessions")).body.items.find((s: { current: boolean }) => s.current);
    assert.equal(decided.session, current.id, "the deciding session is recorded");
    assert.match(String(decided.outcome), /^accepted/);

    // The same resume again: nothing is decided twice, the turn is streamed on.
    const again = await run(on, undefined, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] });
    assert.equal(last(again).type, "RUN_FINISHED", JSON.stringify(last(again)));
    assert.equal(of(again, "RUN_ERROR").length, 0);
    assert.equal((await tasksTitled("Oat milk via AG-UI")).length, 1, "carried out once");
    const history = (await a.call("GET", `/api/personal/std.approvals/Approval/${interrupt.id}`)).body.history.items.map((h: { action: string }) => h.action);
    assert.equal(history.filter((x: string) => x === "Approve").length, 1, JSON.stringify(history));
    assert.equal((await a.call("GET", `/api/approvals/${interrupt.id}`)).body.decidedAt, decided.decidedAt);

    // Too late to deny it, and an interrupt the node never made.
    const late = await run(on, undefined, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: false } }] });
    assert.equal(last(late).type, "RUN_ERROR");
    assert.equal(last(late).code, "interrupt-decided");
    assert.match(String(last(late).message), /approved already/);
    const unknown = await run(on, undefined, { resume: [{ interruptId: "apv-no-such", status: "resolved", payload: { approved: true } }] });
    assert.equal(last(unknown).type, "RUN_ERROR");
    assert.equal(last(unknown).code, "interrupt-unknown");
    // A thread naming another conversation (a branch of main) speaks there, and cannot answer main's interrupts.
    const from = (await a.call("GET", "/api/messages?limit=1")).body.items[0].id as string;
    const branch = (await a.call("POST", "/api/branches", { from })).body.id as string;
    a.model.reply({ text: ["On the side."] });
    const side = await a.call("POST", "/api/messages", { text: "A side conversation", conversation: branch });
    await a.events.status(side.body.turn, "done");
    const elsewhere = new HttpAgent({ url: `${a.node.url}/copilotkit`, headers: { cookie: a.cookie, origin: a.api.origin }, threadId: branch });
    const other = await run(elsewhere, undefined, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] });
    assert.equal(last(other).code, "interrupt-other-thread", JSON.stringify(last(other)));
    a.model.reply({ text: ["Still on the side."] });
    const said = await run(elsewhere, "More on the side");
    assert.equal(of(said, "STATE_SNAPSHOT")[0]?.snapshot.conversation, branch);
    assert.deepEqual(of(said, "MESSAGES_SNAPSHOT").at(-1)?.messages.map((m: { content: string }) => m.content), ["A side conversation", "On the side.", "More on the side", "Still on the side."]);
    assert.equal((await a.call("GET", `/api/approvals/${interrupt.id}`)).body.status, "approved", "still approved");
  });

  it("a resume denying the call (or cancelling it) tells the model, and writes nothing", async () => {
    for (const [title, entry] of [
      ["Never this", { status: "resolved", payload: { approved: false } }],
      ["Nor this", { status: "cancelled" }],
    ] as const) {
      a.model.reply({ toolCalls: [{ id: `call_${title.length}`, name: CREATE, arguments: JSON.stringify({ title }) }] }, { text: ["Understood."] });
      const on = agent();
      const { interrupt } = await interrupted(on, `Add "${title}", which I will refuse`);
      const denied = await run(on, undefined, { resume: [{ interruptId: interrupt.id, ...entry }] });
      assert.equal(last(denied).type, "RUN_FINISHED", JSON.stringify(last(denied)));
      assert.match(String(of(denied, "TOOL_CALL_RESULT")[0]?.content), /declined/);
      assert.equal(text(denied), "Understood.");
      assert.equal((await a.call("GET", `/api/approvals/${interrupt.id}`)).body.status, "denied");
      assert.equal((await tasksTitled(title)).length, 0);
    }
  });

  it("a payload the interrupt does not take is RUN_ERROR and decides nothing; edited arguments replace the proposed ones", async () => {
    a.model.reply({ toolCalls: [{ id: "call_edit", name: CREATE, arguments: JSON.stringify({ title: "Draft title" }) }] }, { text: ["Done."] });
    const on = agent();
    const { interrupt } = await interrupted(on, "Add a task, I will edit it");
    assert.ok((interrupt.responseSchema as { properties: Record<string, unknown> }).properties.editedArgs !== undefined, "an action offers edits");
    for (const payload of [{ approved: "yes" }, { approved: true, editedArgs: "a title" }]) {
      const bad = await run(on, undefined, { resume: [{ interruptId: interrupt.id, status: "resolved", payload }] });
      assert.equal(last(bad).type, "RUN_ERROR");
      assert.equal(last(bad).code, "interrupt-malformed", JSON.stringify(last(bad)));
    }
    const refused = await run(on, undefined, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true, editedArgs: { title: "" } } }] });
    assert.equal(last(refused).type, "RUN_ERROR", "the contract refuses the edited call: nothing is decided");
    assert.equal((await a.call("GET", `/api/approvals/${interrupt.id}`)).body.status, "waiting");
    const edited = await run(on, undefined, { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true, editedArgs: { title: "Edited via AG-UI" } } }] });
    assert.equal(last(edited).type, "RUN_FINISHED", JSON.stringify(last(edited)));
    assert.equal((await tasksTitled("Edited via AG-UI")).length, 1);
    assert.equal((await tasksTitled("Draft title")).length, 0);
  });

  it("a sensitive call needs the step-up: a bad assertion decides nothing; one in the resume's metadata approves, and is kept as evidence", async () => {
    const marked = await a.call("PUT", "/api/settings/tools", { sensitive: { "std.tasks.Create": true } });
    assert.equal(marked.status, 200, JSON.stringify(marked.body));
    try {
      a.model.reply({ toolCalls: [{ id: "call_sens", name: CREATE, arguments: JSON.stringify({ title: "Sensitive via AG-UI" }) }] }, { text: ["Done."] });
      const on = agent();
      const { interrupt } = await interrupted(on, "Add a sensitive task");
      assert.equal(interrupt.metadata?.sensitive, true);
      const approve = { interruptId: interrupt.id, status: "resolved" as const, payload: { approved: true } };
      const bad = await run(on, undefined, { resume: [{ ...approve, metadata: { stepUp: { response: { id: "x", type: "public-key", response: {} } } } }] });
      assert.equal(last(bad).type, "RUN_ERROR");
      assert.match(String(last(bad).message), /step-up/);
      assert.equal((await a.call("GET", `/api/approvals/${interrupt.id}`)).body.status, "waiting");
      const begin = await a.call("POST", "/api/account/stepup/begin", {});
      const response = a.auth.get(begin.body.options, a.api.origin);
      const good = await run(on, undefined, { resume: [{ ...approve, metadata: { stepUp: { response } } }] });
      assert.equal(last(good).type, "RUN_FINISHED", JSON.stringify(last(good)));
      assert.equal((await tasksTitled("Sensitive via AG-UI")).length, 1);
      const record = (await a.call("GET", `/api/personal/std.approvals/Approval/${interrupt.id}`)).body.record;
      assert.equal(JSON.parse(record.state.evidence).signature, response.response.signature, "the assertion sent with the resume");
    } finally {
      await a.call("PUT", "/api/settings/tools", { sensitive: { "std.tasks.Create": false } });
    }
  });

  it("the /api gate stands in front: no session 401, a wrong Origin 403, a body that is not a RunAgentInput 400 naming the field", async () => {
    const input = (messages: unknown[]): RunAgentInput => ({ threadId: "t-1", runId: randomUUID(), messages: messages as RunAgentInput["messages"], tools: [], context: [] });
    const hello = [{ id: "u1", role: "user", content: "hello" }];
    /** The HTTP failure of a run: its status and its problem document. */
    const failure = async (on: HttpAgent, body: RunAgentInput) => {
      const events: BaseEvent[] = [];
      const error = await new Promise<{ status?: number; payload?: unknown }>((resolve) => on.run(body).subscribe({ next: (e) => void events.push(e), error: resolve, complete: () => resolve({}) }));
      assert.deepEqual(events, [], "nothing streamed");
      // The client parses only `application/json` bodies; a problem document is `application/problem+json`.
      return { status: error.status, payload: (typeof error.payload === "string" ? JSON.parse(error.payload) : error.payload) as any };
    };
    const anonymous = await failure(agent("/copilotkit", { origin: a.api.origin }), input(hello));
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.payload?.code, "unauthenticated");
    const elsewhere = await failure(agent("/copilotkit/agent/charter/run", { cookie: a.cookie, origin: "http://evil.example" }), input(hello));
    assert.equal(elsewhere.status, 403);
    assert.equal(elsewhere.payload?.code, "bad-origin");
    const silent = await failure(agent(), input([{ id: "a1", role: "assistant", content: "hi" }]));
    assert.equal(silent.status, 400);
    assert.deepEqual(silent.payload?.errors.map((e: { pointer: string }) => e.pointer), ["#/messages"]);
    // A message over the contract's length is the contract's refusal, in the stream; nothing is said.
    const before = (await a.call("GET", "/api/messages?limit=200")).body.items.length;
    const long = await run(agent(), "x".repeat(40_000));
    assert.equal(last(long).type, "RUN_ERROR");
    assert.equal(last(long).code, "refused");
    assert.match(String(last(long).message), /text_too_long/);
    assert.equal((await a.call("GET", "/api/messages?limit=200")).body.items.length, before);
    // What HttpAgent would never send (it drops what it does not know), sent as is.
    const untyped = await a.call("POST", "/copilotkit", { threadId: 7, runId: "r", messages: "no" });
    assert.equal(untyped.status, 400);
    assert.deepEqual(untyped.body.errors.map((e: { pointer: string }) => e.pointer).sort(), ["#/messages", "#/threadId"]);
    const robot = await a.call("POST", "/copilotkit", { threadId: "t", runId: "r", messages: [{ id: "u1", role: "robot", content: "beep" }] });
    assert.equal(robot.status, 400);
    assert.ok(robot.body.errors.some((e: { pointer: string }) => e.pointer.startsWith("#/messages/0")), JSON.stringify(robot.body));
    const extra = await a.call("POST", "/copilotkit", { threadId: "t", runId: "r", messages: hello, prompt: "x" });
    assert.equal(extra.status, 400);
    assert.deepEqual(extra.body.errors, [{ pointer: "#/prompt", detail: "unknown field" }]);
  });

  it("a client going away stops the run following its turn; the turn goes on", async () => {
    a.model.reply({ text: ["Once ", "upon ", "a ", "time"], stallAfter: 2 });
    const on = agent();
    let turn = "";
    on.addMessage({ id: randomUUID(), role: "user", content: "Tell me a long story, then hang up" });
    await on.runAgent(
      {},
      {
        onEvent: ({ event }) => {
          const e = event as Event;
          if (e.type === "STATE_SNAPSHOT") turn = String(e.snapshot.turn);
          if (e.type === "TEXT_MESSAGE_CONTENT") on.abortRun();
        },
      },
    );
    assert.match(turn, /^turn-/);
    const stopped = await waitFor("the run to stop following", () => logLines().find((l) => l.msg === "an AG-UI run stopped following its turn" && l.turn === turn));
    assert.equal(stopped.why, "the client went away");
    assert.equal((await a.call("GET", `/api/turns/${turn}`)).body.status, "running", "the turn goes on without the client");
    assert.deepEqual((await a.call("POST", "/api/cancel", { turn })).body.cancelled, [turn]);
    await a.events.status(turn, "cancelled");
  });

  it("with no model configured a run is RUN_ERROR no-model, and nothing is said", async () => {
    const removed = await a.call("DELETE", "/api/connections/local/key");
    assert.ok(removed.status === 204 || removed.status === 200, JSON.stringify(removed.body));
    const before = (await a.call("GET", "/api/messages?limit=200")).body.items.length;
    const events = await run(agent(), "Anyone there?");
    assert.equal(last(events).type, "RUN_ERROR");
    assert.equal(last(events).code, "no-model");
    assert.equal((await a.call("GET", "/api/messages?limit=200")).body.items.length, before);
  });
  it("the node stopping ends an open run with RUN_ERROR rather than wait for its turn (the last test: it stops the node)", async () => {
    const restored = await a.call("PUT", "/api/connections/local/key", { provider: "openai", key: "", baseUrl: a.model.baseURL, memory: true });
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    await a.call("PUT", "/api/settings/models", { conversation: { connection: "local", model: "m1" } });
    a.model.reply({ text: ["Never ", "ending ", "story"], stallAfter: 2 });
    const on = agent();
    let streaming: () => void = () => {};
    const started = new Promise<void>((resolve) => (streaming = resolve));
    on.addMessage({ id: randomUUID(), role: "user", content: "Talk until the node stops" });
    const events: Event[] = [];
    const running = on.runAgent({}, { onEvent: ({ event }) => void (events.push(event as Event), event.type === "TEXT_MESSAGE_CONTENT" && streaming()) });
    await Promise.race([started, running.then(() => assert.fail(`the run ended before it streamed: ${JSON.stringify(events.at(-1))}`))]);
    const stopped = await stopCharter(a.node);
    await running;
    assert.equal(stopped.code, 0);
    assert.equal(last(events).type, "RUN_ERROR", JSON.stringify(last(events)));
    assert.equal(last(events).code, "unavailable");
    // The model never answers: a gateway that waited for the turn would be killed at the drain deadline.
    const log = readFileSync(join(a.node.dataDir, "logs", "charter.log"), "utf8");
    assert.doesNotMatch(log, /did not drain in time/, "every worker drained: the open run was ended, not waited for");
  });
});
