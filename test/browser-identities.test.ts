/**
 * The Identities, Exchange and Calc pages in Chromium against a real `charter node`: a handle the
 * node refuses shows its words next to the field; a business identity is made through the page, a
 * member added after confirming with a passkey (the step-up prompt), a delegation given, its key
 * rotated (a new did, the old one retired); Exchange
 * refuses a bad did:key next to its field, pins another person's node (here a small inbox server of
 * the test, which keeps what it is sent), sends it an invoice signed with the person's key (checked
 * here against the person's did), fails to deliver while that node is down and delivers when tried
 * again, shows a document that node sends back (signed with its key, carrying the receipt of the
 * person's own write) as verified, with that receipt, and unpins it; Calc evaluates the lines as
 * they are typed (`rent * 12` is 14400), a line in error shows its error while the others
 * evaluate, and the lines are kept across a reload; a currency rate set through the page converts
 * the sheet's `100 EUR in USD`, a bad rate and a bad code are refused in the node's words next to
 * their fields, and a rate removed leaves the line using it in error. Screenshots at 375 px and 1280 px; axe-core
 * finds no serious violation on any of them.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { generateKeyPair, signJws, verifyJws } from "../shared/identity/index.ts";
import { type BrowserApp, DESKTOP, openApp, PHONE, skipWithoutChromium } from "./helpers/browser.ts";
import { invoiceArgs } from "./helpers/invoice-args.ts";

/** Another person's node as far as the exchange sees it: `POST /exchange/inbox {jws}` kept and answered 201. */
class Inbox {
  readonly received: string[] = [];
  #server: Server | null = null;
  port = 0;
  async start(port = 0): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        if (req.method !== "POST" || req.url !== "/exchange/inbox") {
          res.writeHead(404).end();
          return;
        }
        const { jws } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { jws: string };
        this.received.push(jws);
        const id = (JSON.parse(Buffer.from(jws.split(".")[1] ?? "", "base64url").toString("utf8")) as { id: string }).id;
        res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ id, status: "received" }));
      });
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    this.#server = server;
    this.port = (server.address() as AddressInfo).port;
  }
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (server !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
}

describe("the Identities, Exchange and Calc pages in Chromium", { skip: skipWithoutChromium }, () => {
  let app: BrowserApp;
  let person = "";
  const bob = generateKeyPair();
  const carol = generateKeyPair();
  const inbox = new Inbox();
  /** The receipt JWS of the person's write of inv-1. */
  let recordedJws = "";

  /** Clicks `button`; when the step-up prompt opens, confirms with the passkey; waits for `outcome`. */
  const confirmed = async (button: ReturnType<BrowserApp["page"]["getByRole"]>, outcome: ReturnType<BrowserApp["page"]["getByRole"]>) => {
    await button.click();
    const dialog = app.page.getByRole("dialog", { name: "Confirm it's you" });
    await dialog.or(outcome).first().waitFor();
    if (await dialog.isVisible()) await dialog.getByRole("button", { name: "Confirm with a passkey" }).click();
    await outcome.waitFor();
  };

  /** The screenshots of the page as it is, after checking nothing overflows at 375 px, and axe-core's verdict. */
  const shoot = async (name: string) => {
    await app.page.setViewportSize(PHONE);
    try {
      const wide = await app.page.evaluate(() => new Promise<number>((resolve) => requestAnimationFrame(() => resolve(document.documentElement.scrollWidth))));
      assert.ok(wide <= PHONE.width, `${name}: ${wide} px wide at 375 px`);
    } finally {
      await app.page.setViewportSize(DESKTOP);
    }
    await app.screenshot(name);
    assert.deepEqual(await app.axe(), []);
  };

  before(async () => {
    app = await openApp();
    await inbox.start();
    await app.setUp("Ada");
    // A fresh sign-in: the first sensitive change asks to confirm.
    await app.page.getByRole("button", { name: "Sign out" }).click();
    await app.page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await app.page.getByRole("heading", { name: "Hello, Ada" }).waitFor();
    person = (await app.call("GET", "/api/bootstrap")).body.person.did;
    assert.match(person, /^did:key:z6Mk/);
  });
  after(async () => {
    await inbox.stop();
    await app?.close();
  });

  it("Identities: a handle the node does not take is refused in its words, next to the field, and nothing is made", async (t) => {
    t.diagnostic(`screenshots: ${app.shots}`);
    await app.open("identities", "Identities");
    await app.page.getByRole("link", { name: "ada" }).waitFor();
    const handle = app.page.getByLabel("Handle");
    await handle.fill("Not A Handle");
    await app.page.getByRole("button", { name: "Create the identity" }).click();
    const note = app.page.locator(".field-error");
    await note.waitFor();
    assert.match((await note.textContent()) ?? "", /is not a tenant handle/);
    assert.equal(await handle.getAttribute("aria-invalid"), "true");
    assert.match((await handle.getAttribute("aria-describedby")) ?? "", new RegExp((await note.getAttribute("id")) ?? "none"));
    assert.equal(await app.page.evaluate(() => document.activeElement?.getAttribute("data-field")), "handle", "focus is on the field the node named");
    assert.deepEqual((await app.call("GET", "/api/identities")).body.items.map((i: { handle: string }) => i.handle), ["ada"]);
    await shoot("identities-refused");
  });

  it("Identities: a business is made through the page; a member added after confirming with a passkey is listed; a delegation given", async () => {
    await app.page.getByLabel("Handle").fill("ada-works");
    await app.page.getByLabel("Kind").selectOption("business");
    await app.page.getByLabel("Display name").fill("Ada Works");
    await app.page.getByRole("button", { name: "Create the identity" }).click();
    await app.page.getByRole("heading", { level: 1, name: "Ada Works" }).waitFor();
    assert.equal(await app.page.evaluate(() => document.activeElement?.id), "page-title", "the new identity's heading has the focus");
    const owners = app.page.getByRole("list", { name: "Owners" });
    await owners.getByText(person).waitFor();
    assert.equal(await owners.locator(".badge").textContent(), "you");

    await app.page.getByLabel("New member's did:key").fill(bob.did);
    await app.page.getByRole("button", { name: "Add member" }).click();
    const dialog = app.page.getByRole("dialog", { name: "Confirm it's you" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Confirm with a passkey" }).click();
    const members = app.page.getByRole("list", { name: "Members" });
    await members.getByText(bob.did).waitFor();
    await app.page.getByText("Added as member.").waitFor();
    const shown = await app.call("GET", "/api/identities/ada-works");
    assert.deepEqual([shown.body.kind, shown.body.name, shown.body.owners, shown.body.members], ["business", "Ada Works", [person], [bob.did]]);

    // The node's words for a scope it does not take, then a delegation it does.
    await app.page.getByLabel("To did:key").fill(carol.did);
    await app.page.getByLabel("Scope", { exact: true }).fill("two words");
    await app.page.getByRole("button", { name: "Delegate", exact: true }).click();
    await app.page.locator(".field-error").first().waitFor();
    assert.match((await app.page.locator(".field-error").first().textContent()) ?? "", /scope/i);
    await app.page.getByLabel("Scope", { exact: true }).fill("shipping");
    await app.page.getByLabel("Until", { exact: true }).fill("2999-01-01");
    await app.page.getByRole("button", { name: "Delegate", exact: true }).click();
    await app.page.getByRole("list", { name: "Delegations" }).getByText("shipping").waitFor();
    assert.deepEqual((await app.call("GET", "/api/scopes?tenant=ada-works")).body.items, [{ did: carol.did, scope: "shipping", until: "2999-01-01T00:00:00.000Z" }]);

    // A new key pair (the session is stepped up already): a new did, the old one retired.
    const before = (await app.call("GET", "/api/identities/ada-works")).body.did as string;
    const rotate = app.page.getByRole("button", { name: "Rotate the key…" });
    await rotate.click();
    assert.equal(await rotate.getAttribute("aria-expanded"), "true");
    await app.page.getByRole("button", { name: "Keep this key" }).click();
    assert.equal(await app.page.evaluate(() => document.activeElement?.textContent), "Rotate the key…", "cancelled, focus back on the button");
    await rotate.click();
    await app.page.getByRole("button", { name: "Rotate now" }).click();
    await app.page.getByText(/A new key pair: the identity is now did:key:/).waitFor();
    const after = (await app.call("GET", "/api/identities/ada-works")).body;
    assert.notEqual(after.did, before);
    assert.deepEqual(after.retiredDids.map((r: { did: string }) => r.did), [before]);
    await app.page.getByRole("heading", { name: "Retired did:keys" }).waitFor();
    await app.page.getByText(after.did).first().waitFor();
    await shoot("identity");

    await app.page.getByRole("link", { name: "All identities" }).click();
    await app.page.getByRole("link", { name: "Ada Works" }).waitFor();
    await shoot("identities");
  });

  it("Exchange: a did:key the node does not take is refused in its words, next to the field; nothing is pinned", async () => {
    await app.open("exchange", "Exchange");
    await app.page.getByText("No other node pinned yet.").waitFor();
    await app.page.getByLabel("Name").fill("Carol");
    await app.page.getByLabel("Their did:key").fill("did:key:z6MkNotAKey");
    await app.page.getByLabel("Their node's address").fill(inbox.url);
    const note = app.page.locator(".field-error");
    await confirmed(app.page.getByRole("button", { name: "Pin their node" }), note);
    assert.match((await note.textContent()) ?? "", /Ed25519 did:key/);
    assert.equal(await note.count(), 1, "only the did is named");
    assert.equal(await app.page.getByLabel("Their did:key").getAttribute("aria-invalid"), "true");
    assert.deepEqual((await app.call("GET", "/api/exchange/relationships")).body.items, []);
  });

  it("Exchange: pins Carol's node and sends her an invoice, signed with the person's key", async () => {
    await app.page.getByLabel("Their did:key").fill(carol.did);
    await confirmed(app.page.getByRole("button", { name: "Pin their node" }), app.page.getByText("Carol's node is pinned."));
    await app.page.getByRole("list", { name: "Relationships" }).getByText(carol.did).waitFor();

    let recorded = { status: 0, body: null as any };
    for (let i = 0; i < 100 && recorded.status !== 200; i++) {
      recorded = await app.call("POST", "/api/data/act", { namespace: "std.invoices", action: "Record", subject: "inv-1", args: invoiceArgs(1) });
      if (recorded.status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
    recordedJws = recorded.body.jws;

    await app.page.getByLabel("Record", { exact: true }).fill("inv-1");
    await app.page.getByRole("button", { name: "Sign and send" }).click();
    await app.page.getByText("Delivered to Carol").waitFor();
    assert.equal(inbox.received.length, 1);
    const verified = verifyJws(inbox.received[0] as string, { typ: "charter-document+jws" });
    assert.ok(verified.ok, JSON.stringify(verified));
    assert.equal(verified.value.signer, person);
    const document = JSON.parse(verified.value.payload.toString("utf8"));
    assert.deepEqual([document.from, document.to, document.namespace, document.subject, document.state.supplier], [person, carol.did, "std.invoices", "inv-1", "Acme Paper"]);
    assert.equal(document.receipt, recorded.body.jws, "it carries the receipt of the write");
    const sent = app.page.locator(`.exch-doc[data-status="delivered"]`);
    await sent.waitFor();
    assert.match((await sent.textContent()) ?? "", /Invoice inv-1.*delivered.*to Carol/);
  });

  it("Exchange: while Carol's node is down the delivery fails and is kept; tried again, it is delivered", async () => {
    const port = inbox.port;
    await inbox.stop();
    await app.page.getByRole("button", { name: "Sign and send" }).click();
    await app.page.getByText(/Not delivered: .*ECONNREFUSED/).waitFor();
    const failed = app.page.locator(`.exch-doc[data-status="failed"]`);
    await failed.waitFor();
    assert.match((await failed.textContent()) ?? "", /ECONNREFUSED/);
    await app.page.getByText("last delivery failed").waitFor();
    await shoot("exchange");

    await inbox.start(port);
    await failed.getByRole("button", { name: "Try again to send inv-1" }).click();
    await app.page.getByText("inv-1 is delivered.").waitFor();
    assert.equal(inbox.received.length, 2);
    await app.page.locator(`.exch-doc[data-status="failed"]`).waitFor({ state: "detached" });
    assert.equal(await app.page.locator(`.exch-doc[data-status="delivered"]`).count(), 2);
    const out = (await app.call("GET", "/api/exchange/documents?box=out")).body.items.map((d: { status: string; attempts: number }) => [d.status, d.attempts]);
    assert.deepEqual(out, [["delivered", 2], ["delivered", 1]]);
  });

  it("Exchange: a document from Carol's node shows as verified, with the record and the receipt it carries", async () => {
    const receipt = recordedJws;
    const payload = { typ: "charter-document", id: "doc-carol-1", from: carol.did, to: person, namespace: "std.invoices", aggregate: "Invoice", subject: "inv-1", state: { supplier: "Acme Paper", amount_minor: 1001, status: "Approved" }, receipt, sentAt: new Date().toISOString() };
    const jws = signJws({ kid: carol.did, typ: "charter-document+jws" }, JSON.stringify(payload), carol.secretKey);
    const posted = await fetch(`${app.node.url}/exchange/inbox`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jws }) });
    assert.equal(posted.status, 201, await posted.text());

    // No reload: the page follows the node's exchange frames.
    const received = app.page.locator(`.exch-doc[data-status="received"]`);
    await received.waitFor();
    await received.getByRole("link", { name: "Invoice inv-1" }).click();
    await app.page.getByRole("heading", { level: 1, name: "Received from Carol: Invoice inv-1" }).waitFor();
    const check = app.page.locator("[data-verified]");
    await check.waitFor();
    assert.equal(await check.getAttribute("data-verified"), "true");
    assert.match((await check.textContent()) ?? "", /^Verified/);
    const facts = app.page.locator("dl.exch-receipt");
    assert.match((await facts.textContent()) ?? "", /ActionRecord.*Outcomeaccepted.*Signed by/);
    assert.ok(((await facts.textContent()) ?? "").includes(person), "the receipt's signer is the person");
    assert.match((await app.page.locator("dl.exch-state").textContent()) ?? "", /supplierAcme Paper/);
    await shoot("exchange-document");
  });

  it("Exchange: renames Carol's relationship and moves it to another address; its did stays pinned", async () => {
    await app.page.getByRole("link", { name: "All documents" }).click();
    await app.page.getByRole("heading", { level: 1, name: "Exchange" }).waitFor();
    await app.page.getByRole("button", { name: "Edit Carol" }).click();
    const form = app.page.getByRole("form", { name: "Edit Carol" });
    await form.getByLabel("New name for Carol").fill("");
    await form.getByRole("button", { name: "Save" }).click();
    const note = form.locator(".field-error");
    await note.waitFor();
    assert.match((await note.textContent()) ?? "", /name is 1 to 100 characters/);
    await form.getByLabel("New name for Carol").fill("Carol Ng");
    const moved = inbox.url.replace("127.0.0.1", "localhost");
    await form.getByLabel("Carol's node's address").fill(moved);
    await confirmed(form.getByRole("button", { name: "Save" }), app.page.getByText("Carol Ng's relationship is saved."));
    const card = app.page.getByRole("list", { name: "Relationships" }).getByRole("listitem");
    await card.getByText("Carol Ng").waitFor();
    await card.getByText(moved.replace(/\/+$/, "")).waitFor();
    await shoot("exchange-edit");
    const [r] = (await app.call("GET", "/api/exchange/relationships")).body.items as { name: string; url: string; did: string }[];
    assert.deepEqual([r?.name, r?.url, r?.did], ["Carol Ng", moved.replace(/\/+$/, ""), carol.did]);
    // Back as it was, for what follows.
    assert.equal((await app.call("PATCH", `/api/exchange/relationships/${(await app.call("GET", "/api/exchange/relationships")).body.items[0].id}`, { name: "Carol", url: inbox.url })).status, 200);
    await app.page.getByRole("button", { name: "Edit Carol" }).waitFor();
  });

  it("Exchange: unpins Carol's node (its documents stay, no longer verified)", async () => {
    await confirmed(app.page.getByRole("button", { name: "Unpin Carol" }), app.page.getByText("Carol's node is unpinned; its documents stay."));
    await app.page.getByText("No other node pinned yet.").waitFor();
    assert.deepEqual((await app.call("GET", "/api/exchange/relationships")).body.items, []);
    assert.equal((await app.call("GET", "/api/exchange/documents/doc-carol-1?box=in")).body.verified, false);
    await app.page.locator(`.exch-doc[data-status="received"]`).getByRole("link").click();
    await app.page.getByRole("heading", { level: 1, name: "Received: Invoice inv-1" }).waitFor();
    assert.equal(await app.page.locator("[data-verified]").getAttribute("data-verified"), "false");
  });

  it("Calc: evaluates as you type, line for line; a line in error shows it while the others evaluate; kept across a reload", async () => {
    await app.open("calc", "Calc");
    const lines = app.page.getByLabel("Lines", { exact: true });
    await lines.fill("rent = 1200\nrent * 12\nrent * nothing_here(\n\n20% of 85");
    const results = app.page.getByRole("list", { name: "Results" });
    const line = (n: number) => results.locator(`li[data-line="${n}"]`);
    await line(2).locator("output").filter({ hasText: "14400" }).waitFor();
    assert.equal(await line(1).locator("output").textContent(), "1200");
    assert.equal(await line(3).getAttribute("class"), "calc-error");
    const error = ((await line(3).locator(".calc-text").textContent()) ?? "").replace(/^error: /, "");
    assert.ok(error.length > 0);
    assert.equal(await line(4).getAttribute("class"), "calc-blank");
    assert.equal(await line(5).locator("output").textContent(), "17");
    assert.match((await app.page.locator("ul.calc-errors").textContent()) ?? "", /Line 3/);
    await shoot("calc");

    await app.page.reload();
    await app.page.getByRole("heading", { level: 1, name: "Calc" }).waitFor();
    assert.equal(await app.page.getByLabel("Lines", { exact: true }).inputValue(), "rent = 1200\nrent * 12\nrent * nothing_here(\n\n20% of 85");
    await line(2).locator("output").filter({ hasText: "14400" }).waitFor();
    // Typing on: the new line is evaluated with the names above it.
    await app.page.getByLabel("Lines", { exact: true }).press("Control+End");
    await app.page.keyboard.type("\nrent / 4");
    await line(6).locator("output").filter({ hasText: "300" }).waitFor();
  });

  it("Calc: a rate set through the page converts the sheet's currencies; a bad rate and a bad code are refused in the node's words, next to their fields", async () => {
    assert.deepEqual((await app.call("GET", "/api/calc/rates")).body, { base: null, items: [] });
    const rates = app.page.getByRole("region", { name: "Currency rates" });
    await rates.getByText("No rates yet").waitFor();
    const lines = app.page.getByLabel("Lines", { exact: true });
    await lines.fill("100 EUR in USD\n2 * 21");
    const line = (n: number) => app.page.getByRole("list", { name: "Results" }).locator(`li[data-line="${n}"]`);
    await line(2).locator("output").filter({ hasText: "42" }).waitFor();
    assert.equal(await line(1).getAttribute("class"), "calc-error", "no rate yet: the line is in error");

    // The first rate, naming its base.
    await rates.getByLabel("Currency", { exact: true }).fill("usd");
    await rates.getByLabel("Rate", { exact: true }).fill("1.085");
    await rates.getByLabel("Base currency").fill("EUR");
    await rates.getByLabel("As of").fill("2026-11-20");
    await rates.getByRole("button", { name: "Set the rate" }).click();
    await rates.getByText("USD set: 1 EUR = 1.085 USD, as of 2026-11-20.").waitFor();
    const usd = rates.locator('tr[data-code="USD"]');
    assert.deepEqual(await usd.locator("th, td").allTextContents(), ["USD", "1.085", "2026-11-20", "Remove"]);
    assert.match((await rates.locator('tr[data-code="EUR"]').textContent()) ?? "", /EURbase1/);
    const table = (await app.call("GET", "/api/calc/rates")).body as { base: string; items: { code: string }[] };
    assert.equal(table.base, "EUR");
    assert.deepEqual(table.items.sort((a, b) => a.code.localeCompare(b.code)), [{ code: "EUR", rate: 1, date: "2026-11-20" }, { code: "USD", rate: 1.085, date: "2026-11-20" }]);
    // The sheet is evaluated again with the new rate.
    await line(1).locator("output").filter({ hasText: "108.50 USD" }).waitFor();
    assert.match((await line(1).locator(".calc-text").textContent()) ?? "", /rate of 2026-11-20/);

    // A rate the node does not take: its words next to the Rate field, nothing changed.
    await rates.getByLabel("Currency", { exact: true }).fill("GBP");
    await rates.getByLabel("Rate", { exact: true }).fill("-0.85");
    await rates.getByRole("button", { name: "Set the rate" }).click();
    const rateField = rates.getByLabel("Rate", { exact: true });
    const note = rates.locator(".field-error");
    await note.waitFor();
    assert.equal(await note.count(), 1);
    assert.equal(await note.textContent(), "GBP: a rate is a positive number below 1000000000000000 (or null to remove it)");
    assert.equal(await rateField.getAttribute("aria-invalid"), "true");
    assert.match((await rateField.getAttribute("aria-describedby")) ?? "", new RegExp((await note.getAttribute("id")) ?? "none"));
    assert.equal(await app.page.evaluate(() => document.activeElement?.getAttribute("data-field")), "rate", "focus is on the field the node named");
    assert.equal(await rates.getByLabel("Currency", { exact: true }).getAttribute("aria-invalid"), null);
    await shoot("calc-rates-refused");

    // A code the node does not take: its words next to the Currency field.
    await rates.getByLabel("Currency", { exact: true }).fill("POUND");
    await rateField.fill("0.85");
    await rates.getByRole("button", { name: "Set the rate" }).click();
    await rates.locator(".field-error").filter({ hasText: "is not a currency's ISO code" }).waitFor();
    assert.equal(await rates.getByLabel("Currency", { exact: true }).getAttribute("aria-invalid"), "true");
    assert.equal(await rateField.getAttribute("aria-invalid"), null);
    assert.deepEqual((await app.call("GET", "/api/calc/rates")).body.items.map((i: { code: string }) => i.code).sort(), ["EUR", "USD"]);

    // A second rate, then one removed: the sheet's line using it is in error again.
    await rates.getByLabel("Currency", { exact: true }).fill("GBP");
    await rates.getByRole("button", { name: "Set the rate" }).click();
    await rates.locator('tr[data-code="GBP"]').waitFor();
    assert.equal(await rates.locator(".field-error").count(), 0);
    await shoot("calc-rates");
    await rates.getByRole("button", { name: "Remove the USD rate" }).click();
    await rates.getByText("USD removed.").waitFor();
    await rates.locator('tr[data-code="USD"]').waitFor({ state: "detached" });
    await line(1).and(app.page.locator("li.calc-error")).waitFor();
    assert.match((await line(1).textContent()) ?? "", /USD/);
    assert.deepEqual((await app.call("GET", "/api/calc/rates")).body.items.map((i: { code: string }) => i.code).sort(), ["EUR", "GBP"]);
  });

  it("the page's scripts threw nothing, and its policy refused nothing", () => {
    assert.deepEqual(app.pageErrors, []);
    assert.deepEqual(app.refusedByPolicy, []);
  });
});
