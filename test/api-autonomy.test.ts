/**
 * The assistant's autonomy and suggestions end to end on a real node: goals kept as `std.autonomy`
 * records, bad input a problem naming the field; autonomy off starts nothing on its own; a run
 * started by the person is a turn of the planning model given the goals, whose end records a
 * reflection and concludes the run; a run over its token budget is stopped and abandoned; one run
 * at a time; a run's tool call waits for the person's approval like any turn's. Suggestions come
 * from the tasks due and from a model's follow-ups, kept until the conversation moves on, and a
 * failing model leaves only the record-based ones. (The schedule's timing is the unit test's:
 * workers/gateway/api/assistant-host/autonomy-scheduler.test.ts.)
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { waitFor } from "./helpers/charter-process.ts";
import { type AssistantNode, startAssistantNode } from "./helpers/assistant-node.ts";

const OPEN = "std_tasks_Open";
const CREATE = "std_tasks_Create";

interface Run {
  id: string;
  kind: string;
  goal: string | null;
  turn: string;
  status: string;
  budget: number;
  tokens: number;
  summary: string;
  reason: string | null;
  startedAt: string | null;
  endedAt: string | null;
}

describe("the assistant's autonomy and suggestions on a real node", () => {
  let a: AssistantNode;
  let marathon = "";
  /** An approval a cancelled run left waiting. */
  let waitingApproval = "";

  before(async () => {
    a = await startAssistantNode({ "std.tasks.Create": "ask", "std.tasks.Open": "read" });
    // Runs go to the planning model: m2 (the conversation's is m1).
    const planning = await a.call("PUT", "/api/settings/models", { planning: { connection: "local", model: "m2" } });
    assert.equal(planning.status, 200, JSON.stringify(planning.body));
  });
  after(async () => {
    await a?.stop();
  });

  /** Answers `answer` after checking it is a problem document of `status` (and naming `pointer`, when given). */
  async function problemOf(method: string, path: string, body: unknown, status: number, pointer?: string) {
    const answer = await a.call(method, path, body);
    assert.equal(answer.status, status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.headers.get("content-type"), "application/problem+json");
    if (pointer !== undefined) assert.ok(answer.body.errors.some((e: { pointer: string }) => e.pointer === pointer), `${pointer} in ${JSON.stringify(answer.body.errors)}`);
    return answer;
  }

  async function runs(): Promise<Run[]> {
    const listed = await a.call("GET", "/api/autonomy/initiatives?limit=200");
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return listed.body.items as Run[];
  }

  /** Waits until run `id` has ended, and answers it. */
  function ended(id: string): Promise<Run> {
    return waitFor(`run ${id} ended`, async () => (await runs()).find((r) => r.id === id && r.status !== "running"), 20_000);
  }

  /** The model requests made for autonomy runs (the planning model). */
  const planningRequests = () => a.model.requests.filter((r) => r.path === "/v1/chat/completions" && r.body.model === "m2");

  it("sets, lists, edits, achieves and drops goals; a closed goal no longer changes", async () => {
    const set = await a.call("POST", "/api/autonomy/goals", { text: "Run a marathon in October", why: "To get fit" });
    assert.equal(set.status, 201, JSON.stringify(set.body));
    assert.match(set.body.id, /^goal-/);
    assert.equal(set.body.status, "active");
    assert.equal(set.body.why, "To get fit");
    assert.equal(set.body.setBy, a.person, "signed as the person");
    assert.equal(set.body.receipt.action, "Set");
    marathon = set.body.id;

    const edited = await a.call("PATCH", `/api/autonomy/goals/${marathon}`, { text: "Run a half marathon in October" });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.text, "Run a half marathon in October");
    assert.equal(edited.body.why, "To get fit", "what is not sent stays");

    const other = await a.call("POST", "/api/autonomy/goals", { text: "Learn Italian" });
    assert.equal(other.status, 201);
    assert.equal(other.body.why, "");
    const achieved = await a.call("PATCH", `/api/autonomy/goals/${other.body.id}`, { status: "achieved", note: "B1 exam passed" });
    assert.equal(achieved.status, 200, JSON.stringify(achieved.body));
    assert.equal(achieved.body.status, "achieved");
    assert.equal(achieved.body.note, "B1 exam passed");
    assert.ok(achieved.body.closedAt !== null);
    const third = await a.call("POST", "/api/autonomy/goals", { text: "Read 20 books" });
    const dropped = await a.call("PATCH", `/api/autonomy/goals/${third.body.id}`, { status: "dropped" });
    assert.equal(dropped.body.status, "dropped");

    const active = await a.call("GET", "/api/autonomy/goals");
    assert.deepEqual(active.body.items.map((g: { id: string }) => g.id), [marathon], "active ones by default");
    const all = await a.call("GET", "/api/autonomy/goals?status=all");
    assert.equal(all.body.items.length, 3);
    const page = await a.call("GET", "/api/autonomy/goals?status=all&limit=2");
    assert.equal(page.body.items.length, 2);
    const rest = await a.call("GET", `/api/autonomy/goals?status=all&limit=2&after=${page.body.next}`);
    assert.deepEqual(rest.body.items.map((g: { id: string }) => g.id), [third.body.id]);
    assert.equal(rest.body.next, null);
    assert.deepEqual((await a.call("GET", "/api/autonomy/goals?status=achieved")).body.items.map((g: { id: string }) => g.id), [other.body.id]);

    // Deciding a closed goal again is a conflict, and changes nothing.
    await problemOf("PATCH", `/api/autonomy/goals/${other.body.id}`, { status: "dropped" }, 409);
    await problemOf("PATCH", `/api/autonomy/goals/${third.body.id}`, { text: "Read 30 books" }, 409);
    assert.equal((await a.call("GET", "/api/autonomy/goals?status=dropped")).body.items[0].text, "Read 20 books");
  });

  it("bad input is a problem naming each field, and writes nothing", async () => {
    const before = (await a.call("GET", "/api/autonomy/goals?status=all")).body.items.length;
    await problemOf("POST", "/api/autonomy/goals", {}, 400, "#/text");
    await problemOf("POST", "/api/autonomy/goals", { text: "   " }, 400, "#/text");
    const both = await problemOf("POST", "/api/autonomy/goals", { text: 3, why: 4 }, 400, "#/text");
    assert.ok(both.body.errors.some((e: { pointer: string }) => e.pointer === "#/why"), "every wrong field is named");
    await problemOf("POST", "/api/autonomy/goals", { text: "Swim", mood: "keen" }, 400, "#/mood");
    // Longer than the contract's 500 characters: its refusal, with the reason.
    const long = await problemOf("POST", "/api/autonomy/goals", { text: "x".repeat(501) }, 422);
    assert.equal(long.body.reason, "text_too_long");
    await problemOf("PATCH", `/api/autonomy/goals/${marathon}`, { why: "y".repeat(1001) }, 422);
    assert.equal((await a.call("GET", "/api/autonomy/goals?status=all")).body.items.length, before, "nothing was written");
    assert.equal((await a.call("GET", "/api/autonomy/goals")).body.items[0].why, "To get fit");

    await problemOf("PATCH", "/api/autonomy/goals/goal-none", { status: "dropped" }, 404);
    await problemOf("PATCH", "/api/autonomy/goals/not%20an%20id", { status: "dropped" }, 404);
    await problemOf("PATCH", `/api/autonomy/goals/${marathon}`, { status: "done" }, 400, "#/status");
    await problemOf("PATCH", `/api/autonomy/goals/${marathon}`, { note: "too soon" }, 400, "#/note");
    await problemOf("PATCH", `/api/autonomy/goals/${marathon}`, {}, 400);
    await problemOf("GET", "/api/autonomy/goals?status=someday", undefined, 400);
    await problemOf("GET", "/api/autonomy/initiatives?limit=0", undefined, 400);
    await problemOf("GET", "/api/autonomy/reflections?after=!!", undefined, 400);

    await problemOf("POST", "/api/autonomy/initiatives", { kind: "dream" }, 400, "#/kind");
    await problemOf("POST", "/api/autonomy/initiatives", { goal: 5 }, 400, "#/goal");
    await problemOf("POST", "/api/autonomy/initiatives", { kind: "reflection", goal: marathon }, 400, "#/goal");
    await problemOf("POST", "/api/autonomy/initiatives", { when: "now" }, 400, "#/when");
    await problemOf("POST", "/api/autonomy/initiatives", { goal: "goal-none" }, 404);
    const closed = (await a.call("GET", "/api/autonomy/goals?status=achieved")).body.items[0].id;
    const conflict = await problemOf("POST", "/api/autonomy/initiatives", { goal: closed }, 409);
    assert.equal(conflict.body.code, "goal-closed");

    await problemOf("PUT", "/api/autonomy/settings", { enabled: "yes" }, 400, "#/enabled");
    await problemOf("PUT", "/api/autonomy/settings", { intervalMinutes: 1 }, 400, "#/intervalMinutes");
    assert.deepEqual(await runs(), [], "no run was started by any of them");
  });

  it("autonomy is off by default: with goals set, no run starts on its own; its settings are /api/settings/autonomy's", async () => {
    const settings = await a.call("GET", "/api/autonomy/settings");
    assert.equal(settings.status, 200);
    assert.equal(settings.body.enabled, false);
    const changed = await a.call("PUT", "/api/autonomy/settings", { intervalMinutes: 30 });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual((await a.call("GET", "/api/settings/autonomy")).body, { enabled: false, intervalMinutes: 30, turnTokenBudget: 20_000 }, "one setting, two routes");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.deepEqual(await runs(), []);
    assert.equal(planningRequests().length, 0, "the planning model was never called");
  });

  it("a run started now is a planning turn given the goals; its end records a reflection and concludes the run", async () => {
    a.model.reply({ text: ["I drafted a 12-week plan ", "for the half marathon.\nNext: book a race."], usage: { prompt: 40, completion: 12 } });
    const started = await a.call("POST", "/api/autonomy/initiatives", { kind: "initiative" });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const run = started.body as Run;
    assert.match(run.id, /^run-/);
    assert.equal(run.kind, "initiative");
    assert.equal(run.goal, marathon, "the only active goal");
    assert.equal(run.status, "running");
    assert.equal(run.budget, 20_000);
    await a.events.status(run.turn, "done");

    const request = planningRequests().at(-1);
    assert.ok(request !== undefined, "the planning model (m2) was called");
    const messages = request.body.messages as { role: string; content: string }[];
    const system = messages.find((m) => m.role === "system")?.content ?? "";
    assert.match(system, /autonomy run/);
    assert.match(system, /approval/);
    const brief = messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");
    assert.match(brief, /Run a half marathon in October/, "the goals are in it");
    assert.match(brief, /initiative/);
    assert.doesNotMatch(brief, /Learn Italian/, "an achieved goal is not");
    assert.ok((request.body.tools as unknown[]).length > 0, "the same tools as any turn");

    const done = await ended(run.id);
    assert.equal(done.status, "concluded");
    assert.equal(done.tokens, 52);
    assert.match(done.summary, /^I drafted a 12-week plan/);
    assert.ok(done.endedAt !== null);
    const reflections = await a.call("GET", "/api/autonomy/reflections");
    assert.equal(reflections.status, 200);
    const reflection = reflections.body.items.find((r: { run: string }) => r.run === run.id);
    assert.equal(reflection.text, "I drafted a 12-week plan for the half marathon.\nNext: book a race.");
    assert.equal(reflection.id, `${run.id}.reflection`);
    const turn = await a.call("GET", `/api/turns/${run.turn}`);
    assert.equal(turn.body.origin, "autonomy");
    assert.equal(turn.body.model, "m2");
    const main = await a.call("GET", "/api/messages?limit=200");
    assert.ok(!main.body.items.some((m: { turn: string }) => m.turn === run.turn), "nothing of it is said in the main conversation");
  });

  it("a run whose model spends past its token budget is stopped with kind budget, and the run abandoned", async () => {
    assert.equal((await a.call("PUT", "/api/autonomy/settings", { turnTokenBudget: 1000 })).status, 200);
    a.model.reply({ toolCalls: [{ id: "call_open", name: OPEN, arguments: JSON.stringify({ after: "" }) }], usage: { prompt: 900, completion: 200 } });
    const started = await a.call("POST", "/api/autonomy/initiatives", {});
    assert.equal(started.status, 202, JSON.stringify(started.body));
    assert.equal(started.body.kind, "reflection", "no goal named: a reflection");
    assert.equal(started.body.budget, 1000);
    const frame = await a.events.status(started.body.turn, "failed", 20_000);
    assert.match(String(frame.error), /budget/);
    const turn = await a.call("GET", `/api/turns/${started.body.turn}`);
    assert.equal(turn.body.error.kind, "budget");
    const brief = (planningRequests().at(-1)!.body.messages as { role: string; content: string }[]).filter((m) => m.role === "user").map((m) => m.content).join("\n");
    assert.match(brief, /reflection/);
    assert.match(brief, /I drafted a 12-week plan/, "the latest reflections are in a run's brief");
    const abandoned = await ended(started.body.id);
    assert.equal(abandoned.status, "abandoned");
    assert.match(abandoned.reason ?? "", /^budget: /);
    assert.equal((await a.call("GET", "/api/autonomy/reflections")).body.items.filter((r: { run: string }) => r.run === started.body.id).length, 0, "no reflection of it");
    assert.equal((await a.call("PUT", "/api/autonomy/settings", { turnTokenBudget: 20_000 })).status, 200);
  });

  it("a run's tool call waits for the person's approval like any turn's; a second start meanwhile is 409", async () => {
    const pending = a.model.requests.length;
    a.model.reply({ toolCalls: [{ id: "call_plan", name: CREATE, arguments: JSON.stringify({ title: "Book the October half marathon" }) }] }, { text: ["Proposed booking the race; it waits for your approval."] });
    const started = await a.call("POST", "/api/autonomy/initiatives", { goal: marathon });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    assert.equal(started.body.kind, "initiative");
    const waiting = await a.events.status(started.body.turn, "waiting-approval", 20_000);
    assert.ok(a.model.requests.length > pending);
    const approval = String(waiting.approval);
    const shown = await a.call("GET", `/api/approvals/${approval}`);
    assert.equal(shown.body.status, "waiting", "the run does not approve anything itself");
    assert.equal(shown.body.turn, started.body.turn);
    assert.equal((await a.call("GET", "/api/tasks")).body.items.filter((t: { title: string }) => t.title.startsWith("Book the October")).length, 0, "nothing written before the person decides");

    const again = await problemOf("POST", "/api/autonomy/initiatives", {}, 409);
    assert.equal(again.body.code, "run-in-progress");
    assert.equal((await runs()).filter((r) => r.status === "running").length, 1, "one run at a time");

    const decided = await a.call("POST", `/api/approvals/${approval}`, { approve: true });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    assert.equal(decided.body.receipt.signer, a.person);
    await a.events.status(started.body.turn, "done", 20_000);
    const done = await ended(started.body.id);
    assert.equal(done.status, "concluded");
    assert.match(done.summary, /waits for your approval/);
    assert.equal((await a.call("GET", "/api/tasks")).body.items.filter((t: { title: string }) => t.title === "Book the October half marathon").length, 1);
    const listed = await runs();
    assert.deepEqual(listed.slice(0, 3).map((r) => r.id), [started.body.id, listed[1]!.id, listed[2]!.id]);
    assert.ok(listed[0]!.id > listed[1]!.id && listed[1]!.id > listed[2]!.id, "newest first");
  });

  it("a run whose turn ends behind the turn host's back (cancelled through the generic write route) is abandoned on the node's next look", async () => {
    a.model.reply({ toolCalls: [{ id: "call_shoes", name: CREATE, arguments: JSON.stringify({ title: "Buy running shoes" }) }] });
    const started = await a.call("POST", "/api/autonomy/initiatives", {});
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const waiting = await a.events.status(started.body.turn, "waiting-approval", 20_000);
    waitingApproval = String(waiting.approval);
    // Signed as any command: nothing of the assistant's own cancel runs, only the records change.
    const cancelled = await a.call("POST", "/api/data/act", { namespace: "std.conversation", action: "Cancel", subject: started.body.turn, args: { reply: "", steps: 0, tokens_in: 0, tokens_out: 0 } });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const abandoned = await ended(started.body.id);
    assert.equal(abandoned.status, "abandoned");
    assert.equal(abandoned.reason, "cancelled");
    assert.equal((await runs()).filter((r) => r.status === "running").length, 0, "the next run may start");
  });

  it("suggestions: tasks due, and a model's follow-ups kept until the conversation moves on", async () => {
    const rent = await a.call("POST", "/api/tasks", { title: "Pay rent", due: "2020-01-01" });
    assert.equal(rent.status, 201, JSON.stringify(rent.body));
    const later = await a.call("POST", "/api/tasks", { title: "Renew passport", due: "2999-01-01" });
    assert.equal(later.status, 201);
    a.model.reply({ text: ["Sure, noted."] });
    const said = await a.call("POST", "/api/messages", { text: "I need to plan my week" });
    assert.equal(said.status, 202);
    await a.events.status(said.body.turn, "done");

    const calls = () => a.model.requests.filter((r) => r.path === "/v1/chat/completions").length;
    a.model.reply({ text: ["1. What is due today?\n- Add oat milk to my list\n\"Plan my week\"\nA fourth one\n", "x".repeat(300)] });
    const before = calls();
    const first = await a.call("GET", "/api/suggestions");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const items = first.body.items as { text: string; kind: string; ref: string }[];
    assert.ok(items.length <= 6);
    assert.deepEqual(items.find((s) => s.kind === "task"), { text: "Mark 'Pay rent' done", kind: "task", ref: rent.body.id });
    assert.deepEqual(items.find((s) => s.kind === "approval"), { text: "What is waiting for my approval?", kind: "approval", ref: waitingApproval });
    assert.ok(!items.some((s) => s.ref === later.body.id), "a task due later is not suggested");
    const followUps = items.filter((s) => s.kind === "follow-up");
    assert.deepEqual(followUps.map((s) => s.text), ["What is due today?", "Add oat milk to my list", "Plan my week"]);
    assert.ok(followUps.every((s) => s.ref === `${said.body.id}.r`), "each follows the last message: the reply");
    assert.equal(calls(), before + 1);
    const request = a.model.requests.at(-1)!;
    assert.ok(request.body.max_tokens <= 200 || request.body.max_completion_tokens <= 200, JSON.stringify(request.body).slice(0, 300));
    assert.equal(request.body.model, "m2", "the planning route's first model");
    assert.equal((request.body.tools ?? []).length, 0);
    assert.match(JSON.stringify(request.body.messages), /plan my week/);

    const second = await a.call("GET", "/api/suggestions");
    assert.deepEqual(second.body, first.body, "the same suggestions");
    assert.equal(calls(), before + 1, "the model was not asked again");

    // The conversation moves on, to a turn that asks the person to choose; the model fails now:
    // the record-based suggestions still come, the ask among them.
    const question = { question: "Which race should I book?", options: [{ label: "Lisbon" }, { label: "Porto" }] };
    a.model.reply({ toolCalls: [{ id: "call_ask", name: "ask_person", arguments: JSON.stringify(question) }] });
    const next = await a.call("POST", "/api/messages", { text: "Help me choose a race" });
    const asking = await a.events.status(next.body.turn, "waiting-ask");
    a.model.reply({ error: { status: 500 } });
    const failing = await a.call("GET", "/api/suggestions");
    assert.equal(failing.status, 200, JSON.stringify(failing.body));
    assert.equal(calls(), before + 3, "asked again once the conversation moved on");
    assert.deepEqual(failing.body.items.filter((s: { kind: string }) => s.kind === "follow-up"), []);
    assert.ok(failing.body.items.some((s: { kind: string; ref: string }) => s.kind === "task" && s.ref === rent.body.id));
    assert.deepEqual(failing.body.items.find((s: { kind: string }) => s.kind === "ask"), { text: 'Answer your question: "Which race should I book?"', kind: "ask", ref: String(asking.ask) });
    assert.equal((await a.call("POST", "/api/cancel", { turn: next.body.turn })).status, 200);
  });

  it("with no model configured, starting a run is 409 no-model and nothing is written", async () => {
    assert.equal((await a.call("PUT", "/api/settings/models", { conversation: null, planning: null })).status, 200);
    const count = (await runs()).length;
    const refused = await problemOf("POST", "/api/autonomy/initiatives", {}, 409);
    assert.equal(refused.body.code, "no-model");
    assert.equal((await runs()).length, count);
    const suggestions = await a.call("GET", "/api/suggestions");
    assert.equal(suggestions.status, 200);
    assert.ok(suggestions.body.items.every((s: { kind: string }) => s.kind !== "follow-up"));
    assert.equal((await a.call("PUT", "/api/settings/models", { conversation: { connection: "local", model: "m1" } })).status, 200);
  });
});
