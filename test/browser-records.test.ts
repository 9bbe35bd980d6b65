/**
 * @module The Records and Workbench pages in Chromium against a real `charter node`: the installed
 * contracts and their aggregates; an action's form generated from the contract's description
 * (lengths, enums, dates, numbers, lists), previewed, sent, and the record with its history and
 * receipts; a refusal with its reason, previewed and sent; in the Workbench, a contract with an error
 * shows the compiler's diagnostic at its line (and the caret goes there), completion suggests, the
 * fixed contract runs steps with a result each, and an install asked for, approved with a step-up,
 * installs the contract (bootstrap lists it) whose records then have forms of their own. Screenshots
 * at 375 px and 1280 px; axe-core finds no serious violation on any page.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type BrowserApp, openApp, skipWithoutChromium } from "./helpers/browser.ts";
import { waitFor } from "./helpers/charter-process.ts";
import { STARTER } from "../app/components/workbench-starter.ts";

/** The Workbench page's starter contract, which the steps below edit. */
const NOTES = STARTER;

describe("the Records and Workbench pages in Chromium", { skip: skipWithoutChromium }, () => {
  let app: BrowserApp;

  const contracts = async (): Promise<string[]> => ((await app.call("GET", "/api/bootstrap")).body.tenant?.contracts ?? []).map((c: { namespace: string }) => c.namespace);

  before(async () => {
    app = await openApp();
    await app.setUp("Ada");
    // The personal standard contracts install just after set-up.
    await waitFor("std.tasks in the personal tenant", async () => ((await contracts()).includes("std.tasks") ? true : undefined), 60_000);
  });
  after(async () => {
    await app?.close();
  });

  it("lists the installed contracts with their aggregates", async (t) => {
    t.diagnostic(`screenshots: ${app.shots}`);
    await app.open("records", "Records");
    const list = app.page.getByRole("list", { name: "Installed contracts" });
    await list.getByRole("link", { name: "std.tasks" }).waitFor();
    assert.ok(await list.getByRole("link", { name: "Task", exact: true }).isVisible());
    await app.screenshot("records");
    assert.deepEqual(await app.axe(), []);
    await list.getByRole("link", { name: "std.tasks" }).click();
    await app.page.getByRole("heading", { level: 1, name: "std.tasks" }).waitFor();
    await app.page.getByRole("link", { name: "Task", exact: true }).click();
    await app.page.getByRole("heading", { level: 1, name: "Task records" }).waitFor();
  });

  it("generates an action's form from the contract, previews it, sends it, and shows the record with its history and receipt", async () => {
    const page = app.page;
    await page.getByLabel("Action", { exact: true }).selectOption("Create");
    const form = page.getByRole("form", { name: "Create on Task" });
    await form.waitFor();
    // Every input is what the contract's description says: lengths, enums, dates, numbers, lists.
    const title = form.getByLabel("title", { exact: true });
    assert.equal(await title.getAttribute("maxlength"), "200");
    assert.equal(await form.getByLabel("notes", { exact: true }).getAttribute("maxlength"), "4000");
    const repeat = form.getByLabel("repeat", { exact: true });
    assert.deepEqual((await repeat.locator("option").allTextContents()).slice(1), ["None", "Daily", "Weekly", "Monthly", "Yearly"]);
    assert.equal(await form.getByLabel("due_on", { exact: true }).getAttribute("type"), "date");
    assert.equal(await form.getByLabel("priority", { exact: true }).getAttribute("type"), "number");
    assert.equal(await form.getByLabel("has_due", { exact: true }).getAttribute("type"), "checkbox");
    assert.equal(await form.getByLabel("Subject").getAttribute("required"), "", "a subject is always named");

    await form.getByLabel("Subject").fill("task-e2e-1");
    await title.fill("Buy milk");
    await repeat.selectOption("None");
    await form.getByLabel("due_on", { exact: true }).fill("1970-01-01");
    for (const name of ["due_at", "interval"]) await form.getByLabel(name, { exact: true }).fill("0");
    await form.getByLabel("priority", { exact: true }).fill("2");
    await form.getByLabel("tags", { exact: true }).fill("home\nerrand");

    await form.getByRole("button", { name: "Preview" }).click();
    const preview = form.getByRole("region", { name: "Preview: it would be accepted" });
    await preview.waitFor();
    assert.match((await preview.textContent()) ?? "", /Buy milk/);
    assert.equal((await app.call("GET", "/api/personal/std.tasks/Task/task-e2e-1")).status, 404, "a preview writes nothing");
    await app.screenshot("records-preview");
    assert.deepEqual(await app.axe(), []);

    await form.getByRole("button", { name: "Send Create" }).click();
    await form.getByRole("region", { name: /^Accepted \(#\d+\)$/ }).waitFor();
    const stored = await app.call("GET", "/api/personal/std.tasks/Task/task-e2e-1");
    assert.equal(stored.status, 200);
    assert.deepEqual([stored.body.record.state.title, stored.body.record.state.priority, stored.body.record.state.tags], ["Buy milk", 2, ["home", "errand"]]);
    await page.getByRole("list", { name: "Task records" }).getByRole("link", { name: "task-e2e-1" }).waitFor();

    await form.getByRole("link", { name: "Open the record task-e2e-1" }).click();
    await page.getByRole("heading", { level: 1, name: "Task task-e2e-1" }).waitFor();
    const state = page.getByRole("definition").filter({ hasText: "Buy milk" });
    await state.waitFor();
    const history = page.getByRole("list", { name: "History of task-e2e-1" });
    const entry = history.getByRole("listitem").first();
    assert.match((await entry.textContent()) ?? "", /Create\s*accepted/);
    await entry.getByText("Receipt").click();
    const receipt = JSON.parse((await entry.getByLabel("Receipt").textContent()) ?? "{}");
    assert.deepEqual([receipt.outcome, receipt.action, receipt.subject, receipt.seq], ["accepted", "Create", "task-e2e-1", stored.body.history.items[0].seq]);
    await app.screenshot("record");
    assert.deepEqual(await app.axe(), []);
  });

  it("a refused action shows the contract's reason, in the preview, the answer and the history", async () => {
    const page = app.page;
    await page.getByLabel("Action", { exact: true }).selectOption("Reopen");
    const form = page.getByRole("form", { name: "Reopen on Task" });
    await form.getByRole("button", { name: "Preview" }).click();
    const preview = form.getByRole("region", { name: "Preview: it would be refused" });
    await preview.waitFor();
    assert.match((await preview.textContent()) ?? "", /state\.status == Done/);

    await form.getByRole("button", { name: "Send Reopen" }).click();
    const refused = form.getByRole("region", { name: /^Refused \(#\d+\)$/ });
    await refused.waitFor();
    assert.match((await refused.getByRole("alert").textContent()) ?? "", /^Reason: condition does not hold: state\.status == Done/);
    assert.match((await refused.textContent()) ?? "", /state\.status == Done/);
    const entry = page.getByRole("list", { name: "History of task-e2e-1" }).getByRole("listitem").nth(1);
    await entry.waitFor();
    assert.match((await entry.textContent()) ?? "", /Reopen\s*refused/);
    assert.match((await entry.textContent()) ?? "", /state\.status == Done/);
    const stored = await app.call("GET", "/api/personal/std.tasks/Task/task-e2e-1");
    assert.deepEqual(stored.body.history.items.map((e: { action: string; outcome: string }) => [e.action, e.outcome]), [
      ["Create", "accepted"],
      ["Reopen", "refused"],
    ]);
    await app.screenshot("record-refused");
    assert.deepEqual(await app.axe(), []);
  });

  it("the Workbench shows a diagnostic at its line, moves the caret there, and suggests; the fixed contract compiles", async () => {
    const page = app.page;
    await app.open("workbench", "Workbench");
    const status = page.locator("#wb-check");
    await waitFor("the starter contract to compile", async () => (/^Compiles: my\.notes/.test((await status.textContent()) ?? "") ? true : undefined), 60_000);
    const source = page.getByLabel(/^Contract source/);
    const broken = NOTES.replace("len(title) > 0", "len(title) > true");
    const line = broken.split("\n").findIndex((l) => l.includes("len(title) > true")) + 1;
    await source.fill(broken);
    const go = page.getByRole("button", { name: `Line ${line}, column 7` });
    await go.waitFor({ timeout: 60_000 });
    assert.match((await status.textContent()) ?? "", /^1 error/);
    assert.deepEqual(await page.locator(".wb-gutter .bad").allTextContents(), [String(line)], "the line is marked");
    await go.click();
    const caret = await source.evaluate((el: HTMLTextAreaElement) => [document.activeElement === el, el.selectionStart]);
    const offset = broken.split("\n").slice(0, line - 1).join("\n").length + 1 + 6;
    assert.deepEqual(caret, [true, offset], "the caret is at the diagnostic's line and column");
    await app.screenshot("workbench-error");
    assert.deepEqual(await app.axe(), []);

    // Completion: `state.` offers the fields the contract declares.
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await page.keyboard.type("state.arch");
    await page.keyboard.press("Control+Space");
    const suggestions = page.getByRole("listbox", { name: "Suggestions" });
    await suggestions.waitFor();
    assert.deepEqual(await suggestions.getByRole("option").allTextContents(), ["archived field"]);
    assert.deepEqual(await app.axe(), []);
    await page.keyboard.press("Enter");
    assert.match(await source.inputValue(), /\n\s*state\.archived\n/);

    await source.fill(NOTES);
    await waitFor("the fixed contract to compile", async () => (/^Compiles: my\.notes, art_/.test((await status.textContent()) ?? "") ? true : undefined), 60_000);
    assert.equal(await page.locator(".wb-gutter .bad").count(), 0);
  });

  it("runs the steps on a throwaway node: each step's state or refusal with its reason", async () => {
    const page = app.page;
    const step = (n: number) => page.getByRole("group", { name: `Step ${n}` });
    const fillStep = async (n: number, action: string, signer: string, args = "{}") => {
      await step(n).getByLabel("Action").fill(action);
      await step(n).getByLabel("Subject").fill("note-1");
      await step(n).getByLabel("Arguments (JSON)").fill(args);
      await step(n).getByLabel("Signer").fill(signer);
    };
    await fillStep(1, "Write", "", '{"title": "Hello", "text": "First note"}');
    for (const n of [2, 3, 4]) {
      await page.getByRole("button", { name: "Add a step" }).click();
      await step(n).waitFor();
    }
    await fillStep(2, "Archive", "");
    await fillStep(3, "Archive", "owner");
    await fillStep(4, "Write", "", '{"title": "Again", "text": ""}');
    await page.getByRole("button", { name: "Run the steps" }).click();
    const settled = page.getByText(/^(Ran \d+ steps? on a throwaway node|The check did not run|The steps did not run)/);
    await settled.waitFor({ timeout: 120_000 });
    assert.match((await settled.textContent()) ?? "", /^Ran 4 steps on a throwaway node/);
    const result = (n: number) => page.getByRole("region", { name: `Result of step ${n}` });
    const texts = await Promise.all([1, 2, 3, 4].map(async (n) => (await result(n).textContent()) ?? ""));
    assert.match(texts[0] as string, /^accepted — Write on note-1 by alice/);
    assert.match(texts[0] as string, /First note/);
    assert.match(texts[1] as string, /^refused — Archive on note-1 by alice.*Reason:/);
    assert.match(texts[2] as string, /^accepted — Archive on note-1 by owner/);
    assert.match(texts[3] as string, /^refused — Write on note-1 by alice/);
    assert.match(texts[3] as string, /state\.archived == false/);
    assert.ok(!(await contracts()).includes("my.notes"), "a check installs nothing");
    await app.screenshot("workbench-steps");
    assert.deepEqual(await app.axe(), []);

    // A step that is not JSON is named, and nothing is sent.
    await step(4).getByLabel("Arguments (JSON)").fill("{title");
    await page.getByRole("button", { name: "Run the steps" }).click();
    await step(4).getByText(/^Not JSON/).waitFor();
    await page.getByText("The steps did not run: some arguments are not a JSON object (see the steps).").waitFor();
    await step(4).getByRole("button", { name: "Remove step 4" }).click();
    assert.equal(await step(4).count(), 0);
  });

  it("asks to install, is approved with a step-up, and the contract is installed with records of its own", async () => {
    const page = app.page;
    await page.getByRole("button", { name: "Ask to install" }).click();
    const approval = page.getByRole("group", { name: "Install approval" });
    await page.locator(".wb-approval, #main .error").first().waitFor({ timeout: 60_000 });
    assert.deepEqual(await page.locator("#main .error").allTextContents(), [], "the install was asked without a problem");
    await approval.getByText("waiting").waitFor();
    assert.match((await approval.textContent()) ?? "", /Install my\.notes 1\.0\.0 \(art_/);
    assert.ok(!(await contracts()).includes("my.notes"), "nothing is installed before the approval");
    await approval.getByRole("button", { name: "Approve and install" }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm it's you" });
    await dialog.getByRole("button", { name: "Confirm with a passkey" }).click();
    await page.getByRole("status").filter({ hasText: "installed my.notes 1.0.0" }).waitFor({ timeout: 60_000 });
    assert.ok(await approval.getByText("approved").isVisible());
    assert.ok((await contracts()).includes("my.notes"), "bootstrap lists the installed contract");
    await app.screenshot("workbench-installed");
    assert.deepEqual(await app.axe(), []);

    await page.getByRole("link", { name: "Open its records" }).click();
    await page.getByRole("heading", { level: 1, name: "my.notes" }).waitFor();
    await page.getByRole("link", { name: "Note", exact: true }).click();
    const form = page.getByRole("form", { name: "Archive on Note" });
    await form.waitFor();
    await page.getByLabel("Action", { exact: true }).selectOption("Write");
    const write = page.getByRole("form", { name: "Write on Note" });
    assert.equal(await write.getByLabel("title", { exact: true }).getAttribute("maxlength"), "100");
    assert.equal(await write.getByLabel("text", { exact: true }).getAttribute("maxlength"), "2000");
  });

  it("the page's scripts threw nothing, and its policy refused nothing the page needs", () => {
    assert.deepEqual(app.pageErrors, []);
    assert.deepEqual(app.refusedByPolicy, []);
  });
});
