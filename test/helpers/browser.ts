/**
 * @module The app in a real browser, for the end-to-end tests: a `charter node` on a free port
 * (its own data directory), Debian's Chromium driven by playwright-core with a CDP virtual
 * authenticator (passkeys are real WebAuthn ceremonies), and helpers to set up the account through
 * the page, connect the OpenAI double as the assistant's model, take a screenshot at phone width
 * (375 px) and desktop width (1280 px), and run axe-core in the page.
 *
 * Screenshots go to `$CHARTER_SCREENSHOTS` when set (the README's come from there), else to a
 * temporary folder named in the test's diagnostics. `$CHARTER_APP_DIST` (a folder built by
 * `node app/build.ts <folder>`) serves another build of the app than the committed one.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { printedSetupCode } from "./api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter } from "./charter-process.ts";
import { OpenAiDouble } from "./model-doubles/openai-double.ts";
import { freePort } from "./ports.ts";

export const CHROMIUM = "/usr/bin/chromium";
/** A `describe` option: skipped, saying why, where Chromium is not installed. */
export const skipWithoutChromium = existsSync(CHROMIUM) ? false : "chromium is not installed (apt-get install -y chromium; .ci/run installs it)";
/** Headless, and nothing that reaches out to the network on its own (a closed network refuses it). */
export const CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export const PHONE = { width: 375, height: 812 } as const;
export const DESKTOP = { width: 1280, height: 900 } as const;

/** An axe-core violation, as much of it as a failure message needs. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly string[];
}

export interface BrowserApp {
  readonly node: Charter;
  /** `http://localhost:PORT`: the origin the node was started with (passkeys need a name, not an IP). */
  readonly origin: string;
  readonly context: BrowserContext;
  readonly page: Page;
  /** The model double, when asked for. */
  readonly model: OpenAiDouble | null;
  /** The folder the screenshots go to. */
  readonly shots: string;
  /** Uncaught errors of the page's scripts. */
  readonly pageErrors: string[];
  /** What the page's policy refused (console messages). */
  readonly refusedByPolicy: string[];
  /** Creates the account through the set-up page (first name, printed code, passkey), saves the recovery codes, lands on Home. */
  setUp(firstName?: string): Promise<readonly string[]>;
  /** Swaps the authenticator for a new one (a security key; the old one and its passkeys are gone, as on another device); answers its id. */
  swapAuthenticator(): Promise<string>;
  /** Steps the session up from inside the page (the virtual authenticator answers). */
  stepUp(): Promise<void>;
  /** Calls `/api` from inside the page (its cookie, its origin); answers status and JSON. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Connects the model double (`local`) and chooses `m1` for the conversation. */
  connectModel(): Promise<void>;
  /** Opens `#/route` and waits for the page's heading. */
  open(route: string, heading: string | RegExp): Promise<void>;
  /** Screenshots of the page as it is now at 375 px and 1280 px wide: `NN-name-phone.png`, `NN-name-desktop.png`. */
  screenshot(name: string): Promise<void>;
  /** axe-core's serious and critical violations on the page as it is now. */
  axe(): Promise<AxeViolation[]>;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
let shotCounter = 0;

/** Starts a node and a browser on its page; `model: true` also starts the OpenAI double. */
export async function openApp(options: { model?: boolean; env?: Record<string, string>; args?: readonly string[]; viewport?: { width: number; height: number } } = {}): Promise<BrowserApp> {
  const model = options.model === true ? await OpenAiDouble.start({ models: ["m1", "m2"] }) : null;
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const node = await startCharter({ edition: "node", args: ["--listen", `127.0.0.1:${port}`, "--grpc", "127.0.0.1:0", "--origin", origin, ...(options.args ?? [])], env: options.env ?? {} });
  const profile = mkdtempSync(join(tmpdir(), "charter-chromium-profile-"));
  const shots = process.env.CHARTER_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "charter-browser-shots-"));
  mkdirSync(shots, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, viewport: options.viewport ?? DESKTOP, acceptDownloads: true });
  context.setDefaultTimeout(15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  const refusedByPolicy: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (/Content Security Policy|Trusted Type/i.test(message.text())) refusedByPolicy.push(message.text());
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const addAuthenticator = async (transport: "internal" | "usb") =>
    (
      await cdp.send("WebAuthn.addVirtualAuthenticator", {
        options: { protocol: "ctap2", transport, hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      })
    ).authenticatorId;
  let active = await addAuthenticator("internal");

  const call = (method: string, path: string, body?: unknown) =>
    page.evaluate(
      async ([m, p, b]) => {
        const res = await fetch(p as string, { method: m as string, headers: { "content-type": "application/json", accept: "application/json" }, ...(b === undefined ? {} : { body: JSON.stringify(b) }) });
        const text = await res.text();
        let parsed: unknown;
        try {
          parsed = text === "" ? null : JSON.parse(text);
        } catch {
          parsed = text;
        }
        return { status: res.status, body: parsed as any };
      },
      [method, path, body] as const,
    );

  const app: BrowserApp = {
    node,
    origin,
    context,
    page,
    model,
    shots,
    pageErrors,
    refusedByPolicy,
    async swapAuthenticator() {
      await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId: active });
      active = await addAuthenticator("usb");
      return active;
    },
    async setUp(firstName = "Ada") {
      await page.goto(`${origin}/`);
      await page.getByRole("heading", { name: "Set up this node" }).waitFor();
      await page.getByLabel("First name").fill(firstName);
      await page.getByLabel("Set-up code").fill(printedSetupCode(node));
      await page.getByRole("button", { name: "Create the account" }).click();
      await page.getByRole("heading", { name: "Your recovery codes" }).waitFor();
      const codes = await page.locator("ol.codes li").allTextContents();
      await page.getByRole("button", { name: "I have saved them" }).click();
      await page.getByRole("heading", { name: `Hello, ${firstName}` }).waitFor();
      return codes;
    },
    async stepUp() {
      const done = await page.evaluate(async () => {
        const post = (path: string, body: unknown) => fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());
        const begin = await post("/api/account/stepup/begin", {});
        const credential = (await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(begin.options) })) as PublicKeyCredential;
        return post("/api/account/stepup/finish", { response: credential.toJSON() });
      });
      if (typeof done?.until !== "string") throw new Error(`step-up failed: ${JSON.stringify(done)}`);
    },
    call,
    async connectModel() {
      if (model === null) throw new Error("openApp({model: true}) starts the model double");
      await app.stepUp();
      const put = await call("PUT", "/api/connections/local/key", { provider: "openai", key: "", baseUrl: model.baseURL, memory: true });
      if (put.status !== 200) throw new Error(`connection: ${put.status} ${JSON.stringify(put.body)}`);
      const chosen = await call("PUT", "/api/settings/models", { conversation: { connection: "local", model: "m1" } });
      if (chosen.status !== 200) throw new Error(`models: ${chosen.status} ${JSON.stringify(chosen.body)}`);
    },
    async open(route, heading) {
      await page.goto(`${origin}/#/${route}`);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
    },
    async screenshot(name) {
      shotCounter += 1;
      const n = String(shotCounter).padStart(2, "0");
      const size = page.viewportSize() ?? DESKTOP;
      // From the top (a sticky header stays there in a full-page capture), once the new width is laid out and painted.
      const settle = () => page.evaluate(() => new Promise<void>((resolve) => (scrollTo(0, 0), requestAnimationFrame(() => requestAnimationFrame(() => resolve())))));
      try {
        await page.setViewportSize(PHONE);
        await settle();
        await page.screenshot({ path: join(shots, `${n}-${name}-phone.png`), fullPage: true });
        await page.setViewportSize(DESKTOP);
        await settle();
        await page.screenshot({ path: join(shots, `${n}-${name}-desktop.png`), fullPage: true });
      } finally {
        await page.setViewportSize(size);
      }
    },
    async axe() {
      if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(AXE_SOURCE);
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run: (context: Document, options: unknown) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
        const result = await axe.run(document, { resultTypes: ["violations"] });
        return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
      });
      return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    },
    async close() {
      await context.close().catch(() => {});
      await stopCharter(node);
      cleanup(node.dataDir);
      cleanup(profile);
      await model?.close();
    },
  };
  return app;
}
