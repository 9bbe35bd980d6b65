/**
 * The assistant end to end on a real node: the person says something, the assistant worker runs
 * the turn against a model double speaking OpenAI's protocol, text streams on `/api/events`; tool
 * calls are checked against the tool modes and the contract, wait for the person's approval, and
 * run as receipted commands signed by the person; cancel, provider failures, and kill -9 of the
 * assistant worker mid-turn and mid-approval.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lockOf, processState, waitFor } from "./helpers/charter-process.ts";
import { type AssistantNode, startAssistantNode } from "./helpers/assistant-node.ts";

const CREATE = "std_tasks_Create";
const OPEN = "std_tasks_Open";
const COMPLETE = "std_tasks_Complete";

describe("the assistant on a real node", () => {
  let a: AssistantNode;

  before(async () => {
    a = await startAssistantNode({ "std.tasks.Create": "ask", "std.tasks.Open": "read" });
  });
  after(async () => {
    await a?.stop();
  });

  /** Says `text` and answers the turn's id. */
  async function say(text: string): Promise<string> {
    const sent = await a.call("POST", "/api/messages", { text });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    assert.match(sent.body.id, /^msg-/);
    return sent.body.turn as string;
  }

  /** The tools the model was offered in its `n`th request (from the end when negative). */
  function offered(n: number): string[] {
    const request = a.model.requests.filter((r) => r.path === "/v1/chat/completions").at(n);
    return ((request?.body?.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
  }

  function lastToolMessage(): { content: string } | undefined {
    const request = a.model.requests.filter((r) => r.path === "/v1/chat/completions").at(-1);
    return (request?.body?.messages as { role: string; content: string }[]).filter((m) => m.role === "tool").at(-1);
  }

  it("streams a turn's text on /api/events and keeps the reply in the conversation", async () => {
    a.model.reply({ text: ["Hel", "lo, ", "Ada."], usage: { prompt: 12, completion: 3 } });
    const turn = await say("Hi there");
    await a.events.status(turn, "done");
    assert.equal(a.events.text(turn), "Hello, Ada.");
    assert.ok(a.events.of("text", turn).length >= 3, "the text came in pieces");
    const messages = await a.call("GET", "/api/messages");
    const mine = messages.body.items.filter((m: { turn: string }) => m.turn === turn);
    assert.deepEqual(
      mine.map((m: { role: string; text: string; status: string }) => [m.role, m.text, m.status]),
      [
        ["person", "Hi there", "complete"],
        ["assistant", "Hello, Ada.", "complete"],
      ],
    );
    const detail = await a.call("GET", `/api/turns/${turn}`);
    assert.equal(detail.body.status, "done");
    // The turn's frames come in the order it went through them: queued before it ran.
    const statuses = a.events.of("turn", turn).map((f) => f.status);
    assert.equal(statuses[0], "queued", statuses.join(", "));
    assert.equal(statuses.at(-1), "done", statuses.join(", "));
    assert.equal(detail.body.model, "m1");
    assert.equal(detail.body.tokensIn, 12);
    assert.equal(detail.body.steps.length, 1);
    // The model saw the person's words, and tools only as their modes allow.
    const request = a.model.requests.at(-1)!;
    assert.equal(request.body.messages.at(-1).content, "Hi there");
    assert.ok(offered(-1).includes(CREATE) && offered(-1).includes(OPEN));
    assert.ok(!offered(-1).includes(COMPLETE), "an off tool is never offered");
  });

  it("the model is told of a message's attachments: names, and a small text file's contents", async () => {
    const upload = async (name: string, type: string, bytes: Buffer) => {
      const answer = await fetch(`${a.node.url}/api/library?name=${encodeURIComponent(name)}`, { method: "POST", headers: { cookie: a.cookie, origin: a.api.origin, "content-type": type }, body: new Uint8Array(bytes) });
      assert.equal(answer.status, 201);
      return ((await answer.json()) as { id: string }).id;
    };
    const notes = await upload("shopping.md", "text/markdown", Buffer.from("- oat milk\n- bread\n"));
    const photo = await upload("photo.jpg", "image/jpeg", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]));
    a.model.reply({ text: ["Got them."] });
    const sent = await a.call("POST", "/api/messages", { text: "Here are my files", attachments: [notes, photo] });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    await a.events.status(sent.body.turn as string, "done");
    const content = String(a.model.requests.filter((r) => r.path === "/v1/chat/completions").at(-1)?.body.messages.at(-1).content);
    assert.match(content, /^Here are my files\n\nAttached file "shopping\.md" \(text\/markdown, 19 bytes/);
    assert.ok(content.includes("- oat milk\n- bread"), content);
    assert.match(content, /Attached file "photo\.jpg" \(image\/jpeg, 7 bytes, library id file-[^)]+\)\.$/);
  });

  it("a call to an ask action waits for approval; approving signs it as the person, with a receipt, and the turn goes on", async () => {
    a.model.reply({ toolCalls: [{ id: "call_1", name: CREATE, arguments: JSON.stringify({ title: "Buy oat milk" }) }] }, { text: ["Added it."] });
    const turn = await say("Remind me to buy oat milk");
    const waiting = await a.events.status(turn, "waiting-approval");
    const approvalId = String(waiting.approval);
    const listed = await a.call("GET", "/api/approvals");
    const approval = listed.body.items.find((x: { id: string }) => x.id === approvalId);
    assert.equal(approval.kind, "tool");
    assert.equal(approval.turn, turn);
    assert.ok(approval.expiresAt !== null);
    // Announced on /api/events as an `approval` frame; the approval's kind is `approvalKind`.
    const frame = await waitFor("the approval frame", () => a.events.of("approval").find((f) => f.approval === approvalId));
    assert.deepEqual([frame.approvalKind, frame.status, frame.turn], ["tool", "waiting", turn]);
    const shown = await a.call("GET", `/api/approvals/${approvalId}`);
    const command = JSON.parse(shown.body.payload);
    assert.equal(command.namespace, "std.tasks");
    assert.equal(command.member, "Create");
    assert.equal(command.args.title, "Buy oat milk");
    assert.equal(command.dryRun.title, "Buy oat milk", "the dry run's state is shown");
    // Nothing is written before the person decides.
    assert.equal((await a.call("GET", "/api/tasks")).body.items.filter((t: { title: string }) => t.title === "Buy oat milk").length, 0);

    const decided = await a.call("POST", `/api/approvals/${approvalId}`, { approve: true });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    assert.equal(decided.body.receipt.namespace, "std.tasks");
    assert.equal(decided.body.receipt.action, "Create");
    assert.equal(decided.body.receipt.outcome, "accepted");
    assert.equal(decided.body.receipt.signer, a.person, "the person signs the approved command");
    assert.equal(decided.body.decision.receipt.action, "Approve");
    assert.equal(decided.body.approval.decidedBy, a.person);
    assert.ok(decided.body.approval.session !== null, "the deciding session is recorded");
    await a.events.status(turn, "done");
    assert.match(lastToolMessage()!.content, /"receipt"/);
    const tasks = (await a.call("GET", "/api/tasks")).body.items.filter((t: { title: string }) => t.title === "Buy oat milk");
    assert.equal(tasks.length, 1);
    const activity = await a.call("GET", `/api/activity?turn=${turn}`);
    assert.equal(activity.body.items[0].tool, "std.tasks.Create");
    assert.equal(activity.body.items[0].status, "approved");
    assert.match(activity.body.items[0].outcome, /^accepted/);
    // Deciding twice is the contract's refusal.
    assert.equal((await a.call("POST", `/api/approvals/${approvalId}`, { approve: true })).status, 422);
  });

  it("a denial goes back to the model, and nothing is written", async () => {
    a.model.reply({ toolCalls: [{ id: "call_d", name: CREATE, arguments: JSON.stringify({ title: "Never this" }) }] }, { text: ["Understood."] });
    const turn = await say("Add a task I will refuse");
    const waiting = await a.events.status(turn, "waiting-approval");
    const denied = await a.call("POST", `/api/approvals/${String(waiting.approval)}`, { approve: false });
    assert.equal(denied.status, 200);
    assert.equal(denied.body.denied, true);
    await a.events.status(turn, "done");
    assert.match(lastToolMessage()!.content, /declined/);
    assert.equal((await a.call("GET", "/api/tasks")).body.items.filter((t: { title: string }) => t.title === "Never this").length, 0);
  });

  it("approve with edits dry-runs the edited arguments; a refused edit decides nothing", async () => {
    a.model.reply({ toolCalls: [{ id: "call_e", name: CREATE, arguments: JSON.stringify({ title: "Draft title" }) }] }, { text: ["Done."] });
    const turn = await say("Add a task, I will edit it");
    const id = String((await a.events.status(turn, "waiting-approval")).approval);
    const refused = await a.call("POST", `/api/approvals/${id}`, { approve: true, editedArgs: { title: "" } });
    assert.equal(refused.status, 422);
    assert.equal((await a.call("GET", `/api/approvals/${id}`)).body.status, "waiting");
    const edited = await a.call("POST", `/api/approvals/${id}`, { approve: true, editedArgs: { title: "Edited title" } });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.receipt.state.title, "Edited title");
    await a.events.status(turn, "done");
    const activity = await a.call("GET", `/api/activity?turn=${turn}`);
    assert.equal(activity.body.items[0].editedArgs.title, "Edited title");
    assert.equal(activity.body.items[0].args.title, "Draft title", "what the model proposed stays on record");
  });

  it("a read tool runs at once; a call the contract refuses, an off tool and bad arguments go back to the model with the reason", async () => {
    a.model.reply(
      { toolCalls: [{ id: "call_r", name: OPEN, arguments: JSON.stringify({ after: "", limit: 5 }) }] },
      { toolCalls: [{ id: "call_x", name: CREATE, arguments: JSON.stringify({ title: "x", priority: 9 }) }] },
      { toolCalls: [{ id: "call_o", name: COMPLETE, arguments: JSON.stringify({ subject: "task-1" }) }] },
      { toolCalls: [{ id: "call_b", name: CREATE, arguments: "{not json" }] },
      { text: ["I see."] },
    );
    const turn = await say("What is open?");
    await a.events.status(turn, "done");
    const calls = a.model.requests.filter((r) => r.path === "/v1/chat/completions").slice(-4);
    const toolText = (i: number) => (calls[i]!.body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool").at(-1)!.content;
    assert.match(toolText(0), /"rows"/);
    assert.match(toolText(0), /Buy oat milk/);
    assert.match(toolText(1), /refuses std\.tasks\.Create/);
    assert.match(toolText(2), /turned it off|no tool/i);
    assert.match(toolText(3), /arguments/);
    const approvals = await a.call("GET", `/api/activity?turn=${turn}`);
    assert.equal(approvals.body.items.length, 0, "nothing was put to the person");
  });

  it("cancel stops a streaming turn whose model never finishes, keeping the partial text", async () => {
    // The model stalls after two chunks and never ends the stream: only the cancel ends this turn.
    a.model.reply({ text: ["Once ", "upon ", "a ", "time"], stallAfter: 2 });
    const turn = await say("Tell me a long story");
    await waitFor("the first words", () => (a.events.text(turn).length > 0 ? true : undefined));
    const cancelled = await a.call("POST", "/api/cancel", {});
    assert.equal(cancelled.status, 200);
    assert.ok(cancelled.body.cancelled.includes(turn));
    await a.events.status(turn, "cancelled");
    const reply = (await a.call("GET", "/api/messages")).body.items.find((m: { turn: string; role: string }) => m.turn === turn && m.role === "assistant");
    assert.equal(reply.status, "partial");
    assert.ok(reply.text.startsWith("Once"));
  });

  it("a 429 with retry-after is waited out; a server failing every time fails the turn with its kind, and retry runs it again", async () => {
    a.model.reply({ error: { status: 429, headers: { "retry-after": "0" } } }, { text: ["After the wait."] });
    const ok = await say("First try");
    await a.events.status(ok, "done");
    assert.equal(a.events.text(ok), "After the wait.");
    a.model.reply({ error: { status: 500 } }, { error: { status: 500 } }, { error: { status: 500 } }, { error: { status: 500 } });
    const failed = await say("Second try");
    const frame = await a.events.status(failed, "failed", 30_000);
    assert.match(String(frame.error), /500|server/i);
    const detail = await a.call("GET", `/api/turns/${failed}`);
    assert.equal(detail.body.error.kind, "server");
    a.model.reply({ text: ["Back again."] });
    const retried = await a.call("POST", `/api/turns/${failed}/retry`, {});
    assert.equal(retried.status, 202);
    await waitFor("the retried turn", async () => ((await a.call("GET", `/api/turns/${failed}`)).body.status === "done" ? true : undefined), 15_000);
  });

  it("a stream cut after its first words fails the turn, keeping what came", async () => {
    a.model.reply({ text: ["Half ", "an ", "answer"], cutAfter: 2 });
    const turn = await say("Cut me off");
    const frame = await a.events.status(turn, "failed", 30_000);
    assert.match(String(frame.error), /cut|ended|stopped/i);
  });

  it("a provider that never stops talking is cut off, and the turn fails with what it had", async () => {
    a.model.reply({ text: Array.from({ length: 2100 }, () => "x".repeat(100)) });
    const turn = await say("Talk forever");
    const frame = await a.events.status(turn, "failed", 30_000);
    assert.match(String(frame.error), /ran past 200000 characters/);
    const reply = (await a.call("GET", "/api/messages?limit=200")).body.items.find((m: { turn: string; role: string }) => m.turn === turn && m.role === "assistant");
    assert.equal(reply.status, "partial");
  });

  it("kill -9 of the assistant worker mid-approval and mid-stream: the turn resumes, and the approved call runs once", async () => {
    a.model.reply({ toolCalls: [{ id: "call_k", name: CREATE, arguments: JSON.stringify({ title: "Survives a crash" }) }] });
    const turn = await say("Add a task, then crash");
    const id = String((await a.events.status(turn, "waiting-approval")).approval);
    const first = lockOf(a.node.dataDir).workers.assistant!;
    process.kill(first, "SIGKILL");
    await waitFor("the old assistant gone", () => (processState(first) === null ? true : undefined));
    // Approved while no assistant runs: the decision is durable and the turn resumes in the next one.
    a.model.reply({ text: ["Slow ", "words "], stallAfter: 2 }, { text: ["It is added."] });
    const decided = await a.call("POST", `/api/approvals/${id}`, { approve: true });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    await waitFor("the restarted assistant streaming", () => (a.events.text(turn).includes("Slow") ? true : undefined), 20_000);
    const second = lockOf(a.node.dataDir).workers.assistant!;
    assert.notEqual(second, first);
    process.kill(second, "SIGKILL");
    await a.events.status(turn, "done", 30_000);
    const tasks = (await a.call("GET", "/api/tasks")).body.items.filter((t: { title: string }) => t.title === "Survives a crash");
    assert.equal(tasks.length, 1, "the approved call ran once");
    const detail = await a.call("GET", `/api/turns/${turn}`);
    assert.ok(detail.body.attempts >= 2);
    const reply = (await a.call("GET", "/api/messages?limit=200")).body.items.filter((m: { turn: string; role: string }) => m.turn === turn && m.role === "assistant");
    assert.equal(reply.length, 1);
  });

  it("memory with consent: notes reach only a provider allowed to see them, and off means no note and no memory tool", async () => {
    const note = await a.call("POST", "/api/memory", { text: "Ada's cat is called Turing" });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    const system = () => String(((a.model.requests.at(-1)!.body.messages as { role: string; content: string }[]).find((m) => m.role === "system") ?? { content: "" }).content);
    const memoryTools = () => offered(-1).filter((name) => name.startsWith("std_memory_"));

    a.model.reply({ text: ["Noted."] });
    await a.events.status(await say("What is my cat called?"), "done");
    assert.match(system(), /Turing/, "memory on: the note is in the prompt");
    assert.deepEqual(memoryTools(), ["std_memory_Add"], "and the memory tool its mode allows is offered");

    assert.equal((await a.call("PUT", "/api/settings/memory", { off: ["main"] })).status, 200);
    a.model.reply({ toolCalls: [{ id: "call_m", name: "std_memory_Add", arguments: JSON.stringify({ text: "sneaky" }) }] }, { text: ["Fine."] });
    await a.events.status(await say("Remember this without memory"), "done");
    const offPrompt = String(((a.model.requests.at(-2)!.body.messages as { role: string; content: string }[]).find((m) => m.role === "system") ?? { content: "" }).content);
    assert.doesNotMatch(offPrompt, /Turing/, "memory off in the conversation: no note");
    assert.deepEqual(((a.model.requests.at(-2)!.body.tools ?? []) as { function: { name: string } }[]).filter((t) => t.function.name.startsWith("std_memory_")), [], "no memory tool offered");
    assert.match(lastToolMessage()!.content, /Memory is not shared|no tool/i, "a memory tool named anyway is refused");
    assert.equal((await a.call("GET", "/api/approvals")).body.items.filter((x: { summary: string }) => x.summary.includes("sneaky")).length, 0);

    assert.equal((await a.call("PUT", "/api/settings/memory", { off: [] })).status, 200);
    assert.equal((await a.call("PATCH", "/api/connections/local", { memory: false })).status, 200);
    a.model.reply({ text: ["Private."] });
    await a.events.status(await say("And now?"), "done");
    assert.doesNotMatch(system(), /Turing/, "a provider not allowed to see memory gets no note");
    assert.deepEqual(memoryTools(), []);
    await a.stepUp();
    assert.equal((await a.call("PATCH", "/api/connections/local", { memory: true })).status, 200);
  });

  it("bad input is a clear problem and writes nothing; with no model configured nothing is said", async () => {
    const before = (await a.call("GET", "/api/turns?limit=200")).body.items.length;
    const bad = async (method: string, path: string, body: unknown, status: number, pointer?: string) => {
      const answer = await a.call(method, path, body);
      assert.equal(answer.status, status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.headers.get("content-type"), "application/problem+json");
      if (pointer !== undefined) assert.equal(answer.body.errors[0].pointer, pointer);
    };
    await bad("POST", "/api/messages", {}, 400, "#/text");
    await bad("POST", "/api/messages", { text: "   " }, 400, "#/text");
    await bad("POST", "/api/messages", { text: "hi", attachments: "file" }, 400, "#/attachments");
    await bad("POST", "/api/messages", { text: "hi", conversation: "no spaces allowed" }, 400, "#/conversation");
    await bad("POST", "/api/messages", { text: "hi", mood: "happy" }, 400);
    await bad("POST", "/api/messages/msg-none/reactions", { reaction: "👍" }, 404);
    await bad("POST", "/api/messages/msg-none/reactions", { reaction: 3 }, 400, "#/reaction");
    await bad("GET", "/api/turns/turn-none", undefined, 404);
    await bad("POST", "/api/turns/turn-none/retry", {}, 404);
    const ended = (await a.call("GET", "/api/turns?limit=1")).body.items[0].id as string;
    await bad("POST", "/api/cancel", { turn: ended }, 409);
    await bad("PUT", "/api/settings/memory", { off: "main" }, 400, "#/off");
    await bad("POST", "/api/approvals/apv-none", { approve: true }, 404);
    await bad("POST", "/api/approvals/apv-none", { approve: "yes" }, 400, "#/approve");
    // A text over the contract's 32,000 characters is the contract's refusal, and nothing of it is kept.
    const long = await a.call("POST", "/api/messages", { text: "x".repeat(32_001) });
    assert.equal(long.status, 422);
    assert.equal(long.body.reason, "text_too_long");

    assert.equal((await a.call("PUT", "/api/settings/models", { conversation: null })).status, 200);
    await bad("POST", "/api/messages", { text: "anyone there?" }, 409);
    assert.equal((await a.call("GET", "/api/bootstrap")).body.model.configured, false);
    assert.equal((await a.call("PUT", "/api/settings/models", { conversation: { connection: "local", model: "m1" } })).status, 200);
    assert.equal((await a.call("GET", "/api/turns?limit=200")).body.items.length, before, "no turn was queued by any of them");
  });

  it("writes no model key to the log", () => {
    const logs = join(a.node.dataDir, "logs");
    for (const file of readdirSync(logs)) assert.ok(!readFileSync(join(logs, file), "utf8").includes("Bearer "), file);
  });
});
