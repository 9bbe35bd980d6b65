/**
 * @module The app page in a real browser: Debian's Chromium, driven by playwright-core with a CDP
 * virtual authenticator, against a real `charter node` at `http://localhost:PORT`. It creates the
 * account with the printed set-up code and sees the recovery codes once, signs out, signs in with
 * the passkey, steps up, and records a test invoice whose commit arrives on the live events panel
 * (and one the contract refuses, with its reason); the page's policy refuses a request to another
 * origin. A screenshot follows each step. `charter serve` serves no page.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { type Charter, cleanup, startCharter, stopCharter } from "./helpers/charter-process.ts";
import { printedSetupCode } from "./helpers/api-client.ts";
import { freePort } from "./helpers/ports.ts";

const CHROMIUM = "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : "chromium is not installed (apt-get install -y chromium; .ci/run installs it)";
/** Headless, and nothing that reaches out to the network on its own (a closed network refuses it). */
const CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe("the app page in Chromium, with a virtual authenticator", { skip }, () => {
  let node: Charter | null = null;
  let context: BrowserContext | null = null;
  let page: Page;
  let origin = "";
  let profile = "";
  let shots = "";
  let shot = 0;
  /** Uncaught errors of the page's script, and its policy's refusals. */
  const pageErrors: string[] = [];
  const refusedByPolicy: string[] = [];

  before(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    node = await startCharter({ edition: "node", args: ["--listen", `127.0.0.1:${port}`, "--grpc", "127.0.0.1:0", "--origin", origin] });
    profile = mkdtempSync(join(tmpdir(), "charter-chromium-profile-"));
    shots = mkdtempSync(join(tmpdir(), "charter-browser-shots-"));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, viewport: { width: 1000, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
  });

  after(async () => {
    await context?.close().catch(() => {});
    if (node !== null) {
      await stopCharter(node);
      cleanup(node.dataDir);
    }
    if (profile !== "") cleanup(profile);
  });

  /** A full-page screenshot named `name`, numbered in order. */
  async function screenshot(name: string): Promise<void> {
    shot += 1;
    await page.screenshot({ path: join(shots, `${String(shot).padStart(2, "0")}-${name}.png`), fullPage: true });
  }

  const status = () => page.locator("#status");

  it("opens the page: not set up, it asks for a first name and the set-up code", async (t) => {
    t.diagnostic(`screenshots: ${shots}`);
    const answer = await page.goto(`${origin}/`);
    assert.equal(answer?.status(), 200);
    assert.match(answer?.headers()["content-security-policy"] ?? "", /connect-src 'self'/);
    await page.getByRole("heading", { name: "Set up this node" }).waitFor();
    assert.ok(await page.getByLabel("First name").isVisible());
    assert.ok(await page.getByLabel("Set-up code").isVisible());
    assert.equal(await page.getByRole("button", { name: "Sign in with a passkey" }).isVisible(), false);
    await screenshot("set-up-form");
  });

  it("the page's policy refuses a request to another origin (the node's own IP address)", async () => {
    const elsewhere = (node as Charter).url;
    const refused = await page.evaluate((url) => fetch(`${url}/health`).then(() => "answered", (e: Error) => e.name), elsewhere);
    assert.equal(refused, "TypeError");
    assert.ok(refusedByPolicy.some((m) => m.includes(elsewhere)), refusedByPolicy.join("\n"));
    refusedByPolicy.length = 0;
  });

  it("creates the account with the printed set-up code and a passkey: ten recovery codes, once, and signed in", async () => {
    await page.getByLabel("First name").fill("Ada");
    await page.getByLabel("Set-up code").fill(printedSetupCode(node as Charter));
    await page.getByRole("button", { name: "Create the account" }).click();
    const codes = page.locator("#recovery-codes li");
    await page.getByRole("heading", { name: "Your recovery codes" }).waitFor();
    const shown = await codes.allTextContents();
    assert.equal(shown.length, 10);
    assert.equal(new Set(shown).size, 10);
    await page.waitForFunction(() => document.querySelector("#status")?.textContent?.includes("you are signed in"));
    assert.match(await status().textContent() ?? "", /^Welcome, Ada: the account is set up and you are signed in\.$/);
    assert.equal(await page.locator("#first-name-shown").textContent(), "Ada");
    assert.match(await page.locator("#seal").textContent() ?? "", /^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
    await screenshot("created-recovery-codes");
    await page.getByRole("button", { name: "I have saved them" }).click();
    assert.equal(await codes.count(), 0, "the codes leave the page");
    assert.equal(await page.locator("#recovery").isVisible(), false);
    const account = await page.evaluate(() => fetch("/api/account").then((r) => r.json()));
    assert.deepEqual({ ...account, seal: typeof account.seal }, { setUp: true, signedIn: true, firstName: "Ada", seal: "string" });
  });

  it("signs out, then signs in with the passkey", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in with a passkey" }).waitFor();
    assert.equal(await status().textContent(), "Signed out.");
    assert.deepEqual(await page.evaluate(() => fetch("/api/account").then((r) => r.json())), { setUp: true, signedIn: false, firstName: null, seal: null });
    await screenshot("signed-out");
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.getByRole("heading", { name: "Signed in" }).waitFor();
    await page.waitForFunction(() => document.querySelector("#status")?.textContent === "Signed in as Ada.");
    assert.equal(await page.locator("#first-name-shown").textContent(), "Ada");
    assert.equal(await page.locator("#stepped-up").textContent(), "no");
    await screenshot("signed-in");
  });

  it("steps up: the session is confirmed for five minutes, as the node's session list says", async () => {
    await page.getByRole("button", { name: "Confirm it's you" }).click();
    await page.waitForFunction(() => document.querySelector("#stepped-up")?.textContent?.startsWith("yes, until "));
    assert.match(await status().textContent() ?? "", /^Confirmed: sensitive changes are allowed until /);
    const sessions = await page.evaluate(() => fetch("/api/account/sessions").then((r) => r.json()));
    const current = sessions.items.find((s: { current: boolean }) => s.current);
    assert.match(current.steppedUpUntil, RFC3339);
    const ahead = Date.parse(current.steppedUpUntil) - Date.now();
    assert.ok(ahead > 4 * 60_000 && ahead <= 5 * 60_000, `${ahead} ms`);
    await screenshot("stepped-up");
  });

  it("records a test invoice: the receipt shows, and its commit arrives on the live events panel", async () => {
    const eventsState = page.locator("#events-state");
    const answer = page.locator("#invoice-answer");
    try {
      const connected = await page.waitForFunction(() => document.querySelector("#events-state")?.textContent === "connected", null, { timeout: 10_000 }).then(() => true, () => false);
      await page.getByRole("button", { name: "Record", exact: true }).click();
      await page.waitForFunction(() => /^inv-test-/.test(document.querySelector("#invoice-answer")?.textContent ?? ""));
      assert.ok(connected, `the live events panel did not connect to /api/events: ${await eventsState.textContent()}`);
      const text = (await answer.textContent()) ?? "";
      assert.match(text, /^inv-test-[0-9a-f]{12}: accepted at seq \d+\n/);
      const seq = /at seq (\d+)/.exec(text)?.[1] as string;
      const row = page.locator("#events-list tr", { hasText: "std.invoices" }).filter({ hasText: "Record" }).first();
      await row.waitFor();
      assert.deepEqual(await row.locator("td").allTextContents(), ["commit", "std.invoices", "Record", "accepted", seq]);
    } finally {
      await screenshot("invoice-commit");
    }
  });

  it("an invoice the contract refuses (due before issued) shows the refusal's reason", async () => {
    await page.getByLabel("Due on").fill("2020-01-01");
    await page.getByRole("button", { name: "Record", exact: true }).click();
    await page.waitForFunction(() => / refused /.test(document.querySelector("#invoice-answer")?.textContent ?? ""));
    assert.match((await page.locator("#invoice-answer").textContent()) ?? "", /^inv-test-[0-9a-f]{12}: refused at seq \d+ \(.+\)\n/);
    await screenshot("invoice-refused");
  });

  it("the page's script threw nothing, and its policy refused nothing it needs", () => {
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(refusedByPolicy, []);
  });
});

describe("charter serve", () => {
  it("serves no app page", async () => {
    const c = await startCharter({ edition: "serve" });
    try {
      for (const path of ["/", "/app.js", "/app.css"]) assert.equal((await fetch(`${c.url}${path}`)).status, 404, path);
    } finally {
      await stopCharter(c);
      cleanup(c.dataDir);
    }
  });
});
