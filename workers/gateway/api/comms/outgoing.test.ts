import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FieldError } from "../connectors/account-fields.ts";
import type { MessageView } from "./comms-records.ts";
import { addressList, mailOfPayload, replyRecipients, replyReferences, replySubject, withSignature } from "./outgoing.ts";

const message = (fields: Partial<MessageView>): MessageView => ({
  id: "msg-1",
  account: "home",
  messageId: "<m@x>",
  thread: "thr-1",
  direction: "received",
  from: { address: "bob@example.org", name: "Bob" },
  replyTo: null,
  to: ["ada@home.example"],
  cc: [],
  subject: "Plans",
  date: null,
  text: "",
  truncated: false,
  snippet: "",
  inReplyTo: null,
  references: [],
  seen: false,
  held: false,
  effect: null,
  ...fields,
});

describe("outgoing mail", () => {
  it("parses addresses, names each bad one, and bounds the list", () => {
    const errors: FieldError[] = [];
    assert.deepEqual(addressList(["Bob <Bob@Example.org>", "carol@example.org", "carol@example.org"], "to", errors, true), ["bob@example.org", "carol@example.org"]);
    assert.equal(errors.length, 0);
    addressList(["not an address", "a@b.example, c@d.example", 7, "x@y.example\r\nBcc: z@z.example"], "cc", errors, false);
    assert.deepEqual(errors.map((e) => e.pointer), ["#/cc/0", "#/cc/1", "#/cc/2", "#/cc/3"]);
    const more: FieldError[] = [];
    addressList(Array.from({ length: 51 }, (_, i) => `p${i}@x.example`), "to", more, true);
    addressList([], "to", more, true);
    addressList(undefined, "to", more, true);
    assert.deepEqual(more.map((e) => e.pointer), ["#/to", "#/to", "#/to"]);
  });

  it("replies to the sender (or Reply-To) with Re:, In-Reply-To's parent last in References", () => {
    assert.equal(replySubject("Plans"), "Re: Plans");
    assert.equal(replySubject("RE: Plans"), "RE: Plans");
    assert.deepEqual(replyRecipients(message({})), { to: ["bob@example.org"], cc: [] });
    assert.deepEqual(replyRecipients(message({ replyTo: "list@example.org" })).to, ["list@example.org"]);
    assert.deepEqual(replyRecipients(message({ direction: "sent", to: ["bob@example.org"], cc: ["c@x.example"] })), { to: ["bob@example.org"], cc: ["c@x.example"] });
    assert.deepEqual(replyReferences(message({ references: ["<root@x>", "<m@x>"] })), ["<root@x>", "<m@x>"]);
    const long = Array.from({ length: 30 }, (_, i) => `<r${i}@x>`);
    const refs = replyReferences(message({ references: long }));
    assert.equal(refs.length, 20);
    assert.equal(refs.at(-1), "<m@x>");
  });

  it("appends the signature after the signature line, escaped in HTML", () => {
    assert.deepEqual(withSignature("Hi", null, ""), { text: "Hi", html: null });
    assert.deepEqual(withSignature("Hi", "<p>Hi</p>", "Ada\n<ada@home>"), { text: "Hi\n\n-- \nAda\n<ada@home>", html: "<p>Hi</p><br><br>-- <br>Ada<br>&lt;ada@home&gt;" });
  });

  it("reads back only a payload that is a message", () => {
    assert.equal(mailOfPayload("{"), null);
    assert.equal(mailOfPayload(JSON.stringify({ account: "home" })), null);
    const mail = { account: "home", from: "a@b.example", fromName: "", to: ["c@d.example"], cc: [], bcc: [], subject: "s", text: "t", html: null, inReplyTo: null, references: [], thread: null };
    assert.deepEqual(mailOfPayload(JSON.stringify(mail)), mail);
  });
});
