/**
 * @module The Settings and Dashboards pages in Chromium against a real `charter node`: the model
 * double connected through the Settings form (a step-up first) and `m1` chosen for the
 * conversation, after which `/api/bootstrap` says a model is configured; a tool set to `ask`; a
 * mode the node refuses (an action set to `read`) and an interval out of range, each shown next to
 * its field; the time zone changed; the updates, email and webhooks sections loaded; a dashboard
 * made as test/api-dashboards.test.ts makes one, refreshed and shown as a table and bars; one made
 * through the page's form, whose wrong query is named next to its field. A tool server behind OAuth
 * authorized from the page: the browser goes to the authorization server and comes back to the
 * node's page, which finishes it with the session. Screenshots at 375 px and
 * 1280 px; axe-core finds no serious violation on any page.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type BrowserApp, openApp, skipWithoutChromium } from "./helpers/browser.ts";
import { waitFor } from "./helpers/charter-process.ts";
import { startHttpNotesServer } from "./helpers/mcp-server.ts";
import { invoiceArgs } from "./helpers/invoice-args.ts";

const DUE_PANEL = { namespace: "std.invoices", query: "Due", params: { on: "2026-12-31" } };

describe("the Settings and Dashboards pages in Chromium", { skip: skipWithoutChromium }, () => {
  let app: BrowserApp;

  before(async () => {
    app = await openApp({ model: true });
    await app.setUp("Ada");
  });
  after(async () => {
    await app?.close();
  });

  /** Nothing of the page as it is now is wider than a 375 px phone (nothing overflows sideways). */
  async function fitsPhone(): Promise<void> {
    const size = app.page.viewportSize();
    await app.page.setViewportSize({ width: 375, height: 812 });
    try {
      const width = await app.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 375, `the page is ${width} px wide at 375 px`);
    } finally {
      if (size !== null) await app.page.setViewportSize(size);
    }
  }

  /** The field (its `.field` block) whose control is labelled `label`. */
  const fieldOf = (label: string) => app.page.locator(".field", { has: app.page.getByLabel(label, { exact: true }) });

  it("connects the model double through the form (after a step-up) and chooses m1: the node then has a model", async (t) => {
    t.diagnostic(`screenshots: ${app.shots}`);
    const model = app.model;
    assert.ok(model !== null);
    assert.equal((await app.call("GET", "/api/bootstrap")).body.model.configured, false, "no model before");
    await app.open("settings", "Settings");
    await app.page.getByRole("heading", { level: 2, name: "Models" }).waitFor();
    await app.page.getByText("No connection yet.").waitFor();
    await app.page.getByLabel("Connection name", { exact: true }).fill("local");
    await app.page.getByLabel("Provider", { exact: true }).selectOption("openai");
    await app.page.getByLabel("Base URL", { exact: true }).fill(model.baseURL);
    await app.page.getByLabel("Key", { exact: true }).fill("");
    await app.page.getByRole("button", { name: "Save the connection" }).click();
    // Setting a key is sensitive: the node asks for a step-up, the page asks for the passkey.
    const dialog = app.page.getByRole("dialog", { name: "Confirm it's you" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Confirm with a passkey" }).click();
    await app.page.getByText("The connection local is saved.").waitFor();
    await app.page.getByRole("button", { name: "Remove the connection local" }).waitFor();
    const connections = (await app.call("GET", "/api/connections")).body.items;
    assert.deepEqual(
      connections.map((c: { id: string; provider: string; baseUrl: string; hasKey: boolean }) => [c.id, c.provider, c.baseUrl, c.hasKey]),
      [["local", "openai", model.baseURL, false]],
    );

    await app.page.getByLabel("Connection of conversation", { exact: true }).selectOption("local");
    await app.page.getByRole("button", { name: "List its models (local, conversation)" }).click();
    await app.page.getByText("local offers: m1, m2").first().waitFor();
    await app.page.getByLabel("Model of conversation", { exact: true }).fill("m1");
    await app.page.getByRole("button", { name: "Save the models" }).click();
    await app.page.getByText("The models are saved.").waitFor();
    assert.deepEqual((await app.call("GET", "/api/settings/models")).body, { conversation: { connection: "local", model: "m1" } });
    assert.deepEqual((await app.call("GET", "/api/bootstrap")).body.model, { configured: true, connection: "local", model: "m1" });
    await app.screenshot("settings-models");
    await fitsPhone();
    assert.deepEqual(await app.axe(), []);
  });

  it("an empty model is refused, with the node's reason next to the model field", async () => {
    await app.page.getByLabel("Model of conversation", { exact: true }).fill("");
    await app.page.getByRole("button", { name: "Save the models" }).click();
    const field = fieldOf("Model of conversation");
    await field.locator(".field-error").waitFor();
    assert.match((await field.locator(".field-error").textContent()) ?? "", /conversation\.model must be 1 to 256 characters/);
    assert.equal(await app.page.getByLabel("Model of conversation", { exact: true }).getAttribute("aria-invalid"), "true");
    assert.deepEqual((await app.call("GET", "/api/settings/models")).body.conversation, { connection: "local", model: "m1" }, "unchanged");
  });

  it("sets a tool to ask; an action set to read is refused with the reason next to its mode", async () => {
    await app.page.getByRole("link", { name: "Tools" }).click();
    await app.page.getByRole("heading", { level: 2, name: "Tools" }).waitFor();
    await app.page.getByLabel("Mode of std.invoices.Due", { exact: true }).selectOption("ask");
    await app.page.getByRole("button", { name: "Save the tools" }).click();
    await app.page.getByText("The tools are saved.").waitFor();
    assert.equal((await app.call("GET", "/api/settings/tools")).body.tools["std.invoices.Due"], "ask");

    await app.page.getByLabel("Mode of std.invoices.Approve", { exact: true }).selectOption("read");
    await app.page.getByRole("button", { name: "Save the tools" }).click();
    const field = fieldOf("Mode of std.invoices.Approve");
    await field.locator(".field-error").waitFor();
    assert.match((await field.locator(".field-error").textContent()) ?? "", /std\.invoices\.Approve is an action: off or ask/);
    const select = app.page.getByLabel("Mode of std.invoices.Approve", { exact: true });
    assert.equal(await select.getAttribute("aria-invalid"), "true");
    const describedBy = (await select.getAttribute("aria-describedby")) ?? "";
    assert.match((await app.page.locator(`[id="${describedBy}"]`).textContent()) ?? "", /is an action/, "the reason describes the control");
    await app.page.getByRole("alert").filter({ hasText: "Refused" }).waitFor();
    const tools = (await app.call("GET", "/api/settings/tools")).body.tools;
    assert.deepEqual([tools["std.invoices.Approve"], tools["std.invoices.Due"]], ["off", "ask"], "nothing changed by the refusal");
    await app.screenshot("settings-tools");
    await fitsPhone();
    assert.deepEqual(await app.axe(), []);
  });

  it("authorizes a tool server behind OAuth: the provider sends the browser back to the node's page, which finishes it with the session", async () => {
    const dir = mkdtempSync(join(tmpdir(), "charter-oauth-notes-"));
    const http = await startHttpNotesServer({ stateFile: join(dir, "notes.json"), oauth: true });
    try {
      await app.stepUp();
      const added = await app.call("POST", "/api/settings/integrations/tools", { id: "wiki", name: "Wiki", catalogue: "custom", url: http.url });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      await app.page.reload();
      await app.page.getByRole("heading", { level: 2, name: "Tools" }).waitFor();
      const card = app.page.locator("li.card", { has: app.page.getByText("Wiki", { exact: true }) });
      await card.getByText("not authorized").waitFor();
      await app.page.getByRole("button", { name: "Authorize Wiki" }).click();
      const link = card.getByRole("link", { name: /\/authorize\?/ });
      await link.waitFor();
      assert.equal(new URL((await link.getAttribute("href")) ?? "").searchParams.get("redirect_uri"), `${app.origin}/oauth/callback`);
      // The same tab goes to the authorization server, which sends it straight back with a code.
      await link.click();
      await app.page.getByText("Wiki is authorized: its tools can be listed and set.").waitFor();
      const back = new URL(app.page.url());
      assert.deepEqual([back.pathname, back.search, back.hash], ["/", "", "#/settings/tools"], "the code leaves the address");
      await card.getByText("authorized", { exact: true }).waitFor();
      assert.equal((await app.call("GET", "/api/settings/integrations/tools/wiki")).body.auth.authorized, true);
      assert.equal(http.issued.length, 1);
      await app.screenshot("settings-tool-authorized");
      assert.deepEqual(await app.axe(), []);
      // Coming back again with the spent state: the node's reason, nothing authorized anew.
      await app.page.goto(`${app.origin}/oauth/callback?code=x&state=spent`);
      await app.page.getByRole("alert").filter({ hasText: "could not be finished" }).waitFor();
      await app.page.goto(`${app.origin}/oauth/callback?error=access_denied`);
      await app.page.getByRole("alert").filter({ hasText: "was not given (access_denied)" }).waitFor();
      assert.equal(http.issued.length, 1);
    } finally {
      await app.stepUp();
      await app.call("DELETE", "/api/settings/integrations/tools/wiki");
      await http.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("changes the time zone", async () => {
    await app.open("settings/sign-in", "Settings");
    const zone = app.page.getByLabel("Time zone", { exact: true });
    await app.page.getByRole("heading", { level: 2, name: "Sign-in and time zone" }).waitFor();
    await waitFor("the stored zone in the field", async () => ((await zone.inputValue()) !== "" ? true : undefined));
    await zone.fill("Europe/Paris");
    await app.page.getByRole("button", { name: "Save sign-in and time zone" }).click();
    await app.page.getByText("Saved.", { exact: true }).waitFor();
    assert.equal((await app.call("GET", "/api/account/settings")).body.timeZone, "Europe/Paris");
    await app.screenshot("settings-sign-in");
    await fitsPhone();
    assert.deepEqual(await app.axe(), []);
  });

  it("the updates section shows what runs; the email and webhooks sections load", async () => {
    const running = (await app.call("GET", "/api/settings/updates")).body.running.version as string;
    await app.page.getByRole("link", { name: "Updates" }).click();
    await app.page.getByRole("heading", { level: 2, name: "Updates" }).waitFor();
    await app.page.locator("dl.settings-facts dd").filter({ hasText: running }).waitFor();
    assert.equal(await app.page.getByLabel("Mode", { exact: true }).inputValue(), "off");
    await app.screenshot("settings-updates");
    await fitsPhone();
    assert.deepEqual(await app.axe(), []);

    await app.page.getByRole("link", { name: "Email" }).click();
    await app.page.getByRole("heading", { level: 2, name: "Email" }).waitFor();
    await app.page.getByText("No email account: they are set up on the node.").waitFor();
    assert.equal(await app.page.getByLabel("Ask me before any email is sent", { exact: true }).isChecked(), true);
    await app.screenshot("settings-email");
    await fitsPhone();
    assert.deepEqual(await app.axe(), []);

    await app.page.getByRole("link", { name: "Webhooks" }).click();
    await app.page.getByRole("heading", { level: 2, name: "Webhooks" }).waitFor();
    await app.page.getByLabel("Secret of github", { exact: true }).waitFor();
    assert.match(await app.page.getByLabel("Mappings (JSON)", { exact: true }).inputValue(), /"source": "github"/);
    await app.screenshot("settings-webhooks");
    await fitsPhone();
    assert.deepEqual(await app.axe(), []);
  });

  it("autonomy: an interval out of range is refused next to its field", async () => {
    await app.page.getByRole("link", { name: "Autonomy" }).click();
    await app.page.getByRole("heading", { level: 2, name: "Autonomy" }).waitFor();
    const every = app.page.getByLabel("Every (minutes)", { exact: true });
    await waitFor("the stored interval", async () => ((await every.inputValue()) !== "" ? true : undefined));
    await every.fill("2");
    await app.page.getByRole("button", { name: "Save autonomy" }).click();
    const field = fieldOf("Every (minutes)");
    await field.locator(".field-error").waitFor();
    assert.match((await field.locator(".field-error").textContent()) ?? "", /intervalMinutes must be a whole number from 5 to 10080/);
    assert.equal((await app.call("GET", "/api/settings/autonomy")).body.intervalMinutes, 60);
    await app.screenshot("settings-autonomy");
    await fitsPhone();
    assert.deepEqual(await app.axe(), []);
  });

  it("a dashboard made as the API test makes one: listed, refreshed from the page, shown as a table and bars", async () => {
    await waitFor("std.dashboards in the personal tenant", async () => {
      const boot = await app.call("GET", "/api/bootstrap");
      return (boot.body.tenant.contracts as { namespace: string }[]).some((c) => c.namespace === "std.dashboards") ? true : undefined;
    });
    for (const n of [1, 2]) {
      const recorded = await app.call("POST", "/api/data/act", { namespace: "std.invoices", action: "Record", subject: `inv-${n}`, args: invoiceArgs(n) });
      assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
      const approved = await app.call("POST", "/api/data/act", { namespace: "std.invoices", action: "Approve", subject: `inv-${n}`, args: {} });
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
    }
    const created = await app.call("POST", "/api/artifacts", { title: "Bills to pay", panels: [DUE_PANEL] });
    assert.equal(created.status, 201, JSON.stringify(created.body));

    await app.open("dashboards", "Dashboards");
    await app.page.getByRole("link", { name: "Bills to pay" }).click();
    await app.page.getByRole("heading", { level: 2, name: "Bills to pay" }).waitFor();
    await app.page.getByText("Not refreshed yet.").waitFor();
    await app.page.getByRole("button", { name: "Refresh now" }).click();
    const table = app.page.getByRole("table");
    await table.waitFor();
    assert.deepEqual(await table.locator("tbody tr td:first-child").allTextContents(), ["inv-1", "inv-2"]);
    const headers = await table.locator("thead th").allTextContents();
    const amountColumn = headers.indexOf("amount_minor");
    assert.ok(amountColumn >= 0, headers.join(","));
    assert.deepEqual(await table.locator(`tbody tr td:nth-child(${amountColumn + 1})`).allTextContents(), ["1001", "1002"]);
    await app.page.getByRole("img", { name: /^amount_minor by / }).waitFor();
    assert.equal(await app.page.locator("svg.dash-bars rect").count(), 2);
    const read = (await app.call("GET", `/api/artifacts/${created.body.id}`)).body;
    assert.equal(read.result.panels[0].rows.length, 2, "the refresh was recorded");
    await app.screenshot("dashboard");
    await fitsPhone();
    assert.deepEqual(await app.axe(), []);

    await app.page.getByLabel("Refresh every (minutes, 0 for never)", { exact: true }).fill("60");
    await app.page.getByRole("button", { name: "Save the schedule" }).click();
    await app.page.getByText("The schedule is saved.").waitFor();
    assert.equal((await app.call("GET", `/api/artifacts/${created.body.id}`)).body.schedule.everyMinutes, 60);
  });

  it("makes a dashboard through the form: a query the contract lacks is named next to its field, then it is made", async () => {
    await app.page.getByRole("link", { name: "All dashboards" }).click();
    await app.page.getByRole("heading", { level: 2, name: "New dashboard" }).waitFor();
    await app.page.getByLabel("Title", { exact: true }).fill("Due this year");
    await app.page.getByLabel("Contract", { exact: true }).selectOption("std.invoices");
    await app.page.getByLabel("Query", { exact: true }).fill("Nope");
    await app.page.getByLabel("Parameters (JSON)", { exact: true }).fill('{"on": "2026-12-31"}');
    await app.page.getByRole("button", { name: "Make the dashboard" }).click();
    const field = fieldOf("Query");
    await field.locator(".field-error").waitFor();
    assert.match((await field.locator(".field-error").textContent()) ?? "", /Nope/);
    await app.screenshot("dashboards-new");
    await fitsPhone();
    assert.deepEqual(await app.axe(), []);

    await app.page.getByLabel("Query", { exact: true }).fill("Due");
    await app.page.getByRole("button", { name: "Make the dashboard" }).click();
    await app.page.getByRole("heading", { level: 2, name: "Due this year" }).waitFor();
    const list = (await app.call("GET", "/api/personal/std.dashboards/Dashboard")).body.items;
    assert.deepEqual(list.map((d: { state: { title: string } }) => d.state.title).sort(), ["Bills to pay", "Due this year"]);
  });

  it("the pages' scripts threw nothing, and their policy refused nothing", () => {
    assert.deepEqual(app.pageErrors, []);
    assert.deepEqual(app.refusedByPolicy, []);
  });
});
