/**
 * @module The tasks and memory pages in Chromium against a real `charter node`: a task made
 * through the form (with a time of day) is listed and on its agenda day; rescheduled, it moves
 * days; completed, it leaves the open list and the agenda; reopened from the done list, it is back;
 * a task made by another device appears on the open page as it is committed; an empty title and
 * a repeat rule the node does not take are refused with the node's words, and nothing is made.
 * Editing: a task's title and tags changed through its edit form (prefilled, focused, only the
 * changed fields sent, the focus back on Edit); an empty title refused there with the node's words,
 * nothing changed; an edit made on another device shown on the card as it is committed.
 * Memory: a note added, found and forgotten; a rule added and deleted; the persona's constitution
 * saved, its sensitive instructions saved after the step-up prompt, the content mode set.
 * Screenshots at 375 px and 1280 px; axe-core finds no serious violation on either page.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Locator } from "playwright-core";
import { waitFor } from "./helpers/charter-process.ts";
import { type BrowserApp, openApp, skipWithoutChromium } from "./helpers/browser.ts";

/** `date` plus `days` days (`YYYY-MM-DD`). */
function addDays(date: string, days: number): string {
  const at = new Date(`${date}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}

describe("the tasks and memory pages in Chromium", { skip: skipWithoutChromium }, () => {
  let app: BrowserApp;
  let today = "";
  let zoneName = "";
  const title = "Renew the passport";

  before(async () => {
    app = await openApp();
    await app.setUp("Ada");
    // A zone with an offset of its own (the browser's is the machine's): a time of day typed in is the person's zone's.
    const zone = await app.call("PUT", "/api/account/settings", { timeZone: "Asia/Kolkata" });
    assert.equal(zone.status, 200, JSON.stringify(zone.body));
    zoneName = zone.body.timeZone; // the node's spelling (Asia/Calcutta, in some ICU versions)
    // The personal contracts install just after set-up: the agenda answers once std.tasks is there.
    const agenda = await waitFor("std.tasks installed", async () => {
      const answer = await app.call("GET", "/api/agenda");
      return answer.status === 200 ? answer : undefined;
    }, 30_000);
    today = agenda.body.today;
  });
  after(async () => {
    await app?.close();
  });

  const tasks = () => app.page.getByRole("list", { name: "Tasks" });
  const agendaDay = (date: string) => app.page.locator(`li[data-date="${date}"]`);
  const stored = async (name: string) => {
    const all = (await app.call("GET", "/api/tasks?status=all&limit=200")).body.items as { id: string; title: string; status: string; due: string | null }[];
    return all.filter((task) => task.title === name);
  };

  it("makes a task through the form: listed, with its time of day, and on its agenda day", async (t) => {
    t.diagnostic(`screenshots: ${app.shots}`);
    await app.open("tasks", "Tasks");
    await app.page.getByText("Nothing open: all done.").waitFor();
    await app.page.getByText(`Times in ${zoneName}.`, { exact: false }).waitFor();
    const due = addDays(today, 2);
    await app.page.getByLabel("Title", { exact: true }).fill(title);
    await app.page.getByLabel("Due date", { exact: true }).fill(due);
    await app.page.getByLabel("Time (optional)", { exact: true }).fill("09:30");
    await app.page.getByText("Repeat, priority, notes, tags and links").click();
    await app.page.getByLabel("Priority", { exact: true }).selectOption({ label: "High" });
    await app.page.getByLabel("Tags", { exact: true }).fill("admin, travel");
    await app.page.getByLabel("Notes", { exact: true }).fill("photos first");
    await app.page.getByRole("button", { name: "Add the task" }).click();
    await app.page.getByText(`Added “${title}”.`).waitFor();
    await tasks().getByText(title).waitFor();
    const [task] = await stored(title);
    assert.ok(task, "the task is stored");
    assert.equal(task.due, `${due}T09:30:00+05:30`, "the date and the time of day, in the person's zone");
    const full = (await app.call("GET", `/api/tasks/${task.id}`)).body;
    assert.deepEqual([full.priority, full.tags, full.notes], [3, ["admin", "travel"], "photos first"]);
    assert.equal(await app.page.getByLabel("Title", { exact: true }).inputValue(), "", "the form is emptied");
    await agendaDay(due).getByText(title).waitFor();
    assert.equal(await agendaDay(today).getByText(title).count(), 0);
    await app.screenshot("tasks");
    assert.deepEqual(await app.axe(), []);
  });

  it("reschedules the task: a new day without a time, and the agenda moves it", async () => {
    const moved = addDays(today, 4);
    await app.page.getByRole("button", { name: `Reschedule: ${title}` }).click();
    const form = app.page.getByRole("form", { name: `Reschedule ${title}` });
    await form.getByLabel("New due date", { exact: true }).fill(moved);
    await form.getByLabel("Time (optional)", { exact: true }).fill("");
    await app.screenshot("tasks-reschedule");
    assert.deepEqual(await app.axe(), []);
    await form.getByRole("button", { name: "Save the new date" }).click();
    await form.waitFor({ state: "detached" });
    await agendaDay(moved).getByText(title).waitFor();
    assert.equal(await agendaDay(addDays(today, 2)).getByText(title).count(), 0, "no longer on the old day");
    assert.equal((await stored(title))[0]?.due, moved);
  });

  it("completes the task (it leaves the open list and the agenda), then reopens it from the done list", async () => {
    await app.page.getByRole("button", { name: `Complete: ${title}` }).click();
    await tasks().getByText(title).waitFor({ state: "detached" });
    assert.equal((await stored(title))[0]?.status, "done");
    assert.equal(await agendaDay(addDays(today, 4)).getByText(title).count(), 0, "a done task is off the agenda");
    await app.page.getByLabel("Show", { exact: true }).selectOption("done");
    await app.page.getByRole("button", { name: `Reopen: ${title}` }).click();
    await tasks().getByText(title).waitFor({ state: "detached" });
    assert.equal((await stored(title))[0]?.status, "open");
    await app.page.getByLabel("Show", { exact: true }).selectOption("open");
    await tasks().getByText(title).waitFor();
    await agendaDay(addDays(today, 4)).getByText(title).waitFor();
  });

  it("a task made on another device appears on the open page as it is committed", async () => {
    const made = await app.call("POST", "/api/tasks", { title: "Buy stamps", due: today });
    assert.equal(made.status, 201);
    await tasks().getByText("Buy stamps").waitFor();
    await agendaDay(today).getByText("Buy stamps").waitFor();
  });

  it("an empty title, and a repeat rule the node does not take, are refused with the node's words; nothing is made", async () => {
    const before = (await app.call("GET", "/api/tasks?status=all&limit=200")).body.items.length;
    const refused = await app.call("POST", "/api/tasks", { title: "" });
    assert.equal(refused.status, 422);
    await app.page.getByRole("button", { name: "Add the task" }).click();
    const alert = app.page.locator(".tasks-form").getByRole("alert");
    await alert.waitFor();
    assert.equal(await alert.textContent(), `refused: ${refused.body.receipt.reason.message}`);

    await app.page.getByLabel("Title", { exact: true }).fill("Swim");
    await app.page.getByLabel("Repeats", { exact: true }).selectOption({ label: "Another rule (RRULE)…" });
    await app.page.getByLabel("Repeat rule", { exact: true }).fill("FREQ=DAILY;COUNT=3");
    await app.page.getByRole("button", { name: "Add the task" }).click();
    await alert.filter({ hasText: "COUNT" }).waitFor();
    const words = (await app.call("POST", "/api/tasks", { title: "Swim", repeat: "FREQ=DAILY;COUNT=3" })).body.detail;
    assert.equal(await alert.textContent(), words);
    assert.equal((await app.call("GET", "/api/tasks?status=all&limit=200")).body.items.length, before, "nothing was made");
    await app.screenshot("tasks-refused");
    assert.deepEqual(await app.axe(), []);
  });

  /** Waits until `locator`'s element has the focus (the page moves it after rendering); fails naming what has it. */
  const hasFocus = async (locator: Locator, what: string) => {
    const element = await locator.elementHandle();
    try {
      await app.page.waitForFunction((el) => document.activeElement === el, element, { timeout: 5000 });
    } catch {
      const at = await app.page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120) ?? "nothing");
      assert.fail(`${what} should have the focus; ${at} has it`);
    }
  };
  const edited = `${title} and the ID card`;

  it("edits a task's title and tags through its form: prefilled, only the changes sent, the card shows them", async () => {
    const [task] = await stored(title);
    assert.ok(task, "the task is stored");
    await app.page.getByRole("button", { name: `Edit: ${title}` }).click();
    const form = app.page.getByRole("form", { name: `Edit ${title}` });
    await form.waitFor();
    await hasFocus(form.getByLabel("Title", { exact: true }), "the edit form's first field");
    assert.deepEqual(
      [
        await form.getByLabel("Title", { exact: true }).inputValue(),
        await form.getByLabel("Notes", { exact: true }).inputValue(),
        await form.getByLabel("Priority", { exact: true }).inputValue(),
        await form.getByLabel("Tags", { exact: true }).inputValue(),
        await form.getByLabel("Links to records", { exact: true }).inputValue(),
      ],
      [title, "photos first", "3", "admin, travel", ""],
      "the fields hold the task's values",
    );
    await form.getByLabel("Title", { exact: true }).fill(edited);
    await form.getByLabel("Tags", { exact: true }).fill("admin, travel, urgent");
    await app.screenshot("tasks-edit");
    assert.deepEqual(await app.axe(), []);
    const sent = app.page.waitForRequest((request) => request.method() === "PATCH");
    // Enter in a field saves: the form works from the keyboard.
    await form.getByLabel("Title", { exact: true }).press("Enter");
    assert.deepEqual((await sent).postDataJSON(), { title: edited, tags: ["admin", "travel", "urgent"] }, "only the changed fields are sent");
    await form.waitFor({ state: "detached" });
    await hasFocus(app.page.getByRole("button", { name: `Edit: ${edited}` }), "the Edit button, after saving");
    const card = app.page.locator(`li[data-task="${task.id}"]`);
    await card.getByText(edited, { exact: true }).waitFor();
    await card.getByRole("list", { name: "Tags and links" }).getByText("urgent", { exact: true }).waitFor();
    const full = (await app.call("GET", `/api/tasks/${task.id}`)).body;
    assert.deepEqual([full.title, full.tags, full.notes, full.priority], [edited, ["admin", "travel", "urgent"], "photos first", 3]);
  });

  it("an edit the node refuses (an empty title) is shown in the form with the node's words; nothing changes", async () => {
    const [task] = await stored(edited);
    assert.ok(task, "the edited task is stored");
    const refused = await app.call("PATCH", `/api/tasks/${task.id}`, { title: "" });
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    await app.page.getByRole("button", { name: `Edit: ${edited}` }).click();
    const form = app.page.getByRole("form", { name: `Edit ${edited}` });
    await form.getByLabel("Title", { exact: true }).fill("");
    await form.getByRole("button", { name: "Save the changes" }).click();
    const alert = form.getByRole("alert");
    await alert.waitFor();
    assert.equal(await alert.textContent(), `refused: ${refused.body.receipt.reason.message}`);
    const full = (await app.call("GET", `/api/tasks/${task.id}`)).body;
    assert.deepEqual([full.title, full.tags], [edited, ["admin", "travel", "urgent"]], "nothing changed");
    await app.screenshot("tasks-edit-refused");
    assert.deepEqual(await app.axe(), []);
    // Escape cancels: the form closes, the card is as it was, the focus is back on Edit.
    await form.getByLabel("Title", { exact: true }).press("Escape");
    await form.waitFor({ state: "detached" });
    await hasFocus(app.page.getByRole("button", { name: `Edit: ${edited}` }), "the Edit button, after cancelling");
    await app.page.locator(`li[data-task="${task.id}"]`).getByText(edited, { exact: true }).waitFor();
  });

  it("an edit made on another device shows on the card as it is committed", async () => {
    const [task] = await stored(edited);
    assert.ok(task);
    const patched = await app.call("PATCH", `/api/tasks/${task.id}`, { notes: "photos and the old passport", priority: 1 });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const card = app.page.locator(`li[data-task="${task.id}"]`);
    await card.getByText("photos and the old passport", { exact: true }).waitFor();
    await card.getByText("Low priority", { exact: true }).waitFor();
  });

  it("memory: a note is added, found and forgotten; one added elsewhere appears", async () => {
    await app.open("memory", "Memory");
    await app.page.getByText("Nothing remembered yet.").waitFor();
    await app.page.getByLabel("What to remember", { exact: true }).fill("Grete is my sister; her birthday is 3 March");
    await app.page.getByLabel("Tags", { exact: true }).fill("family");
    await app.page.getByRole("button", { name: "Remember it" }).click();
    const notes = app.page.getByRole("list", { name: "Memory notes" });
    await notes.getByText("Grete is my sister; her birthday is 3 March").waitFor();
    const items = (await app.call("GET", "/api/memory")).body.items;
    assert.deepEqual(
      items.map((n: { text: string; tags: string[] }) => [n.text, n.tags]),
      [["Grete is my sister; her birthday is 3 March", ["family"]]],
    );
    assert.equal((await app.call("POST", "/api/memory", { text: "Prefers tea to coffee" })).status, 201);
    await notes.getByText("Prefers tea to coffee").waitFor();
    await app.page.getByLabel("Search the memory", { exact: true }).fill("birthday");
    await app.page.getByRole("button", { name: "Search", exact: true }).click();
    const found = app.page.getByRole("list", { name: "Memory notes matching birthday" });
    await found.getByText(/Grete/).waitFor();
    assert.equal(await found.getByText("Prefers tea to coffee").count(), 0, "the search leaves out what does not match");
    await app.page.getByRole("button", { name: "Forget: Grete is my sister; her birthday is 3 March" }).click();
    await app.page.getByText("Nothing remembered matches “birthday”.").waitFor();
    assert.deepEqual(
      (await app.call("GET", "/api/memory")).body.items.map((n: { text: string }) => n.text),
      ["Prefers tea to coffee"],
    );
    await app.page.getByRole("button", { name: "Show all" }).click();
    await notes.getByText("Prefers tea to coffee").waitFor();
  });

  it("rules: one is added, then deleted", async () => {
    await app.page.getByText("No standing rule yet.").waitFor();
    await app.page.getByLabel("The rule", { exact: true }).fill("Answer in French on weekends");
    await app.page.getByRole("button", { name: "Add the rule" }).click();
    await app.page.getByRole("list", { name: "Standing rules" }).getByText("Answer in French on weekends").waitFor();
    assert.deepEqual(
      (await app.call("GET", "/api/rules")).body.items.map((r: { text: string; enabled: boolean }) => [r.text, r.enabled]),
      [["Answer in French on weekends", true]],
    );
    await app.screenshot("memory");
    assert.deepEqual(await app.axe(), []);
    await app.page.getByRole("button", { name: "Delete the rule: Answer in French on weekends" }).click();
    await app.page.getByText("No standing rule yet.").waitFor();
    assert.deepEqual((await app.call("GET", "/api/rules")).body.items, []);
  });

  it("the persona: the constitution is saved; the sensitive instructions after confirming it's you; the content mode is set", async () => {
    await app.page.getByLabel("Constitution", { exact: true }).fill("Be brief and kind.");
    await app.page.getByRole("button", { name: "Save the persona" }).click();
    await app.page.getByText("The persona is saved.").waitFor();
    let persona = (await app.call("GET", "/api/persona")).body;
    assert.deepEqual([persona.constitution, persona.sensitiveInstructions], ["Be brief and kind.", ""]);

    await app.page.getByLabel("Sensitive instructions", { exact: true }).fill("Do not mention my diet.");
    await app.page.getByRole("button", { name: "Save the persona" }).click();
    const dialog = app.page.getByRole("dialog", { name: "Confirm it's you" });
    await dialog.getByRole("button", { name: "Confirm with a passkey" }).click();
    await dialog.waitFor({ state: "hidden" });
    await app.page.getByText("The persona is saved.").waitFor();
    persona = (await app.call("GET", "/api/persona")).body;
    assert.deepEqual([persona.constitution, persona.sensitiveInstructions], ["Be brief and kind.", "Do not mention my diet."]);
    assert.equal(await app.page.getByLabel("Sensitive instructions", { exact: true }).inputValue(), "Do not mention my diet.");

    assert.equal(persona.contentMode, "Standard");
    await app.page.getByRole("radio", { name: /Strict/ }).check();
    await app.page.getByRole("button", { name: "Set the content mode" }).click();
    await app.page.getByText("The content mode is Strict.").waitFor();
    assert.equal((await app.call("GET", "/api/persona")).body.contentMode, "Strict");
    await app.screenshot("memory-persona");
    assert.deepEqual(await app.axe(), []);
  });

  it("the page's scripts threw nothing, and its policy refused nothing", () => {
    assert.deepEqual(app.pageErrors, []);
    assert.deepEqual(app.refusedByPolicy, []);
  });
});
