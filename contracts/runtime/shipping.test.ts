/**
 * Spec §3.1: the shipping transition table end to end, compiled from the example contract and run
 * through the WebAssembly runtime, with the reference interpreter agreeing on every step.
 */
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { compileContract } from "../compile.ts";
import { createInterpreter } from "../interpreter/interpreter.ts";
import { analyze } from "../front.ts";
import { loadArtifact } from "./load-artifact.ts";
import type { Outcome, State } from "./load-artifact.ts";

const source = readFileSync(new URL("../examples/shipping.charter.md", import.meta.url), "utf8");
const compiled = compileContract(source);
if (compiled.artifact === undefined) throw new Error(`shipping does not compile: ${JSON.stringify(compiled.diagnostics)}`);
const runtime = loadArtifact(compiled.artifact);
const checked = analyze(source).contract;
if (checked === null) throw new Error("shipping does not parse");
const oracle = createInterpreter(checked, source);

const ADA = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const BOB = "did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG";

/** The 1-based line of the first line after `action NAME(` that contains `text`. */
function lineOf(action: string, text: string): number {
  const lines = source.split("\n");
  const start = lines.findIndex((l) => l.includes(`action ${action}(`));
  const i = lines.findIndex((l, k) => k > start && l.trim() === text);
  if (start < 0 || i < 0) throw new Error(`no line ${text} in ${action}`);
  return i + 1;
}

function run(action: string, state: State, signer: string, args: Record<string, unknown> = {}): Outcome {
  const input = { state, args, context: { signer, time: 1_700_000_000_000 } };
  const outcome = runtime.execute(action, input);
  deepStrictEqual(oracle.execute(action, input), outcome, `interpreter disagrees on ${action}`);
  return outcome;
}

function accepted(o: Outcome): State {
  if (o.outcome !== "accepted") throw new Error(`refused: ${JSON.stringify(o.reason)}`);
  return o.state;
}

function refusedOn(o: Outcome, action: string, condition: string): void {
  deepStrictEqual(o, {
    outcome: "refused",
    reason: { code: "condition_failed", condition, line: lineOf(action, condition), message: `condition does not hold: ${condition}` },
  });
}

const request = { customer: "Ada Lovelace", destination: "Oslo", units: 4, crates: 2, credit_terms: false };
const fresh = (): State => runtime.defaultState("Order");
const requested = (over: Record<string, unknown> = {}): State => accepted(run("Request", fresh(), ADA, { ...request, ...over }));

describe("shipping (spec §3.1)", () => {
  it("starts New with the declared defaults", () => {
    deepStrictEqual(fresh(), {
      status: "New", customer: "", destination: "", units: 0, crates: 0, crates_checked: 0,
      paid: false, credit_terms: false, requested_by: null, confirmed_by: null,
    });
    deepStrictEqual(oracle.defaultState("Order"), fresh());
  });

  it("New → Request → Requested, copying the parameters and the signer", () => {
    deepStrictEqual(requested(), {
      status: "Requested", customer: "Ada Lovelace", destination: "Oslo", units: 4, crates: 2, crates_checked: 0,
      paid: false, credit_terms: false, requested_by: ADA, confirmed_by: null,
    });
  });

  it("refuses Request unless New, units > 0 and crates > 0", () => {
    refusedOn(run("Request", requested(), ADA, request), "Request", "state.status == New");
    refusedOn(run("Request", fresh(), ADA, { ...request, units: 0 }), "Request", "units > 0");
    refusedOn(run("Request", fresh(), ADA, { ...request, crates: -3 }), "Request", "crates > 0");
  });

  it("refuses a customer longer than 200 characters with text_too_long", () => {
    const o = run("Request", fresh(), ADA, { ...request, customer: "é".repeat(201) });
    deepStrictEqual(o, { outcome: "refused", reason: { code: "text_too_long", condition: null, line: null, message: "argument customer is longer than 200 characters" } });
    strictEqual(accepted(run("Request", fresh(), ADA, { ...request, customer: "😀".repeat(200) })).customer, "😀".repeat(200));
  });

  it("Requested → CheckCrate counts crates up to the number of crates", () => {
    let s = requested();
    s = accepted(run("CheckCrate", s, ADA));
    strictEqual(s.crates_checked, 1);
    s = accepted(run("CheckCrate", s, BOB));
    strictEqual(s.crates_checked, 2);
    refusedOn(run("CheckCrate", s, ADA), "CheckCrate", "state.crates_checked < state.crates");
    refusedOn(run("CheckCrate", fresh(), ADA), "CheckCrate", "state.status == Requested");
  });

  it("Requested → Confirm by someone other than the requester", () => {
    refusedOn(run("Confirm", requested(), ADA), "Confirm", "context.signer != state.requested_by");
    const s = accepted(run("Confirm", requested(), BOB));
    strictEqual(s.status, "Confirmed");
    strictEqual(s.confirmed_by, BOB);
    refusedOn(run("Confirm", s, BOB), "Confirm", "state.status == Requested");
    refusedOn(run("Confirm", fresh(), BOB), "Confirm", "state.status == Requested");
  });

  it("Pay in Requested or Confirmed, once", () => {
    refusedOn(run("Pay", fresh(), ADA), "Pay", "state.status != New");
    const paid = accepted(run("Pay", requested(), ADA));
    deepStrictEqual(paid, { ...requested(), paid: true });
    refusedOn(run("Pay", paid, ADA), "Pay", "state.paid == false");
    const confirmed = accepted(run("Confirm", requested(), BOB));
    strictEqual(accepted(run("Pay", confirmed, ADA)).status, "Confirmed");
  });

  it("Ship needs payment or credit terms and every crate checked", () => {
    const checkedAll = (s: State) => accepted(run("CheckCrate", accepted(run("CheckCrate", s, ADA)), ADA));
    refusedOn(run("Ship", checkedAll(requested()), ADA), "Ship", "state.paid or state.credit_terms");
    refusedOn(run("Ship", accepted(run("Pay", requested(), ADA)), ADA), "Ship", "state.crates_checked == state.crates");
    strictEqual(accepted(run("Ship", checkedAll(requested({ credit_terms: true })), ADA)).status, "Shipped");
    strictEqual(accepted(run("Ship", accepted(run("Pay", checkedAll(requested()), ADA)), BOB)).status, "Shipped");
  });

  it("Ship only from Requested or Confirmed", () => {
    const shipped = { ...requested(), paid: true, crates_checked: 2, status: "Shipped" };
    refusedOn(run("Ship", shipped, ADA), "Ship", "state.status == Requested or state.status == Confirmed");
    refusedOn(run("Ship", { ...fresh(), paid: true }, ADA), "Ship", "state.status == Requested or state.status == Confirmed");
  });

  it("large orders and the restricted destination ship only once confirmed", () => {
    const ready = (over: Record<string, unknown>) => ({ ...requested(over), paid: true, crates_checked: 2 });
    refusedOn(run("Ship", ready({ units: 101 }), ADA), "Ship", "state.status == Confirmed or state.units <= 100");
    strictEqual(accepted(run("Ship", ready({ units: 100 }), ADA)).status, "Shipped");
    refusedOn(run("Ship", ready({ destination: "Embargoed" }), ADA), "Ship", "state.status == Confirmed or state.destination != \"Embargoed\"");
    for (const over of [{ units: 101 }, { destination: "Embargoed" }]) {
      const confirmed = accepted(run("Confirm", ready(over), BOB));
      strictEqual(accepted(run("Ship", confirmed, ADA)).status, "Shipped");
    }
  });

  it("a refusal leaves the state untouched and the same state gives the same outcome", () => {
    const s = requested();
    const before = structuredClone(s);
    run("Confirm", s, ADA);
    deepStrictEqual(s, before);
    deepStrictEqual(run("Confirm", s, BOB), run("Confirm", s, BOB));
  });
});
