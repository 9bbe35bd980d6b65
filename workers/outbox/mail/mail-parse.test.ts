import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAIL_LIMITS, mailEntry } from "../../../shared/protocol/outbox.ts";
import { batches, MAX_RAW } from "./mail-reader.ts";
import { clip, normalizeMessageId, parseMessage } from "./mail-parse.ts";

const fetched = (raw: string, extra: { size?: number; seen?: boolean } = {}) => {
  const source = Buffer.from(raw.replace(/\r?\n/g, "\r\n"));
  return { account: "home", uidvalidity: 7, uid: 3, source, size: extra.size ?? source.length, internalDate: 1_700_000_000_000, seen: extra.seen ?? false };
};

describe("parsing fetched mail", () => {
  it("takes the headers, threads' Message-IDs and text of a message, within the entry's bounds", async () => {
    const entry = await parseMessage(
      fetched(
        [
          "From: Bob Builder <Bob@Example.org>",
          "To: Ada <ada@home.example>, carol@example.org",
          "Cc: Team: dan@example.org, erin@example.org;",
          "Reply-To: list@example.org",
          "Subject: =?UTF-8?Q?Caf=C3=A9?= plans",
          "Date: Tue, 24 Nov 2026 10:00:00 +0000",
          "Message-ID: <b2@example.org>",
          "In-Reply-To: <a1@home.example> (Ada's note)",
          "References: <root@example.org>\n <a1@home.example>",
          "",
          "Shall we meet?",
        ].join("\n"),
        { seen: true },
      ),
      0,
    );
    assert.equal(mailEntry(entry), entry, "a valid mail entry");
    assert.deepEqual(entry.from, { address: "bob@example.org", name: "Bob Builder" });
    assert.deepEqual(entry.to, ["ada@home.example", "carol@example.org"]);
    assert.deepEqual(entry.cc, ["dan@example.org", "erin@example.org"]);
    assert.equal(entry.replyTo, "list@example.org");
    assert.equal(entry.subject, "Café plans");
    assert.equal(entry.date, Date.parse("2026-11-24T10:00:00Z"));
    assert.equal(entry.messageId, "<b2@example.org>");
    assert.equal(entry.inReplyTo, "<a1@home.example>");
    assert.deepEqual(entry.references, ["<root@example.org>", "<a1@home.example>"]);
    assert.equal(entry.text.trim(), "Shall we meet?");
    assert.equal(entry.truncated, false);
    assert.equal(entry.seen, true);
  });

  it("renders an HTML-only message as text, makes a Message-ID for one without, and dates it by the server without a Date", async () => {
    const entry = await parseMessage(fetched(["From: x@y.example", "Content-Type: text/html", "", "<p>Hello <b>there</b></p><script>alert(1)</script>"].join("\n")), 0);
    assert.match(entry.text, /Hello there/i);
    assert.equal(entry.messageId, "<7.3.home@imap.charter.invalid>");
    assert.equal(entry.date, 1_700_000_000_000);
  });

  it("cuts a long text and says so, and says so of a message larger than what was fetched", async () => {
    const long = await parseMessage(fetched(`From: x@y.example\nMessage-ID: <l@x>\n\n${"word ".repeat(20_000)}`), 0);
    assert.equal(long.text.length, MAIL_LIMITS.text);
    assert.equal(long.truncated, true);
    const cut = await parseMessage(fetched("From: x@y.example\nMessage-ID: <c@x>\n\nshort", { size: MAX_RAW + 1 }), 0);
    assert.equal(cut.truncated, true);
    assert.equal(mailEntry(long), long);
  });

  it("keeps Message-IDs to one bracketed token, and clips without splitting a character", () => {
    assert.equal(normalizeMessageId("  <a@b>  <c@d>"), "<a@b>");
    assert.equal(normalizeMessageId("bare@id"), "<bare@id>");
    assert.equal(normalizeMessageId("two words"), "");
    assert.equal(clip("ab😀", 3), "ab");
    assert.equal(clip("abc", 3), "abc");
  });

  it("fetches in groups bounded by count and bytes; one large message goes alone", () => {
    const small = Array.from({ length: 45 }, (_, i) => ({ uid: i + 1, size: 1000 }));
    assert.deepEqual(batches(small).map((b) => b.length), [20, 20, 5]);
    const large = [{ uid: 1, size: 9 * 1024 * 1024 }, { uid: 2, size: 9 * 1024 * 1024 }, { uid: 3, size: 50 * 1024 * 1024 }, { uid: 4, size: 10 }];
    assert.deepEqual(batches(large).map((b) => b.map((m) => m.uid)), [[1], [2], [3, 4]]);
  });
});
