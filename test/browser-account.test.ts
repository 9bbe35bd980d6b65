/**
 * @module The app's account pages in Chromium with a virtual authenticator, against a real
 * `charter node`: set-up with the printed code (recovery codes shown once), the page's policy
 * refusing another origin, sign-out and sign-in with the passkey, the step-up prompt before a
 * sensitive change (cancelled, then confirmed), sessions, passkeys, a pairing code with its QR
 * code, new recovery codes, and a recovery code signing in to add a passkey. Screenshots at
 * 375 px and 1280 px; axe-core finds no serious violation on any page. `charter serve` serves no
 * page.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { chromium } from "playwright-core";
import { type BrowserApp, CHROMIUM, CHROMIUM_ARGS, openApp, PHONE, skipWithoutChromium } from "./helpers/browser.ts";
import { cleanup, startCharter, stopCharter } from "./helpers/charter-process.ts";

describe("the account pages in Chromium, with a virtual authenticator", { skip: skipWithoutChromium }, () => {
  let app: BrowserApp;
  let recovery: readonly string[] = [];

  before(async () => {
    app = await openApp();
  });
  after(async () => {
    await app?.close();
  });

  it("opens on set-up: a first name and the set-up code; the policy is strict", async (t) => {
    t.diagnostic(`screenshots: ${app.shots}`);
    const answer = await app.page.goto(`${app.origin}/`);
    assert.equal(answer?.status(), 200);
    assert.match(answer?.headers()["content-security-policy"] ?? "", /script-src 'self'.*connect-src 'self'/);
    await app.page.getByRole("heading", { name: "Set up this node" }).waitFor();
    assert.ok(await app.page.getByLabel("First name").isVisible());
    assert.ok(await app.page.getByLabel("Set-up code").isVisible());
    await app.screenshot("set-up");
    assert.deepEqual(await app.axe(), []);
  });

  it("the page's policy refuses a request to another origin (the node's own IP address)", async () => {
    const elsewhere = app.node.url;
    const refused = await app.page.evaluate((url) => fetch(`${url}/health`).then(() => "answered", (e: Error) => e.name), elsewhere);
    assert.equal(refused, "TypeError");
    assert.ok(app.refusedByPolicy.some((m) => m.includes(elsewhere)), app.refusedByPolicy.join("\n"));
    app.refusedByPolicy.length = 0;
  });

  it("a wrong set-up code is refused with the node's reason, and nothing is created", async () => {
    await app.page.getByLabel("First name").fill("Ada");
    await app.page.getByLabel("Set-up code").fill("AAAA-AAAA");
    await app.page.getByRole("button", { name: "Create the account" }).click();
    await app.page.getByRole("alert").waitFor();
    assert.match((await app.page.getByRole("alert").textContent()) ?? "", /set-up code/i);
    assert.equal((await app.call("GET", "/api/account")).body.setUp, false);
  });

  it("creates the account with a passkey: ten recovery codes, once, then Home", async () => {
    recovery = await app.setUp("Ada");
    assert.equal(recovery.length, 10);
    assert.equal(new Set(recovery).size, 10);
    assert.deepEqual({ ...(await app.call("GET", "/api/account")).body, seal: "" }, { setUp: true, signedIn: true, firstName: "Ada", seal: "" });
    await app.screenshot("home");
    assert.deepEqual(await app.axe(), []);
  });

  it("Activity shows a commit the moment it is made, linked to its record", async () => {
    await app.open("activity", "Activity");
    await app.page.getByText("Live updates: connected").waitFor();
    // The personal contracts install just after set-up; a task is a commit on std.tasks.
    let created: { status: number; body: any } = { status: 0, body: null };
    for (let i = 0; i < 100 && created.status !== 201; i++) {
      created = await app.call("POST", "/api/tasks", { title: "Water the plants" });
      if (created.status !== 201) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const row = app.page.locator(`tr[data-seq="${created.body.receipt.seq}"]`);
    await row.waitFor();
    assert.match((await row.textContent()) ?? "", /Create on std\.tasks Task/);
    assert.equal(await row.locator("td.outcome").textContent(), "accepted");
    await app.screenshot("activity");
    assert.deepEqual(await app.axe(), []);
    // When: the commit's own time (the receipt's), live and replayed alike.
    const committedAt = new Date(created.body.receipt.committedAt).toISOString();
    assert.equal(await row.locator("td time").getAttribute("datetime"), committedAt);
    // Opened afresh, the page shows the commits made before it, replayed by the node, each with its time.
    await app.page.reload();
    await row.waitFor();
    assert.equal(await row.locator("td time").getAttribute("datetime"), committedAt);
    await row.getByRole("link").click();
    await app.page.getByRole("heading", { level: 1 }).filter({ hasText: /Water the plants|Task/ }).first().waitFor();
  });

  it("signs out, then signs in with the passkey", async () => {
    await app.open("", "Hello, Ada");
    await app.page.getByRole("button", { name: "Sign out" }).click();
    await app.page.getByRole("button", { name: "Sign in with a passkey" }).waitFor();
    await app.screenshot("sign-in");
    assert.deepEqual(await app.axe(), []);
    await app.page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await app.page.getByRole("heading", { name: "Hello, Ada" }).waitFor();
  });

  it("a sensitive change asks to confirm it's you: cancelled, nothing changes; confirmed, the change is made", async () => {
    await app.open("account", "Account");
    await app.page.getByRole("button", { name: "Show a pairing code" }).click();
    const dialog = app.page.getByRole("dialog", { name: "Confirm it's you" });
    await dialog.waitFor();
    await app.screenshot("step-up");
    assert.deepEqual(await app.axe(), []);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await app.page.getByText("Not confirmed: nothing was changed.").waitFor();
    await app.page.getByRole("button", { name: "Show a pairing code" }).click();
    await dialog.getByRole("button", { name: "Confirm with a passkey" }).click();
    const code = app.page.locator(".pairing code.big");
    await code.waitFor();
    assert.match((await code.textContent()) ?? "", /^[0-9A-Z-]{8,9}$/);
    assert.ok(await app.page.getByRole("img", { name: /QR code of the pairing link/ }).isVisible());
    const sessions = (await app.call("GET", "/api/account/sessions")).body;
    const current = sessions.items.find((s: { current: boolean }) => s.current);
    assert.ok(Date.parse(current.steppedUpUntil) > Date.now(), "the session is stepped up");
  });

  it("a new device opens the pairing link (the QR code's), makes its own passkey and is signed in", async () => {
    const code = (await app.page.locator(".pairing code.big").textContent()) ?? "";
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const device = await browser.newContext({ viewport: PHONE });
      const page = await device.newPage();
      const cdp = await device.newCDPSession(page);
      await cdp.send("WebAuthn.enable");
      await cdp.send("WebAuthn.addVirtualAuthenticator", { options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } });
      await page.goto(`${app.origin}/#/pair?code=${encodeURIComponent(code)}`);
      assert.equal(await page.getByLabel("Pairing code").inputValue(), code, "the link fills the code in");
      await page.getByRole("button", { name: "Pair this device" }).click();
      await page.getByRole("heading", { name: "Hello, Ada" }).waitFor();
    } finally {
      await browser.close();
    }
    await app.page.reload();
    await app.page.getByRole("heading", { name: "Sessions" }).waitFor();
    // The new device's session is listed beside this one.
    await app.page.locator("section[aria-labelledby=sessions-title] li").nth(1).waitFor();
  });

  it("works with the keyboard alone: the skip link first, the menu, and at phone width a menu button", async () => {
    await app.page.reload();
    await app.page.getByRole("heading", { level: 1, name: "Account" }).waitFor();
    await app.page.keyboard.press("Tab");
    assert.equal(await app.page.evaluate(() => document.activeElement?.textContent), "Skip to the page");
    await app.page.keyboard.press("Enter");
    assert.equal(await app.page.evaluate(() => document.activeElement?.id), "page-title");
    await app.page.setViewportSize(PHONE);
    try {
      const toggle = app.page.getByRole("button", { name: "Menu" });
      assert.equal(await app.page.getByRole("navigation", { name: "Pages" }).isVisible(), false, "the menu is folded at 375 px");
      await toggle.focus();
      await app.page.keyboard.press("Enter");
      assert.equal(await toggle.getAttribute("aria-expanded"), "true");
      await app.page.getByRole("link", { name: "Activity" }).focus();
      await app.page.keyboard.press("Enter");
      await app.page.getByRole("heading", { level: 1, name: "Activity" }).waitFor();
      assert.equal(await app.page.evaluate(() => document.activeElement?.id), "page-title", "the new page's heading has the focus");
      assert.equal(await app.page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, "nothing overflows at 375 px");
    } finally {
      await app.page.setViewportSize({ width: 1280, height: 900 });
    }
    await app.page.goto(`${app.origin}/#/account`);
    await app.page.getByRole("heading", { level: 1, name: "Account" }).waitFor();
  });

  it("lists sessions and passkeys, adds a passkey, makes new recovery codes", async () => {
    await app.page.getByRole("heading", { name: "Sessions" }).waitFor();
    await app.page.getByText("This device").first().waitFor();
    // A second passkey is made on another authenticator (this one already holds the node's).
    await app.swapAuthenticator();
    await app.page.getByLabel("Name of the new passkey").fill("second key");
    await app.page.getByRole("button", { name: "Add a passkey" }).click();
    await app.page.getByText("second key").waitFor();
    await app.page.getByRole("button", { name: /Make a new set/ }).click();
    await app.page.getByRole("list", { name: "New recovery codes" }).waitFor();
    const fresh = await app.page.getByRole("list", { name: "New recovery codes" }).locator("li").allTextContents();
    assert.equal(fresh.length, 10);
    assert.ok(fresh.every((c) => !recovery.includes(c)), "a new set");
    recovery = fresh;
    await app.screenshot("account");
    assert.deepEqual(await app.axe(), []);
    await app.page.getByRole("button", { name: "I have saved them" }).click();
  });

  it("a recovery code signs in to add a new passkey, then the new passkey signs in", async () => {
    await app.page.getByRole("button", { name: "Sign out" }).click();
    await app.swapAuthenticator(); // a new device: the passkeys are lost
    await app.page.getByRole("button", { name: "Use a recovery code" }).click();
    await app.page.getByLabel("Recovery code").fill(recovery[0] as string);
    await app.page.getByRole("button", { name: "Use the code" }).click();
    await app.page.getByText("The new passkey is saved: sign in with it.").waitFor();
    await app.page.getByRole("button", { name: "Sign in with a passkey" }).click();
    // Signed in, the page it was on comes back.
    await app.page.getByRole("heading", { level: 1, name: "Account" }).waitFor();
    assert.equal(await app.page.getByRole("alert").count(), 0);
    const passkeys = (await app.call("GET", "/api/account/passkey")).body.items.map((p: { label: string | null }) => p.label);
    assert.ok(passkeys.includes("added with a recovery code"), JSON.stringify(passkeys));
  });

  it("the page's scripts threw nothing, and its policy refused nothing the page needs", () => {
    assert.deepEqual(app.pageErrors, []);
    assert.deepEqual(app.refusedByPolicy, []);
  });
});

describe("charter serve", () => {
  it("serves no app page", async () => {
    const c = await startCharter({ edition: "serve" });
    try {
      for (const path of ["/", "/assets/", "/app.js"]) assert.equal((await fetch(`${c.url}${path}`)).status, 404, path);
    } finally {
      await stopCharter(c);
      cleanup(c.dataDir);
    }
  });
});
