/**
 * Asks and branches of the assistant end to end on a real node, against the OpenAI-protocol model
 * double: the model asks the person to choose (`ask_person`), the turn waits durably — through a
 * kill -9 of the assistant worker — and the person's answer resumes it (on AG-UI, an interrupt a
 * resume answers); cancelling withdraws the ask. A branch is opened from a message, its turns see the parent up to that message, and merging
 * it runs a summaries turn without tools whose text lands in the parent, idempotently, even when
 * the node stopped before writing it.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type BaseEvent, HttpAgent, type RunAgentParameters } from "@ag-ui/client";
import { lockOf, processState, waitFor } from "./helpers/charter-process.ts";
import { type AssistantNode, startAssistantNode } from "./helpers/assistant-node.ts";

const ASK = "ask_person";
const DRINKS = { question: "Which drink?", options: [{ label: "Tea" }, { label: "Coffee", description: "strong" }, { label: "Water" }] };

interface ChatRequest {
  model: string;
  tools?: { function: { name: string } }[];
  messages: { role: string; content: string }[];
}

describe("asks and branches on a real node", () => {
  let a: AssistantNode;

  before(async () => {
    a = await startAssistantNode({ "std.tasks.Open": "read" });
  });
  after(async () => {
    await a?.stop();
  });

  /** Says `text` (in `conversation`) and answers the turn's id. */
  async function say(text: string, conversation?: string): Promise<string> {
    const sent = await a.call("POST", "/api/messages", { text, ...(conversation === undefined ? {} : { conversation }) });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    return sent.body.turn as string;
  }

  function chats(): ChatRequest[] {
    return a.model.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.body as ChatRequest);
  }

  /** The user and assistant texts the model was given in a request (the system text and tool messages left out). */
  function texts(request: ChatRequest): string[] {
    return request.messages.filter((m) => (m.role === "user" || m.role === "assistant") && typeof m.content === "string" && m.content !== "").map((m) => m.content);
  }

  function lastToolMessage(): string {
    return String(chats().at(-1)!.messages.filter((m) => m.role === "tool").at(-1)?.content);
  }

  async function askOf(turn: string): Promise<Record<string, any>> {
    const all = await a.call("GET", "/api/asks?status=all&limit=200");
    return all.body.items.find((x: { turn: string }) => x.turn === turn);
  }

  it("the model asks the person to choose: an ask frame, GET /api/asks, the turn waits; the answer resumes it with the chosen label", async () => {
    a.model.reply({ toolCalls: [{ id: "call_a1", name: ASK, arguments: JSON.stringify(DRINKS) }] }, { text: ["Coffee it is."] });
    const turn = await say("Make me a drink");
    const waiting = await a.events.status(turn, "waiting-ask");
    const id = String(waiting.ask);
    assert.match(id, /^ask-.+-0-0$/);
    assert.ok(chats().at(-1)!.tools!.some((t) => t.function.name === ASK), "asking is offered");
    const opened = await waitFor("the ask frame", () => a.events.of("ask").find((f) => f.ask === id && f.status === "open"));
    assert.equal(opened.turn, turn);
    assert.equal(opened.question, "Which drink?");

    const listed = await a.call("GET", "/api/asks");
    assert.equal(listed.status, 200);
    const ask = listed.body.items.find((x: { id: string }) => x.id === id);
    assert.deepEqual(
      { turn: ask.turn, question: ask.question, options: ask.options, multiple: ask.multiple, allowOther: ask.allowOther, status: ask.status, answer: ask.answer, answeredAt: ask.answeredAt },
      { turn, question: "Which drink?", options: [{ label: "Tea", description: "" }, { label: "Coffee", description: "strong" }, { label: "Water", description: "" }], multiple: false, allowOther: false, status: "open", answer: null, answeredAt: null },
    );
    const hours = (Date.parse(ask.expiresAt) - Date.now()) / 3_600_000;
    assert.ok(hours > 23.9 && hours <= 24, `expires in ${hours} h`);
    assert.equal((await a.call("GET", `/api/turns/${turn}`)).body.status, "waiting-ask");
    assert.equal((await a.call("GET", "/api/bootstrap")).body.counts.asksWaiting, 1);

    // Bad answers are 400 naming the field, and change nothing.
    const bad = async (body: unknown, pointer: string) => {
      const answer = await a.call("POST", `/api/asks/${id}/answer`, body);
      assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.headers.get("content-type"), "application/problem+json");
      assert.ok(answer.body.errors.some((e: { pointer: string }) => e.pointer === pointer), JSON.stringify(answer.body.errors));
    };
    await bad({ choices: [3] }, "#/choices/0");
    await bad({ choices: [0, 1] }, "#/choices");
    await bad({ choices: [1], colour: "red" }, "#/colour");
    await bad({ text: "Lemonade" }, "#/text");
    await bad({ choices: "1" }, "#/choices");
    await bad({}, "#/choices");
    assert.equal((await a.call("GET", `/api/asks/${id}`)).body.status, "open");
    assert.equal((await a.call("GET", `/api/turns/${turn}`)).body.status, "waiting-ask");
    assert.equal((await a.call("POST", "/api/asks/ask-none/answer", { choices: [0] })).status, 404);
    assert.equal((await a.call("POST", "/api/data/act", { namespace: "std.conversation", action: "Answer", subject: id, args: { choices: [7], text: "", session: "x" } })).status, 403, "answered only at its route");

    const answered = await a.call("POST", `/api/asks/${id}/answer`, { choices: [1] });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    assert.equal(answered.body.status, "answered");
    assert.deepEqual(answered.body.answer, { choices: [1], labels: ["Coffee"], text: "" });
    assert.ok(answered.body.session !== null, "the answering session is recorded");
    await a.events.status(turn, "done");
    assert.deepEqual(JSON.parse(lastToolMessage()), { choices: ["Coffee"], text: "" }, "the model is given the chosen label");
    assert.ok(a.events.of("ask").some((f) => f.ask === id && f.status === "answered"));
    const reply = (await a.call("GET", "/api/messages")).body.items.find((m: { turn: string; role: string }) => m.turn === turn && m.role === "assistant");
    assert.equal(reply.text, "Coffee it is.");

    const again = await a.call("POST", `/api/asks/${id}/answer`, { choices: [0] });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, "ask-closed");
    assert.equal((await a.call("GET", "/api/asks")).body.items.filter((x: { id: string }) => x.id === id).length, 0, "no longer waiting");
    assert.equal((await askOf(turn)).answer.labels[0], "Coffee");
    assert.equal((await a.call("GET", "/api/asks?status=later")).status, 400);
  });

  it("cancelling a turn that waits for an ask withdraws the ask", async () => {
    a.model.reply({ toolCalls: [{ id: "call_c1", name: ASK, arguments: JSON.stringify({ ...DRINKS, question: "Which drink, again?" }) }] });
    const turn = await say("Another drink, please");
    const id = String((await a.events.status(turn, "waiting-ask")).ask);
    const cancelled = await a.call("POST", "/api/cancel", { turn });
    assert.equal(cancelled.status, 200);
    assert.deepEqual(cancelled.body.cancelled, [turn]);
    await a.events.status(turn, "cancelled");
    assert.equal((await a.call("GET", `/api/asks/${id}`)).body.status, "cancelled");
    await waitFor("the ask's cancelled frame", () => a.events.of("ask").find((f) => f.ask === id && f.status === "cancelled"));
    const late = await a.call("POST", `/api/asks/${id}/answer`, { choices: [0] });
    assert.equal(late.status, 409);
    assert.equal(late.body.code, "ask-closed");
    assert.equal((await a.call("GET", "/api/bootstrap")).body.counts.asksWaiting, 0);
  });

  it("kill -9 of the assistant worker while an ask waits: the answer resumes the turn in the next worker, and nothing is asked twice", async () => {
    const wizard = { question: "What goes in the basket?", options: [{ label: "Bread" }, { label: "Cheese" }, { label: "Wine" }], multiple: true, allowOther: true };
    a.model.reply({ toolCalls: [{ id: "call_k1", name: ASK, arguments: JSON.stringify(wizard) }] });
    const turn = await say("Pack a picnic");
    const id = String((await a.events.status(turn, "waiting-ask")).ask);
    const first = lockOf(a.node.dataDir).workers.assistant!;
    process.kill(first, "SIGKILL");
    await waitFor("the old assistant gone", () => (processState(first) === null ? true : undefined));
    const calls = chats().length;
    a.model.reply({ text: ["Packed: bread, wine and cake."] });
    const answered = await a.call("POST", `/api/asks/${id}/answer`, { choices: [2, 0], text: "and cake" });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    await a.events.status(turn, "done", 30_000);
    assert.notEqual(lockOf(a.node.dataDir).workers.assistant, first);
    assert.equal(chats().length, calls + 1, "one model call after the answer, none asking again");
    assert.deepEqual(JSON.parse(lastToolMessage()), { choices: ["Wine", "Bread"], text: "and cake" });
    const asks = (await a.call("GET", "/api/asks?status=all&limit=200")).body.items.filter((x: { turn: string }) => x.turn === turn);
    assert.equal(asks.length, 1, "asked once");
    assert.equal(a.events.of("ask").filter((f) => f.ask === id && f.status === "open").length, 1);
    const detail = await a.call("GET", `/api/turns/${turn}`);
    assert.deepEqual(
      detail.body.steps.map((s: { kind: string }) => s.kind),
      ["model", "tool", "model"],
    );
  });

  it("on AG-UI, a turn waiting for an ask ends its run with an input_required interrupt; a resume answers it and streams the rest", async () => {
    type Event = BaseEvent & Record<string, any>;
    const agent = new HttpAgent({ url: `${a.node.url}/copilotkit`, headers: { cookie: a.cookie, origin: a.api.origin }, threadId: "main" });
    const run = async (parameters: RunAgentParameters = {}, said?: string): Promise<Event[]> => {
      if (said !== undefined) agent.addMessage({ id: randomUUID(), role: "user", content: said });
      const events: Event[] = [];
      await agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(event as Event) });
      return events;
    };
    a.model.reply({ text: ["Let me ask. "], toolCalls: [{ id: "call_g1", name: ASK, arguments: JSON.stringify({ ...DRINKS, allowOther: true }) }] }, { text: ["Water, then."] });
    const first = await run({}, "A drink over AG-UI");
    const end = first.at(-1)!;
    assert.equal(end.type, "RUN_FINISHED", JSON.stringify(end));
    assert.equal(end.outcome.type, "interrupt");
    const interrupt = end.outcome.interrupts[0];
    assert.match(interrupt.id, /^ask-/);
    assert.equal(interrupt.reason, "input_required");
    assert.equal(interrupt.message, "Which drink?");
    assert.equal(interrupt.toolCallId, "call_g1");
    assert.deepEqual(interrupt.metadata.options.map((o: { label: string }) => o.label), ["Tea", "Coffee", "Water"]);
    assert.deepEqual(Object.keys(interrupt.responseSchema.properties).sort(), ["choices", "text"]);
    assert.equal((await a.call("GET", `/api/asks/${interrupt.id}`)).body.status, "open");

    const malformed = await run({ resume: [{ interruptId: interrupt.id, status: "resolved", payload: { choices: [9] } }] });
    assert.equal(malformed.at(-1)!.code, "interrupt-malformed", JSON.stringify(malformed.at(-1)));
    assert.equal((await a.call("GET", `/api/asks/${interrupt.id}`)).body.status, "open", "nothing answered");

    const resumed = await run({ resume: [{ interruptId: interrupt.id, status: "resolved", payload: { choices: [2] } }] });
    assert.equal(resumed.at(-1)!.type, "RUN_FINISHED", JSON.stringify(resumed.at(-1)));
    assert.equal(resumed.at(-1)!.outcome?.type ?? "success", "success");
    const result = resumed.find((e) => e.type === "TOOL_CALL_RESULT");
    assert.equal(result?.toolCallId, "call_g1");
    assert.deepEqual(JSON.parse(String(result?.content)), { choices: ["Water"], text: "" });
    assert.equal(resumed.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => String(e.delta)).join(""), "\n\nWater, then.", "the reply's text goes on after what the first run showed");
    const ask = (await a.call("GET", `/api/asks/${interrupt.id}`)).body;
    assert.deepEqual([ask.status, ask.answer.labels], ["answered", ["Water"]]);
    // Sent again: safe; answered otherwise: refused.
    assert.equal((await run({ resume: [{ interruptId: interrupt.id, status: "resolved", payload: { choices: [2] } }] })).at(-1)!.type, "RUN_FINISHED");
    assert.equal((await run({ resume: [{ interruptId: interrupt.id, status: "resolved", payload: { choices: [0] } }] })).at(-1)!.code, "interrupt-decided");
  });

  let branch = "";
  let lisbon = "";

  it("a branch opened from a message: its turns see the parent up to that message, then the branch", async () => {
    a.model.reply({ text: ["Lisbon in May is lovely."] }, { text: ["Noted the dentist."] });
    const trip = await say("Plan a trip to Lisbon");
    await a.events.status(trip, "done");
    await a.events.status(await say("Also book a dentist"), "done");
    const main = (await a.call("GET", "/api/messages?limit=200")).body.items as { id: string; turn: string; role: string; text: string }[];
    lisbon = main.find((m) => m.turn === trip && m.role === "assistant")!.id;

    const opened = await a.call("POST", "/api/branches", { from: lisbon, title: "Lisbon hotels" });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    branch = opened.body.id;
    assert.match(branch, /^branch-/);
    assert.deepEqual({ parent: opened.body.parent, from: opened.body.from, title: opened.body.title, status: opened.body.status }, { parent: "main", from: lisbon, title: "Lisbon hotels", status: "open" });
    assert.ok(opened.body.createdAt !== null);

    a.model.reply({ text: ["Try the Alfama."] });
    const inBranch = await say("Which hotels?", branch);
    await a.events.status(inBranch, "done");
    const given = texts(chats().at(-1)!);
    assert.deepEqual(given.slice(-3), ["Plan a trip to Lisbon", "Lisbon in May is lovely.", "Which hotels?"], "the parent up to the message, then the branch");
    assert.ok(!given.includes("Also book a dentist"), "nothing of the parent after the message");
    assert.ok(!given.includes("Noted the dentist."));
    const listed = (await a.call("GET", `/api/messages?conversation=${branch}`)).body.items.map((m: { role: string; text: string }) => [m.role, m.text]);
    assert.deepEqual(listed, [
      ["person", "Which hotels?"],
      ["assistant", "Try the Alfama."],
    ]);
    assert.ok(!(await a.call("GET", "/api/messages?limit=200")).body.items.some((m: { text: string }) => m.text === "Which hotels?"), "the branch's messages stay out of main");
    const branches = await a.call("GET", "/api/branches?status=open");
    assert.deepEqual(
      branches.body.items.map((b: { id: string }) => b.id),
      [branch],
    );
  });

  it("merging runs a summaries turn on its own model without tools; the summary lands in the parent and the branch is merged", async () => {
    assert.equal((await a.call("PUT", "/api/settings/models", { summaries: { connection: "local", model: "m2" } })).status, 200);
    a.model.reply({ text: ["Stay in the Alfama; ", "book by Friday."] });
    const merged = await a.call("POST", `/api/branches/${branch}/merge`, {});
    assert.equal(merged.status, 202, JSON.stringify(merged.body));
    const turn = merged.body.turn as string;
    assert.equal(merged.body.branch.status, "merging");
    assert.equal(merged.body.branch.mergeTurn, turn);
    await a.events.status(turn, "done");

    const request = chats().at(-1)!;
    assert.equal(request.model, "m2", "the summaries model");
    assert.deepEqual(request.tools ?? [], [], "no tools");
    const system = request.messages.find((m) => m.role === "system")!.content;
    assert.match(system, /summary of the side conversation/);
    assert.match(system, /Lisbon in May is lovely\./, "the message it was opened from");
    const given = texts(request);
    assert.deepEqual(given.slice(0, 2), ["Which hotels?", "Try the Alfama."]);
    assert.match(given.at(-1)!, /summary/);
    assert.ok(!given.includes("Also book a dentist"));

    const done = await waitFor("the branch merged", async () => {
      const b = (await a.call("GET", "/api/branches?status=merged")).body.items.find((x: { id: string }) => x.id === branch);
      return b?.status === "merged" ? b : undefined;
    });
    assert.ok(done.summary !== null && done.mergedAt !== null);
    const main = (await a.call("GET", "/api/messages?limit=200")).body.items as { id: string; role: string; text: string; branch: string | null; turn: string }[];
    const summary = main.at(-1)!;
    assert.deepEqual({ id: summary.id, role: summary.role, text: summary.text, branch: summary.branch, turn: summary.turn }, { id: done.summary, role: "assistant", text: "Stay in the Alfama; book by Friday.", branch, turn });
    assert.equal(main.filter((m) => m.branch === branch).length, 1, "one summary");
    assert.equal((await a.call("GET", `/api/messages?conversation=${branch}`)).body.items.length, 2, "no reply of the merge turn in the branch");
    assert.equal((await a.call("GET", `/api/turns/${turn}`)).body.origin, "merge");

    const twice = await a.call("POST", `/api/branches/${branch}/merge`, {});
    assert.equal(twice.status, 409);
    assert.equal(twice.body.code, "branch-not-open");
    const posted = await a.call("POST", "/api/messages", { text: "One more thing", conversation: branch });
    assert.equal(posted.status, 409);
    assert.equal(posted.body.code, "branch-not-open");
    assert.equal((await a.call("POST", `/api/branches/${branch}/close`, {})).status, 409);
  });

  it("a failed merge puts the branch back to open; an empty branch is not merged; a closed one takes nothing more", async () => {
    const opened = await a.call("POST", "/api/branches", { from: lisbon });
    assert.equal(opened.status, 201);
    const id = opened.body.id as string;
    assert.equal(opened.body.title, "Lisbon in May is lovely.", "titled after its message");
    const empty = await a.call("POST", `/api/branches/${id}/merge`, {});
    assert.equal(empty.status, 409);
    assert.equal(empty.body.code, "branch-empty");

    a.model.reply({ text: ["Porto by train."] });
    await a.events.status(await say("And Porto?", id), "done");
    a.model.reply({ error: { status: 400, message: "no summaries today" } });
    const merge = await a.call("POST", `/api/branches/${id}/merge`, {});
    assert.equal(merge.status, 202);
    await a.events.status(merge.body.turn, "failed", 30_000);
    await waitFor("the branch open again", async () => ((await a.call("GET", `/api/branches/${id}`)).body.status === "open" ? true : undefined));
    assert.ok(!(await a.call("GET", "/api/messages?limit=200")).body.items.some((m: { branch: string | null }) => m.branch === id), "no summary");

    const closed = await a.call("POST", `/api/branches/${id}/close`, {});
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    assert.equal(closed.body.status, "closed");
    assert.equal((await a.call("POST", "/api/messages", { text: "Still there?", conversation: id })).status, 409);
    assert.equal((await a.call("POST", `/api/branches/${id}/merge`, {})).status, 409);
    assert.deepEqual(
      (await a.call("GET", "/api/branches?status=closed")).body.items.map((b: { id: string }) => b.id),
      [id],
    );
  });

  it("a merge whose summary a stop left unwritten is finished, once, by the next GET /api/branches", async () => {
    // What a node stopped between a merge turn's end and its summary leaves: the turn done, the branch merging.
    const opened = await a.call("POST", "/api/branches", { from: lisbon, title: "Recovered" });
    const id = opened.body.id as string;
    const turn = `turn-${Date.now().toString(36).padStart(9, "0")}-0123456789ab`;
    const act = async (action: string, subject: string, args: Record<string, unknown>) => {
      const answer = await a.call("POST", "/api/data/act", { namespace: "std.conversation", action, subject, args });
      assert.equal(answer.status, 200, `${action}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.receipt.outcome, "accepted", `${action}: ${JSON.stringify(answer.body.receipt.reason)}`);
    };
    // Origin `merge-test`: no shape of the node's, so nothing of it runs but what this test writes.
    await act("Queue", turn, { conversation: id, message: "", origin: "merge-test" });
    await act("Merge", id, { turn });
    await act("Start", turn, { connection: "local", model: "m2" });
    const body = JSON.stringify({ kind: "model", text: "Recovered summary.", toolCalls: [], stopReason: "end", model: "m2", connection: "local" });
    await act("Record", `${turn}.s0000`, { turn, n: 0, kind: "model", body, tokens_in: 1, tokens_out: 1, ms: 1 });
    await act("Finish", turn, { reply: "", steps: 1, tokens_in: 1, tokens_out: 1 });
    assert.equal((await a.call("GET", `/api/branches/${id}`)).body.status, "merging");

    const listed = await a.call("GET", "/api/branches?status=merged");
    const recovered = listed.body.items.find((b: { id: string }) => b.id === id);
    assert.equal(recovered?.status, "merged", JSON.stringify(listed.body));
    const summaries = () => a.call("GET", "/api/messages?limit=200").then((r) => r.body.items.filter((m: { branch: string | null }) => m.branch === id));
    assert.deepEqual(
      (await summaries()).map((m: { id: string; text: string }) => [m.id, m.text]),
      [[recovered.summary, "Recovered summary."]],
    );
    // Looked at again (a second pass, a start): nothing is written twice.
    await a.call("GET", "/api/branches");
    assert.equal((await summaries()).length, 1);
  });

  it("bad input is a problem naming the field, and writes nothing", async () => {
    const count = (await a.call("GET", "/api/branches?limit=200")).body.items.length;
    const bad = async (method: string, path: string, body: unknown, status: number, pointer?: string) => {
      const answer = await a.call(method, path, body);
      assert.equal(answer.status, status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.headers.get("content-type"), "application/problem+json");
      if (pointer !== undefined) assert.ok(answer.body.errors.some((e: { pointer: string }) => e.pointer === pointer), JSON.stringify(answer.body));
    };
    await bad("POST", "/api/branches", {}, 400, "#/from");
    await bad("POST", "/api/branches", { from: 7 }, 400, "#/from");
    await bad("POST", "/api/branches", { from: lisbon, title: "x".repeat(201) }, 400, "#/title");
    await bad("POST", "/api/branches", { from: lisbon, colour: "red" }, 400, "#/colour");
    await bad("POST", "/api/branches", { from: "msg-none" }, 404);
    await bad("GET", "/api/branches?status=later", undefined, 400, "?status");
    await bad("GET", "/api/branches/branch-none", undefined, 404);
    await bad("POST", "/api/branches/branch-none/merge", {}, 404);
    await bad("POST", "/api/branches/branch-none/close", {}, 404);
    await bad("POST", `/api/branches/${branch}/merge`, { now: true }, 400, "#/now");
    await bad("POST", "/api/messages", { text: "hi", conversation: "side" }, 404);
    await bad("POST", "/api/messages", { text: "hi", conversation: "branch-none" }, 404);
    await bad("GET", "/api/asks/ask-none", undefined, 404);
    await bad("POST", "/api/asks/ask-none/answer", { choices: [0] }, 404);
    await bad("POST", "/api/asks/ask-none/answer", { choices: [0], extra: 1 }, 400, "#/extra");
    assert.equal((await a.call("GET", "/api/branches?limit=200")).body.items.length, count, "no branch was made");
  });
});
