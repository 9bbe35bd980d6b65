/**
 * The mail page in Chromium against a real `charter node`, a real IMAP server (Dovecot, started
 * here, as test/api-comms.test.ts does) and a local SMTP server keeping what it takes: with no email
 * account the page says so and leads to Settings → Email; once an account is connected, mail from
 * an unknown sender appears live under Held, a thread reads as text (never as HTML), its sender is
 * let in, it is starred, translation shows the node's refusal (no model), a reply is an approval
 * approved on the page and reaches the SMTP server with its headers, new mail appears in the inbox
 * without a reload, and a new message — a wrong address named next to its field, then a right one —
 * needs the passkey (a recipient never written to) and reaches the SMTP server. Screenshots at
 * 375 px and 1280 px; axe-core finds no serious violation.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { header, smtpDouble } from "./helpers/smtp-double.ts";
import { type BrowserApp, openApp, PHONE, skipWithoutChromium } from "./helpers/browser.ts";
import { waitFor } from "./helpers/charter-process.ts";
import { dovecotMissing, type ImapServer, startImapServer } from "./helpers/imap-server.ts";

/** A message as the IMAP server is handed it. */
function mail(fields: { id: string; subject: string; text: string; html?: string; inReplyTo?: string; date?: string }): string {
  const head = [
    "From: Bob <bob@example.org>",
    "To: Ada <ada@home.example>",
    `Subject: ${fields.subject}`,
    `Date: ${fields.date ?? new Date().toUTCString()}`,
    `Message-ID: ${fields.id}`,
    ...(fields.inReplyTo === undefined ? [] : [`In-Reply-To: ${fields.inReplyTo}`, `References: ${fields.inReplyTo}`]),
  ];
  if (fields.html === undefined) return [...head, "Content-Type: text/plain; charset=utf-8", "", fields.text, ""].join("\n");
  return [
    ...head,
    'Content-Type: multipart/alternative; boundary="b1"',
    "",
    "--b1",
    "Content-Type: text/plain; charset=utf-8",
    "",
    fields.text,
    "--b1",
    "Content-Type: text/html; charset=utf-8",
    "",
    fields.html,
    "--b1--",
    "",
  ].join("\n");
}

const MAIL_WAIT = 30_000;

describe("the mail page in Chromium, with a real IMAP server and an SMTP double", { skip: skipWithoutChromium || dovecotMissing }, () => {
  let app: BrowserApp;
  let imap: ImapServer;
  let smtp: Awaited<ReturnType<typeof smtpDouble>>;

  before(async () => {
    imap = await startImapServer();
    smtp = await smtpDouble();
    await imap.append(mail({ id: "<m1@example.org>", subject: "Lunch?", text: "Shall we have lunch on Friday?", html: "<p>Shall we have <b>lunch</b> on Friday?</p><script>alert(1)</script>", date: "Tue, 24 Nov 2026 10:00:00 +0000" }));
    await imap.append(mail({ id: "<m2@example.org>", subject: "Re: Lunch?", text: "Or Saturday. <b>not bold</b>", inReplyTo: "<m1@example.org>", date: "Tue, 24 Nov 2026 11:00:00 +0000" }));
    app = await openApp();
    await app.setUp("Ada");
  });
  after(async () => {
    await app?.close();
    await smtp?.close();
    await imap?.stop();
  });

  const page = () => app.page;

  it("with no email account, says so and leads to Settings → Email", async (t) => {
    t.diagnostic(`screenshots: ${app.shots}`);
    await app.open("mail", "Mail");
    await page().getByRole("heading", { level: 2, name: "No email account connected" }).waitFor();
    const link = page().getByRole("link", { name: /Settings → Email/ });
    assert.equal(await link.getAttribute("href"), "#/settings/email");
    assert.equal(await page().getByRole("link", { name: "Write a message" }).count(), 0);
    await app.screenshot("mail-no-account");
    assert.deepEqual(await app.axe(), []);
  });

  it("once an account is connected, the unknown sender's mail appears under Held, live", async () => {
    await app.stepUp();
    const account = await app.call("PUT", "/api/settings/integrations/connectors/email/accounts/home", {
      fields: { smtpHost: "127.0.0.1", smtpPort: smtp.port, smtpSecurity: "none", imapHost: "127.0.0.1", imapPort: imap.port, imapSecurity: "none", user: imap.user, from: "ada@home.example", name: "Ada" },
      secret: imap.password,
    });
    assert.equal(account.status, 200, JSON.stringify(account.body));
    // A new session, not stepped up: a sensitive approval later asks for the passkey.
    await page().getByRole("button", { name: "Sign out" }).click();
    await page().getByRole("button", { name: "Sign in with a passkey" }).click();
    await page().getByRole("heading", { level: 1, name: "Mail" }).waitFor();
    await page().getByRole("heading", { level: 2, name: "Inbox" }).waitFor();
    await page().getByRole("link", { name: /^Held/ }).click();
    await page().getByRole("heading", { level: 2, name: "Held from unknown senders" }).waitFor();
    const held = page().getByRole("link", { name: "Lunch?", exact: true });
    await held.waitFor({ timeout: MAIL_WAIT });
    const item = page().locator("li.mail-item", { has: held });
    await item.getByText("2 messages").waitFor({ timeout: MAIL_WAIT });
    assert.match((await item.textContent()) ?? "", /Bob/);
    await page().getByRole("link", { name: "Held (2)" }).waitFor();
    await page().getByText("2 held from unknown senders").waitFor();
    await app.screenshot("mail-held");
    assert.deepEqual(await app.axe(), []);
  });

  it("a thread reads as text, never as HTML; its sender is let in; it is starred", async () => {
    await page().getByRole("link", { name: "Lunch?", exact: true }).click();
    const title = page().getByRole("heading", { level: 2, name: "Lunch?" });
    await title.waitFor();
    const texts = page().locator(".mail-message .mail-text");
    assert.equal(await texts.count(), 2);
    assert.equal((await texts.nth(0).textContent())?.trim(), "Shall we have lunch on Friday?");
    assert.equal((await texts.nth(1).textContent())?.trim(), "Or Saturday. <b>not bold</b>", "markup in a text is text");
    assert.equal(await page().locator(".mail-message b, .mail-message script").count(), 0, "no element of the message's HTML is in the page");
    assert.equal(await page().getByRole("heading", { level: 3, name: "Bob <bob@example.org>" }).count(), 2);

    await page().getByRole("button", { name: "Allow the sender and move it to the inbox" }).click();
    await page().getByRole("status").filter({ hasText: "Allowed bob@example.org; 2 messages let into the inbox." }).waitFor();
    await page().getByText(/This thread is held/).waitFor({ state: "detached" });
    const inbox = (await app.call("GET", "/api/comms/list")).body.items as { subject: string; held: boolean }[];
    assert.deepEqual(inbox.map((t) => [t.subject, t.held]), [["Lunch?", false]]);

    const star = page().getByRole("button", { name: /Star/ }).first();
    assert.equal(await star.getAttribute("aria-pressed"), "false");
    await star.click();
    await page().getByRole("button", { name: "★ Starred" }).waitFor();
    assert.equal(await page().getByRole("button", { name: "★ Starred" }).getAttribute("aria-pressed"), "true");
    const starred = (await app.call("GET", "/api/comms/list?filter=starred")).body.items as { subject: string }[];
    assert.deepEqual(starred.map((t) => t.subject), ["Lunch?"]);
    assert.equal((await app.call("GET", "/api/comms/counts")).body.starred, 1);
  });

  it("translation without a model shows the node's refusal", async () => {
    await page().getByRole("button", { name: "Translate the message from Bob <bob@example.org>" }).first().click();
    await page().getByLabel("Translate into").fill("French");
    await page().locator(".mail-translate").getByRole("button", { name: "Translate", exact: true }).click();
    const alert = page().locator(".mail-translate").getByRole("alert");
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? "", /model|assistant/i);
    await app.screenshot("mail-thread");
    assert.deepEqual(await app.axe(), []);
    await page().locator(".mail-translate").getByRole("button", { name: "Close" }).click();
  });

  it("a reply is an approval: approved on the page, it reaches the SMTP server as a reply", async () => {
    await page().getByLabel("Your reply").fill("Friday works.");
    await page().getByRole("button", { name: "Send the reply" }).click();
    const card = page().locator(".mail-reply .mail-approval");
    await card.getByRole("heading", { name: "Waiting for your approval" }).waitFor();
    assert.match((await card.textContent()) ?? "", /bob@example\.org/);
    await card.getByText("Friday works.").waitFor();
    assert.equal(smtp.messages.length, 0, "nothing is sent before it is approved");
    await app.screenshot("mail-reply-approval");
    assert.deepEqual(await app.axe(), []);
    await card.getByRole("button", { name: "Approve and send" }).click();
    await card.getByText(/The node says: queued as effect-\d+/).waitFor();
    await waitFor("the reply at the SMTP server", () => (smtp.messages.length === 1 ? true : undefined), MAIL_WAIT);
    const raw = smtp.messages[0] as string;
    assert.equal(header(raw, "To"), "bob@example.org");
    assert.equal(header(raw, "Subject"), "Re: Lunch?");
    assert.equal(header(raw, "In-Reply-To"), "<m2@example.org>");
    assert.match(raw, /Friday works\./);
    // The outbox says it went; the thread shows the sent message.
    await card.locator('[data-effect-state="done"]').waitFor({ timeout: MAIL_WAIT });
    await page().getByRole("heading", { level: 3, name: "You (Ada <ada@home.example>)" }).waitFor();
  });

  it("new mail appears in the inbox without a reload", async () => {
    await page().getByRole("link", { name: "← All mail" }).click();
    await page().getByRole("link", { name: /^Inbox/ }).click();
    await page().getByRole("heading", { level: 2, name: "Inbox" }).waitFor();
    await page().getByRole("link", { name: "Lunch?", exact: true }).waitFor();
    await imap.append(mail({ id: "<m3@example.org>", subject: "Dinner?", text: "And dinner on Sunday?" }));
    const dinner = page().getByRole("link", { name: "Dinner?", exact: true });
    await dinner.waitFor({ timeout: MAIL_WAIT });
    const item = page().locator("li.mail-item", { has: dinner });
    await item.getByText("1 unread").waitFor();
    assert.match((await item.textContent()) ?? "", /And dinner on Sunday\?/);
    const lunch = page().locator("li.mail-item", { has: page().getByRole("link", { name: "Lunch?", exact: true }) });
    assert.match((await lunch.locator(".mail-from").textContent()) ?? "", /^You$/, "the last message is the reply sent");
    // The list's star: pressed for the starred thread.
    const lunchStar = page().locator("li.mail-item", { has: page().getByRole("link", { name: "Lunch?", exact: true }) }).getByRole("button", { name: /^Star/ });
    assert.equal(await lunchStar.getAttribute("aria-pressed"), "true");
    await page().getByRole("list", { name: "People you exchange mail with" }).getByText("Bob <bob@example.org>").waitFor();
    await app.screenshot("mail-inbox");
    assert.deepEqual(await app.axe(), []);
    // Opened, a thread's unread mail is marked read.
    await dinner.click();
    await page().getByRole("heading", { level: 2, name: "Dinner?" }).waitFor();
    await page().getByRole("button", { name: "Mark as unread" }).waitFor();
    await page().getByRole("link", { name: "← All mail" }).click();
    await page().locator("li.mail-item", { has: page().getByRole("link", { name: "Dinner?", exact: true }) }).getByText("1 unread").waitFor({ state: "detached" });
    assert.equal((await app.call("GET", "/api/comms/counts")).body.unread, 2, "the lunch thread's two");
    await page().setViewportSize(PHONE);
    try {
      assert.equal(await page().evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, "nothing overflows at 375 px");
    } finally {
      await page().setViewportSize({ width: 1280, height: 900 });
    }
  });

  it("a new message: a wrong address is named at its field; a right one asks for the passkey and is sent", async () => {
    // A person of the list leads to a new message to them.
    await page().getByRole("link", { name: "Write to Bob <bob@example.org>" }).click();
    await page().getByRole("heading", { level: 2, name: "New message" }).waitFor();
    assert.equal(await page().getByLabel("To", { exact: true }).inputValue(), '"Bob" <bob@example.org>');
    await page().getByRole("link", { name: "← All mail" }).click();
    await page().getByRole("link", { name: "Write a message" }).click();
    await page().getByRole("heading", { level: 2, name: "New message" }).waitFor();
    assert.equal(await page().getByLabel("To", { exact: true }).inputValue(), "");
    await page().getByLabel("To", { exact: true }).fill("Carol <carol@example.org>, not an address");
    await page().getByLabel("Subject", { exact: true }).fill("Hello");
    await page().getByLabel("Message", { exact: true }).fill("Hi Carol, long time.");
    await page().getByRole("button", { name: "Send", exact: true }).click();
    const toError = page().locator(".field", { has: page().getByLabel("To", { exact: true }) }).locator(".field-error");
    await toError.waitFor();
    assert.match((await toError.textContent()) ?? "", /"not an address": an email address/);
    assert.equal(await page().getByLabel("To", { exact: true }).getAttribute("aria-invalid"), "true");

    await page().getByLabel("To", { exact: true }).fill("Carol <carol@example.org>");
    await page().getByRole("button", { name: "Send", exact: true }).click();
    const card = page().locator(".mail-compose .mail-approval");
    await card.getByRole("heading", { name: "Waiting for your approval" }).waitFor();
    await card.getByText(/sensitive/).waitFor();
    await card.getByText("Hi Carol, long time.").waitFor();
    await app.screenshot("mail-compose");
    assert.deepEqual(await app.axe(), []);
    await card.getByRole("button", { name: "Approve and send" }).click();
    const dialog = page().getByRole("dialog", { name: "Confirm it's you" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Confirm with a passkey" }).click();
    await card.getByText(/The node says: queued as effect-\d+/).waitFor();
    await waitFor("the new message at the SMTP server", () => (smtp.messages.length === 2 ? true : undefined), MAIL_WAIT);
    const raw = smtp.messages[1] as string;
    assert.equal(header(raw, "To"), "carol@example.org");
    assert.equal(header(raw, "Subject"), "Hello");
    assert.match(raw, /Hi Carol, long time\./);
    const sent = (await app.call("GET", "/api/comms/list")).body.items as { subject: string }[];
    assert.ok(sent.some((t) => t.subject === "Hello"), "the sent message has its thread");
  });

  it("the page's scripts threw nothing, and its policy refused nothing the page needs", () => {
    assert.deepEqual(app.pageErrors, []);
    assert.deepEqual(app.refusedByPolicy, []);
  });
});
