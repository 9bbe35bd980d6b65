/**
 * Contract-declared effects on the write path: queued in the command's own transaction when the
 * tenant has them on, never for a refused command, never while they are off, and gone with the
 * command when its transaction rolls back.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { compileContract } from "../../contracts/compile.ts";
import { Journal } from "../../shared/journal.ts";
import { EFFECT_TOPIC } from "../../shared/protocol/outbox.ts";
import { BatchCommitter } from "./command-commit.ts";
import { callers, command, memoryStore, NOW, pending } from "./command-fixture.ts";
import { BatchPlanner } from "./command-plan.ts";
import { ContractEffects, renderEffect, tenantEffectsOf } from "./contract-effects.ts";
import { installArtifact } from "./install.ts";

const NS = "acme.billing";
const NODE = "did:key:z6MkNode";
const { ada } = callers;

function billingStore() {
  const f = memoryStore();
  const source = readFileSync(new URL("../../contracts/examples/billing.charter.md", import.meta.url), "utf8");
  const artifact = compileContract(source).artifact;
  if (artifact === undefined) throw new Error("the billing example does not compile");
  const installed = installArtifact(f.db, { tenant: "acme", artifact: { id: artifact.id, schemaJson: new TextDecoder().decode(artifact.schemaBytes), wasm: artifact.wasm, source }, installedBy: callers.owner, now: NOW });
  if (!installed.ok) throw new Error(installed.error.message);
  const effects = new ContractEffects(f.db, new Journal(f.db));
  const committer = new BatchCommitter(f.db, f.artifacts, effects);
  const run = async (commands: Parameters<typeof pending>[0], now = NOW) => committer.commit(await new BatchPlanner(f.deps).plan(pending(commands).batch, now), { node: NODE });
  const queued = () => (f.db.prepare("SELECT key, payload FROM journal WHERE topic = ? ORDER BY id").all(EFFECT_TOPIC) as { key: string; payload: string }[]).map((r) => ({ key: r.key, ...JSON.parse(r.payload) }));
  return { ...f, effects, run, queued };
}

const bill = (action: string, subject: string, args: Record<string, unknown> = {}) => command(ada, action, subject, args, { namespace: NS });

describe("contract-declared effects", () => {
  it("queue nothing while the tenant has them off (the default)", async () => {
    const s = billingStore();
    await s.run([bill("Draft", "inv-1", { number: "2026-1", customer: "pay@example.org", total_cents: 1250 }), bill("Send", "inv-1", { note: "" })]);
    assert.deepEqual(s.queued(), []);
    assert.equal(s.effects.settings("acme"), null);
  });

  it("are queued with the accepted command, rendered from its arguments and the record's new state", async () => {
    const s = billingStore();
    assert.equal(s.effects.set("acme", { email: { account: "work" }, pdf: true }), true);
    const done = await s.run([
      bill("Draft", "inv-1", { number: "2026-1", customer: "pay@example.org", total_cents: 1250 }),
      bill("CopyTo", "inv-1", { address: "books@example.org" }),
      bill("Send", "inv-1", { note: "Thank you." }),
    ]);
    assert.equal(done.effects, 2);
    const send = done.receipts.find((r) => r.action === "Send");
    const [pdf, email] = s.queued();
    assert.equal(pdf.key, `${send?.id}:0`);
    assert.deepEqual([pdf.connector, pdf.effect, pdf.account], ["pdf", "render", null]);
    assert.deepEqual(pdf.args, { title: "Invoice 2026-1", text: "Customer: pay@example.org\nAmount due: 1250 cents\nThank you.", file: "invoice-2026-1.pdf", time: NOW });
    assert.deepEqual(pdf.source, { tenant: "acme", namespace: NS, action: "Send", subject: "inv-1", receipt: send?.id, seq: send?.seq });
    assert.equal(email.key, `${send?.id}:1`);
    assert.deepEqual([email.connector, email.effect, email.account], ["email", "send", "work"]);
    assert.deepEqual(email.args.to, ["pay@example.org"]);
    assert.deepEqual(email.args.cc, ["books@example.org"], "a List<Text> field gives one address per element");
    assert.equal(email.args.subject, "Invoice 2026-1");
    assert.match(email.args.text, /your invoice 2026-1 for 1250 cents is ready\.\nThank you\.$/);
  });

  it("queue nothing for a refused command, and only the kinds the tenant switched on", async () => {
    const s = billingStore();
    s.effects.set("acme", { email: null, pdf: true });
    await s.run([bill("Draft", "inv-2", { number: "2026-2", customer: "a@example.org", total_cents: 10 }), bill("Send", "inv-2", { note: "" })]);
    assert.deepEqual(s.queued().map((e) => e.connector), ["pdf"], "email is off");
    const again = await s.run([bill("Send", "inv-2", { note: "twice" })], NOW + 1);
    assert.equal(again.receipts[0]?.outcome, "refused");
    assert.equal(again.effects, 0);
    assert.equal(s.queued().length, 1, "a refused Send queued nothing");
  });

  it("roll back with the command when its transaction fails", async () => {
    const s = billingStore();
    s.effects.set("acme", { email: { account: "work" }, pdf: true });
    await s.run([bill("Draft", "inv-3", { number: "2026-3", customer: "a@example.org", total_cents: 10 })]);
    const plan = await new BatchPlanner(s.deps).plan(pending([bill("Send", "inv-3", { note: "" })]).batch, NOW + 2);
    const committer = new BatchCommitter(s.db, s.artifacts, s.effects);
    assert.throws(() => committer.commit(plan, { node: NODE, inTransaction: () => { throw new Error("the disk is full"); } }), /the disk is full/);
    assert.deepEqual(s.queued(), []);
    assert.equal((s.db.prepare("SELECT count(*) AS n FROM history WHERE action = 'Send'").get() as { n: number }).n, 0);
  });

  it("switch off again, and an unknown tenant or unreadable setting is off", () => {
    const s = billingStore();
    s.effects.set("acme", { email: { account: "work" }, pdf: false });
    assert.deepEqual(s.effects.settings("acme"), { email: { account: "work" }, pdf: false });
    s.effects.set("acme", { email: null, pdf: false });
    assert.equal(s.effects.settings("acme"), null);
    assert.equal(s.effects.set("nobody", { email: null, pdf: true }), false);
    assert.equal(tenantEffectsOf("{not json"), null);
  });

  it("render numbers in decimal, lists joined, unset values as nothing", () => {
    const rendered = renderEffect(
      { effect: "pdf", line: 1, fields: [{ field: "title", parts: [{ text: "n=" }, { state: "n" }, { text: " by " }, { context: "signer" }] }, { field: "text", parts: [{ state: "tags" }, { text: "|" }, { param: "missing" }, { context: "time" }] }] },
      { args: {}, state: { n: "12345678901234567890", tags: ["a", "b"] }, signer: "did:key:z6Mk", time: 7 },
    );
    assert.deepEqual(rendered, { title: "n=12345678901234567890 by did:key:z6Mk", text: "a, b|7" });
  });
});
