/**
 * @module The assistant page in Chromium against a real `charter node` and the OpenAI-protocol
 * model double: with no model it says so and links to Settings; a message sent with Enter
 * (Shift+Enter a new line) streams its reply in live, announced once when it is done; a tool call
 * that needs approval shows the exact command (namespace, action, subject, arguments) and the dry
 * run's state inline, and approving it commits the task and the turn goes on; denying one writes
 * nothing and the turn goes on with the model told; arguments edited before approving are the ones
 * committed; a question of the assistant is answered inline; a streaming turn is stopped, its
 * partial text kept; a failed turn shows why and is retried; a branch is started from a message,
 * spoken in and merged back as a summary, another one closed; a thread longer than what is shown
 * shows its earlier messages on request; suggestions fill the message box; a reaction. Screenshots
 * at 375 px and 1280 px at each step; axe-core finds no serious violation.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type BrowserApp, openApp, skipWithoutChromium } from "./helpers/browser.ts";
import { waitFor } from "./helpers/charter-process.ts";
import { OpenAiDouble } from "./helpers/model-doubles/openai-double.ts";

const CREATE = "std_tasks_Create";

describe("the assistant page in Chromium", { skip: skipWithoutChromium }, () => {
  let app: BrowserApp;
  /** The model the suggestions' follow-ups come from (planning), apart from the conversation's, so they never take its scripted answers. */
  let planner: OpenAiDouble;

  before(async () => {
    app = await openApp({ model: true });
    planner = await OpenAiDouble.start({ models: ["p1"] });
    for (let i = 0; i < 40; i++) planner.reply({ text: ["What is due today?\nAdd another task"] });
  });
  after(async () => {
    await app?.close();
    await planner?.close();
  });

  const page = () => app.page;
  const composer = () => page().getByLabel("Message", { exact: false }).and(page().locator("textarea"));
  const model = () => {
    assert.ok(app.model !== null);
    return app.model;
  };
  const live = () => page().locator(".chat-sr[role=status]");

  /** The last turn of the thread, by the API. */
  async function lastTurn(conversation = "main"): Promise<string> {
    const items = (await app.call("GET", `/api/messages?conversation=${conversation}&limit=200`)).body.items as { turn: string | null }[];
    const turn = items.at(-1)?.turn;
    assert.ok(typeof turn === "string");
    return turn;
  }

  it("with no model configured, it says so and links to Settings", async (t) => {
    t.diagnostic(`screenshots: ${app.shots}`);
    await app.setUp("Ada");
    await app.open("chat", "Assistant");
    const note = page().getByRole("note");
    await note.waitFor();
    assert.match((await note.textContent()) ?? "", /No model is configured/);
    assert.equal(await note.getByRole("link", { name: "Choose a model in Settings" }).getAttribute("href"), "#/settings");
    await page().getByText("Nothing said yet").waitFor();
    // Saying something anyway is the node's refusal, shown with its reason; nothing is written.
    await composer().fill("Hello?");
    await composer().press("Enter");
    const refusal = page().locator(".chat-composer .field-error");
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? "", /model/i);
    assert.equal(await composer().inputValue(), "Hello?", "the text is kept");
    assert.equal((await app.call("GET", "/api/messages")).body.items.length, 0);
    await composer().fill("");
    await app.screenshot("chat-no-model");
    assert.deepEqual(await app.axe(), []);
  });

  it("sends with Enter (Shift+Enter is a new line) and streams the reply in live, announcing it once done", async () => {
    await app.connectModel();
    const put = await app.call("PUT", `/api/connections/plan/key`, { provider: "openai", key: "", baseUrl: planner.baseURL, memory: false });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal((await app.call("PUT", "/api/settings/models", { planning: { connection: "plan", model: "p1" } })).status, 200);
    await waitFor("the node's contracts", async () => ((await app.call("PUT", "/api/settings/tools", { tools: { "std.tasks.Create": "ask", "std.tasks.Open": "read" } })).status === 200 ? true : undefined), 15_000);

    // The page was open on #/chat already: read it again (bootstrap says a model is configured now).
    await page().reload();
    await page().getByRole("heading", { level: 1, name: "Assistant" }).waitFor();
    await page().getByText("Nothing said yet").waitFor();
    assert.equal(await page().getByRole("note").count(), 0, "a model is configured now");
    model().reply({ text: ["Hel", "lo, ", "Ada. ", "Nice ", "to meet you."], delayMs: 400 });
    const box = composer();
    await box.click();
    await box.pressSequentially("Hi there");
    await box.press("Shift+Enter");
    await box.pressSequentially("How are you?");
    assert.equal(await box.inputValue(), "Hi there\nHow are you?", "Shift+Enter is a new line, nothing sent");
    assert.equal((await app.call("GET", "/api/messages")).body.items.length, 0);
    await box.press("Enter");
    // The reply shows while it is written: a part of it, before the turn is done.
    const streaming = page().locator("[data-streaming]");
    await streaming.filter({ hasText: "Hello" }).waitFor();
    assert.equal(await streaming.getAttribute("aria-busy"), "true");
    assert.equal(await box.inputValue(), "", "the box is emptied once sent");
    await page().locator(".chat-msg.person").filter({ hasText: "How are you?" }).waitFor();
    await app.screenshot("chat-streaming");
    await page().locator(".chat-msg.assistant:not(.streaming)").filter({ hasText: "Hello, Ada. Nice to meet you." }).waitFor();
    await waitFor("the announcement", async () => ((await live().textContent())?.includes("The assistant replied: Hello, Ada. Nice to meet you.") ? true : undefined));
    assert.equal(await streaming.count(), 0, "the streamed text gave way to the reply");
    const turn = await lastTurn();
    assert.equal((await app.call("GET", `/api/turns/${turn}`)).body.status, "done");
    // The person's text was sent as typed, with its new line.
    assert.equal((await app.call("GET", "/api/messages")).body.items[0].text, "Hi there\nHow are you?");
    await app.screenshot("chat-replied");
    assert.deepEqual(await app.axe(), []);
  });

  it("suggestions fill the message box; a reaction is kept", async () => {
    const suggestion = page().getByRole("group", { name: "Suggestions" }).getByRole("button", { name: "What is due today?" });
    await suggestion.waitFor();
    await suggestion.click();
    assert.equal(await composer().inputValue(), "What is due today?");
    assert.ok(await composer().evaluate((el) => el === document.activeElement), "the box takes focus");
    await composer().fill("");
    await page().getByRole("button", { name: /^React thumbs up to “Hello, Ada/ }).click();
    await page().locator(".chat-reaction").filter({ hasText: "👍" }).waitFor();
    const reply = (await app.call("GET", "/api/messages")).body.items.find((m: { role: string }) => m.role === "assistant");
    assert.deepEqual(reply.reactions, ["👍"]);
    await app.screenshot("chat-suggestions");
    assert.deepEqual(await app.axe(), []);
  });

  it("a tool call that needs approval shows the exact command and the dry run; approving commits it and the turn goes on", async () => {
    model().reply({ toolCalls: [{ id: "call_1", name: CREATE, arguments: JSON.stringify({ title: "Buy oat milk" }) }] }, { text: ["Added it."] });
    await composer().fill("Remind me to buy oat milk");
    await composer().press("Enter");
    const card = page().getByRole("region", { name: "Approve this change?" });
    await card.waitFor();
    await card.locator("dl.chat-command").waitFor();
    const command = await card.locator("dl.chat-command").innerText();
    assert.match(command, /Namespace\s+std\.tasks/);
    assert.match(command, /Action\s+Create/);
    assert.match(command, /Subject\s+\S+/);
    const args = JSON.parse((await card.getByLabel("The command's arguments").textContent()) ?? "null");
    assert.equal(args.title, "Buy oat milk");
    const dryRun = JSON.parse((await card.getByLabel("The record's state after the command (dry run)").textContent()) ?? "null");
    assert.equal(dryRun.title, "Buy oat milk");
    await waitFor("the announcement", async () => ((await live().textContent())?.includes("needs your approval") ? true : undefined));
    assert.equal((await app.call("GET", "/api/tasks")).body.items.filter((x: { title: string }) => x.title === "Buy oat milk").length, 0, "nothing is written before approving");
    await page().locator(".chat-turn-state").filter({ hasText: "Waiting for your approval" }).waitFor();
    await app.screenshot("chat-approval");
    assert.deepEqual(await app.axe(), []);

    await card.getByRole("button", { name: "Approve", exact: true }).click();
    const committed = page().locator(".chat-committed.accepted");
    await committed.waitFor();
    assert.match(await committed.innerText(), /Committed: std\.tasks Create on \S+/);
    assert.equal(JSON.parse((await committed.getByLabel("The record as committed").textContent()) ?? "null").title, "Buy oat milk");
    await page().locator(".chat-msg.assistant:not(.streaming)").filter({ hasText: "Added it." }).waitFor();
    const tasks = (await app.call("GET", "/api/tasks")).body.items.filter((x: { title: string }) => x.title === "Buy oat milk");
    assert.equal(tasks.length, 1, "the task exists");
    assert.equal((await app.call("GET", `/api/turns/${await lastTurn()}`)).body.status, "done", "the turn went on to the end");
    assert.equal(await card.count(), 0, "no approval is left waiting");
    await page().locator(".chat-decided.approved").waitFor();
    await app.screenshot("chat-approved");
    assert.deepEqual(await app.axe(), []);
  });

  it("denying an approval writes nothing, the card says it was denied, and the turn goes on with the model told", async () => {
    model().reply({ toolCalls: [{ id: "call_d", name: CREATE, arguments: JSON.stringify({ title: "Buy caviar" }) }] }, { text: ["All right, I left it out."] });
    await composer().fill("Remind me to buy caviar");
    await composer().press("Enter");
    const card = page().getByRole("region", { name: "Approve this change?" });
    await card.locator("dl.chat-command").waitFor();
    const turn = await lastTurn();
    const block = page().locator(`.chat-turn[data-turn="${turn}"]`);
    assert.equal(await block.getByRole("region", { name: "Approve this change?" }).count(), 1, "the card is in its turn");
    await card.getByRole("button", { name: "Deny" }).click();
    const denied = block.locator(".chat-decided.denied");
    await denied.waitFor();
    assert.match(await denied.innerText(), /^Denied: std\.tasks\.Create on task-/);
    await page().locator(".chat-msg.assistant:not(.streaming)").filter({ hasText: "All right, I left it out." }).waitFor();
    assert.equal(await card.count(), 0, "no approval is left waiting");
    assert.equal(await block.locator(".chat-committed.accepted").count(), 0, "nothing shows as committed");
    const detail = (await app.call("GET", `/api/turns/${turn}`)).body;
    assert.equal(detail.status, "done", "the turn went on to the end");
    assert.deepEqual(
      detail.approvals.map((a: { status: string }) => a.status),
      ["denied"],
    );
    assert.equal((await app.call("GET", "/api/tasks")).body.items.filter((x: { title: string }) => x.title === "Buy caviar").length, 0, "no task was written");
    // The model heard of the denial in the tool call's result.
    const last = model().requests.at(-1)?.body as { messages: { role: string; tool_call_id?: string; content: unknown }[] };
    const result = last.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_d");
    assert.match(JSON.stringify(result?.content), /declined this\. Nothing was done/);
    await app.screenshot("chat-denied");
    assert.deepEqual(await app.axe(), []);
  });

  it("the arguments edited before approving are the ones committed", async () => {
    model().reply({ toolCalls: [{ id: "call_e", name: CREATE, arguments: JSON.stringify({ title: "Buy bread" }) }] }, { text: ["Added your version."] });
    await composer().fill("Remind me to buy bread");
    await composer().press("Enter");
    const card = page().getByRole("region", { name: "Approve this change?" });
    await card.locator("dl.chat-command").waitFor();
    const turn = await lastTurn();
    const edit = card.getByRole("button", { name: "Edit the arguments" });
    assert.equal(await edit.getAttribute("aria-expanded"), "false");
    await edit.click();
    assert.equal(await card.getByRole("button", { name: "Keep the proposed arguments" }).getAttribute("aria-expanded"), "true");
    const box = card.getByLabel("Arguments to approve (JSON)");
    assert.equal(JSON.parse(await box.inputValue()).title, "Buy bread", "the box starts with the proposed arguments");
    // Not JSON: said so, nothing decided.
    await box.fill("{title: ");
    await card.getByRole("button", { name: "Approve with these arguments" }).click();
    await card.locator(".field-error").filter({ hasText: "not JSON" }).waitFor();
    assert.equal((await app.call("GET", `/api/turns/${turn}`)).body.status, "waiting-approval");
    await box.fill(JSON.stringify({ title: "Buy rye bread, sliced" }, null, 2));
    assert.equal(await card.locator(".field-error").count(), 0, "the note goes once the text changes");
    await app.screenshot("chat-edit-arguments");
    assert.deepEqual(await app.axe(), []);
    await card.getByRole("button", { name: "Approve with these arguments" }).click();
    const block = page().locator(`.chat-turn[data-turn="${turn}"]`);
    await page().locator(".chat-msg.assistant:not(.streaming)").filter({ hasText: "Added your version." }).waitFor();
    const decided = block.locator(".chat-decided.approved");
    await decided.waitFor();
    assert.match(await decided.innerText(), /Arguments \(as you edited them\)/);
    const tasks = (await app.call("GET", "/api/tasks")).body.items as { title: string }[];
    assert.equal(tasks.filter((x) => x.title === "Buy rye bread, sliced").length, 1, "the task has the edited title");
    assert.equal(tasks.filter((x) => x.title === "Buy bread").length, 0, "not the proposed one");
    const detail = (await app.call("GET", `/api/turns/${turn}`)).body;
    assert.equal(detail.status, "done");
    assert.equal(detail.approvals[0].editedArgs.title, "Buy rye bread, sliced");
    await app.screenshot("chat-edited");
  });

  it("a question of the assistant is answered inline, and the turn goes on with the answer", async () => {
    const ask = { question: "Which drink?", options: [{ label: "Tea" }, { label: "Coffee", description: "strong" }, { label: "Water" }] };
    model().reply({ toolCalls: [{ id: "call_a", name: "ask_person", arguments: JSON.stringify(ask) }] }, { text: ["Coffee it is."] });
    await composer().fill("Make me a drink");
    await composer().press("Enter");
    const form = page().getByRole("group", { name: "Which drink?" });
    await form.waitFor();
    await app.screenshot("chat-ask");
    assert.deepEqual(await app.axe(), []);
    await form.getByRole("radio", { name: /Coffee/ }).check();
    await page().locator("form.chat-ask").getByRole("button", { name: "Answer" }).click();
    await page().locator(".chat-msg.assistant:not(.streaming)").filter({ hasText: "Coffee it is." }).waitFor();
    await page().locator(".chat-answered").filter({ hasText: "Coffee" }).first().waitFor();
    const asks = (await app.call("GET", "/api/asks?status=all")).body.items as { question: string; answer: { labels: string[] } | null }[];
    assert.deepEqual(asks.find((x) => x.question === "Which drink?")?.answer?.labels, ["Coffee"]);
    await app.screenshot("chat-answered");
  });

  it("a streaming turn is stopped: its partial text stays, marked partial", async () => {
    model().reply({ text: ["Once ", "upon ", "a ", "time"], stallAfter: 3 });
    await composer().fill("Tell me a long story");
    await composer().press("Enter");
    await page().locator("[data-streaming]").filter({ hasText: "Once upon" }).waitFor();
    const turn = await lastTurn();
    const block = page().locator(`.chat-turn[data-turn="${turn}"]`);
    await block.locator(".chat-turn-state").filter({ hasText: "Working" }).waitFor();
    await app.screenshot("chat-running");
    assert.deepEqual(await app.axe(), []);
    await block.getByRole("button", { name: "Stop" }).click();
    await block.locator(".chat-turn-state").filter({ hasText: "Stopped" }).waitFor();
    const partial = page().locator(".chat-msg.assistant:not(.streaming)").filter({ hasText: "Once upon" });
    await partial.locator(".badge").filter({ hasText: "partial" }).waitFor();
    assert.equal((await app.call("GET", `/api/turns/${turn}`)).body.status, "cancelled");
    await waitFor("the announcement", async () => ((await live().textContent()) === "Stopped." ? true : undefined));
    await app.screenshot("chat-stopped");
  });

  it("a failed turn shows the failure and Retry; retrying runs it again with the next answer", async () => {
    model().reply({ error: { status: 400, message: "The double turned this one down." } });
    await composer().fill("Plan my week");
    await composer().press("Enter");
    await page().locator(".chat-msg.person").filter({ hasText: "Plan my week" }).waitFor();
    const turn = await lastTurn();
    const block = page().locator(`.chat-turn[data-turn="${turn}"]`);
    const state = block.locator(".chat-turn-state.failed");
    await state.waitFor();
    await state.filter({ hasText: "turned this one down" }).waitFor();
    assert.match(await state.innerText(), /^Failed/);
    await waitFor("the announcement", async () => ((await live().textContent()) === "The assistant's turn failed." ? true : undefined));
    assert.equal((await app.call("GET", `/api/turns/${turn}`)).body.status, "failed");
    await app.screenshot("chat-failed");
    assert.deepEqual(await app.axe(), []);

    model().reply({ text: ["Monday: rest."] });
    await block.getByRole("button", { name: "Retry" }).click();
    await page().locator(".chat-msg.assistant:not(.streaming)").filter({ hasText: "Monday: rest." }).waitFor();
    await waitFor("the turn done", async () => ((await app.call("GET", `/api/turns/${turn}`)).body.status === "done" ? true : undefined));
    await block.locator(".chat-turn-state").waitFor({ state: "detached" });
    assert.equal(await page().getByRole("button", { name: "Retry" }).count(), 0);
    const replies = (await app.call("GET", "/api/messages?limit=200")).body.items.filter((m: { turn: string; role: string }) => m.turn === turn && m.role === "assistant");
    assert.deepEqual(
      replies.map((m: { text: string; status: string }) => [m.text, m.status]),
      [["Monday: rest.", "complete"]],
    );
  });

  it("a branch starts from a message, takes its own messages, and merges back as a summary", async () => {
    await page().getByRole("button", { name: /^Branch from here: “Hello, Ada/ }).click();
    await page().getByRole("heading", { level: 2, name: /^Branch: Hello, Ada/ }).waitFor();
    const branch = decodeURIComponent(new URL(page().url()).hash.replace(/^#\/chat\//, ""));
    assert.match(branch, /^branch-/);
    await page().getByText("Nothing said yet").waitFor();
    assert.equal(await page().getByLabel("Conversation", { exact: true }).inputValue(), branch);
    model().reply({ text: ["Try the Alfama."] });
    await composer().fill("Which hotels in Lisbon?");
    await composer().press("Enter");
    await page().locator(".chat-msg.assistant:not(.streaming)").filter({ hasText: "Try the Alfama." }).waitFor();
    assert.deepEqual(
      (await app.call("GET", `/api/messages?conversation=${branch}`)).body.items.map((m: { text: string }) => m.text),
      ["Which hotels in Lisbon?", "Try the Alfama."],
    );
    await app.screenshot("chat-branch");
    assert.deepEqual(await app.axe(), []);

    // Switching back and forth with the picker.
    await page().getByLabel("Conversation", { exact: true }).selectOption("main");
    await page().getByRole("heading", { level: 2, name: "Main conversation" }).waitFor();
    await page().locator(".chat-msg.assistant:not(.streaming)").filter({ hasText: "Coffee it is." }).waitFor();
    assert.equal(await page().locator(".chat-msg").filter({ hasText: "Try the Alfama." }).count(), 0, "the branch's messages stay out of main");
    await page().getByLabel("Conversation", { exact: true }).selectOption(branch);
    await page().getByRole("heading", { level: 2, name: /^Branch: Hello, Ada/ }).waitFor();

    model().reply({ text: ["Stay in the Alfama."] });
    await page().getByRole("button", { name: "Merge into the main conversation" }).click();
    await page().getByRole("heading", { level: 2, name: "Main conversation" }).waitFor();
    const summary = page().locator(".chat-msg.assistant:not(.streaming)").filter({ hasText: "Stay in the Alfama." });
    await summary.waitFor();
    assert.match(await summary.innerText(), /From the branch Hello, Ada/);
    await waitFor("the branch merged", async () => ((await app.call("GET", `/api/branches/${branch}`)).body.status === "merged" ? true : undefined));
    await app.screenshot("chat-merged");
    assert.deepEqual(await app.axe(), []);
  });

  it("a branch is closed without merging: it says so, and takes no more messages", async () => {
    await page().getByRole("button", { name: /^Branch from here: “Coffee it is/ }).click();
    await page().getByRole("heading", { level: 2, name: /^Branch: Coffee it is/ }).waitFor();
    const branch = decodeURIComponent(new URL(page().url()).hash.replace(/^#\/chat\//, ""));
    assert.match(branch, /^branch-/);
    await page().getByRole("button", { name: "Close the branch" }).click();
    await page().getByText("This branch is closed.").waitFor();
    await page().getByText("Nothing was said in this branch.").waitFor();
    assert.equal((await page().getByRole("heading", { level: 2, name: /^Branch: Coffee it is/ }).innerText()).trim().endsWith("closed"), true);
    assert.equal((await app.call("GET", `/api/branches/${branch}`)).body.status, "closed");
    assert.equal(await page().getByRole("button", { name: /^Merge into/ }).count(), 0);
    assert.equal(await page().getByRole("button", { name: "Close the branch" }).count(), 0);
    assert.match((await page().getByLabel("Conversation", { exact: true }).locator("option:checked").innerText()).trim(), /\(closed\)$/);
    // Saying something there is the node's refusal, with its reason.
    await composer().fill("Still there?");
    await composer().press("Enter");
    await page().locator(".chat-composer .field-error").filter({ hasText: "closed" }).waitFor();
    assert.equal((await app.call("GET", `/api/messages?conversation=${branch}`)).body.items.length, 0);
    await composer().fill("");
    await app.screenshot("chat-branch-closed");
    assert.deepEqual(await app.axe(), []);
    await page().getByRole("link", { name: "Back to the main conversation" }).click();
    await page().getByRole("heading", { level: 2, name: "Main conversation" }).waitFor();
  });

  it("a long thread shows its latest messages, and earlier ones on request", async () => {
    // Enough turns through the API (each a message and its reply) to pass what the page shows at first (60).
    const before = (await app.call("GET", "/api/messages?limit=200")).body.items.length as number;
    const turns = Math.ceil((61 - before) / 2);
    for (let i = 0; i < turns; i++) model().reply({ text: [`Reply ${i + 1}.`] });
    for (let i = 0; i < turns; i++) assert.equal((await app.call("POST", "/api/messages", { text: `Note ${i + 1}` })).status, 202);
    const total = before + 2 * turns;
    await waitFor("the replies", async () => ((await app.call("GET", "/api/messages?limit=200")).body.items.length === total ? true : undefined), 60_000);
    const thread = page().locator(".chat-thread");
    await thread.locator(".chat-msg.assistant").filter({ hasText: `Reply ${turns}.` }).waitFor();
    const more = page().getByRole("button", { name: `Show earlier messages (${total - 60})` });
    await more.waitFor();
    assert.equal(await thread.locator(".chat-msg").count(), 60);
    assert.equal(await thread.locator(".chat-msg").filter({ hasText: "How are you?" }).count(), 0, "the first message is not shown yet");
    await more.focus();
    await page().keyboard.press("Enter");
    await thread.locator(".chat-msg").filter({ hasText: "How are you?" }).waitFor();
    assert.equal(await thread.locator(".chat-msg").count(), total);
    assert.equal(await page().getByRole("button", { name: /^Show earlier messages/ }).count(), 0);
    assert.equal(await page().evaluate(() => (document.activeElement as HTMLElement | null)?.dataset["message"] ?? null), (await app.call("GET", "/api/messages?limit=1")).body.items[0].id, "focus is on the earliest message shown");
  });

  it("no script error and nothing refused by the page's policy", () => {
    assert.deepEqual(app.pageErrors, []);
    assert.deepEqual(app.refusedByPolicy, []);
  });
});
