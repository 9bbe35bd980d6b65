/**
 * The runtime's API: argument errors, integer and text marshalling at the edges, defaults,
 * refusal codes other than conditions, and that it never reaches binaryen or the compiler.
 */
import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { compileContract } from "../compile.ts";
import { analyze } from "../front.ts";
import { createInterpreter } from "../interpreter/interpreter.ts";
import { ArgumentError } from "./errors.ts";
import { loadArtifact } from "./load-artifact.ts";
import type { ExecuteInput, Outcome } from "./load-artifact.ts";

const A = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const B = "did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG";

/** The golden inputs double as small contracts exercising lists, texts, identities and arithmetic. */
function load(name: string) {
  const source = readFileSync(new URL(`../../test/golden/compile/${name}.charter.md`, import.meta.url), "utf8");
  const artifact = compileContract(source).artifact;
  const contract = analyze(source).contract;
  if (artifact === undefined || contract === null) throw new Error(`${name} does not compile`);
  const runtime = loadArtifact(artifact);
  const oracle = createInterpreter(contract, source);
  return {
    runtime,
    run(action: string, input: ExecuteInput): Outcome {
      const out = runtime.execute(action, input);
      deepStrictEqual(oracle.execute(action, input), out);
      return out;
    },
  };
}

const ledger = load("ledger");
const lists = load("lists");
const ctx = (signer: string | null = A) => ({ signer, time: 1 });
const owned = { ...ledger.runtime.defaultState("Account"), owner: A };
const code = (o: Outcome) => (o.outcome === "refused" ? o.reason.code : "accepted");

describe("runtime arguments", () => {
  it("throws one ArgumentError listing every problem", () => {
    try {
      ledger.runtime.execute("Open", { args: { owner: "alice", due: "2026-02-30", extra: 1 }, context: ctx() });
      throw new Error("no error");
    } catch (e) {
      ok(e instanceof ArgumentError);
      deepStrictEqual(e.problems.map((p) => p.field), ["owner", "due", "parent", "extra"]);
    }
    throws(() => ledger.runtime.execute("Move", { state: owned, args: { amount: 1.5, parts: 1 }, context: ctx() }), ArgumentError);
    throws(() => ledger.runtime.execute("Move", { state: owned, args: { amount: 1, parts: 1 }, context: ctx("did:web:x") }), ArgumentError);
    throws(() => ledger.runtime.execute("Nope", { context: ctx() }), /unknown action/);
  });

  it("treats an over-long text as the contract's refusal, not an argument error", () => {
    const o = lists.run("Add", { args: { title: "ü".repeat(21) }, context: ctx() });
    deepStrictEqual(o, { outcome: "refused", reason: { code: "text_too_long", condition: null, line: null, message: "argument title is longer than 20 characters" } });
    strictEqual(code(lists.run("Add", { args: { title: "𝄞".repeat(20) }, context: ctx() })), "accepted");
    strictEqual(code(lists.run("Add", { args: { title: "x".repeat(1000) }, context: ctx() })), "text_too_long");
  });

  it("accepts Int as number, bigint or decimal string and answers number or string", () => {
    const split = (balance: unknown, amount: unknown, parts: unknown) => ledger.run("Split", { state: { ...owned, balance }, args: { amount, parts }, context: ctx() });
    const balance = (o: Outcome) => (o.outcome === "accepted" ? o.state.balance : o.reason.code);
    strictEqual(balance(split(10, 4n, "2")), 8);
    strictEqual(balance(split(9007199254740993n, 2, 1)), 9007199254740991);
    strictEqual(balance(split(-9007199254740990, 2, 1)), "-9007199254740992");
    strictEqual(balance(split("-9223372036854775806", 2, 1)), "-9223372036854775808");
    strictEqual(balance(split("-9223372036854775807", 2, 1)), "overflow");
    strictEqual(balance(split("9223372036854775807", "9223372036854775807", "1")), 0);
    throws(() => split(0, "9223372036854775808", 1), ArgumentError);
    throws(() => split(0, 2 ** 53, 1), ArgumentError);
  });
});

describe("runtime refusals", () => {
  it("refuses state.FIELD authorization while unset and for another signer", () => {
    const unset = ledger.run("Move", { args: { amount: 2, parts: 1 }, context: ctx() });
    strictEqual(unset.outcome === "refused" && unset.reason.message, "state.owner is unset, so nobody may do this yet");
    strictEqual(code(ledger.run("Move", { state: owned, args: { amount: 2, parts: 1 }, context: ctx(B) })), "unauthorized");
    strictEqual(code(ledger.run("Move", { state: owned, args: { amount: 2, parts: 1 }, context: ctx(null) })), "unauthorized");
  });

  it("refuses division by zero and MIN / -1 with their codes and lines", () => {
    const zero = ledger.run("Move", { state: owned, args: { amount: 4, parts: 0 }, context: ctx() });
    deepStrictEqual(zero.outcome === "refused" && [zero.reason.code, zero.reason.condition], ["division_by_zero", "amount % parts == 0"]);
    const min = ledger.run("Split", { state: owned, args: { amount: "-9223372036854775808", parts: -1 }, context: ctx() });
    deepStrictEqual(min.outcome === "refused" && [min.reason.code, min.reason.condition], ["overflow", "amount / parts > 0"]);
    strictEqual(code(ledger.run("Move", { state: { ...owned, balance: 10 }, args: { amount: "-9223372036854775808", parts: -1 }, context: ctx() })), "overflow");
  });

  it("refuses appending to a full list and a text growing past its length", () => {
    let state = lists.runtime.defaultState("Shelf");
    const outcomes: string[] = [];
    for (const title of ["a", "b", "c", "d"]) {
      const o = lists.run("Add", { state, args: { title }, context: ctx() });
      outcomes.push(code(o));
      if (o.outcome === "accepted") state = o.state;
    }
    deepStrictEqual(outcomes, ["accepted", "accepted", "accepted", "list_full"]);
    const full = lists.run("Add", { state: { ...state, titles: [], note: "+".repeat(12) }, args: { title: "e" }, context: ctx() });
    deepStrictEqual(full.outcome === "refused" && [full.reason.code, full.reason.line], ["text_too_long", 24]);
  });
});

describe("runtime state", () => {
  it("gives a fresh default state and uses it for a subject without a record", () => {
    const d = lists.runtime.defaultState("Shelf");
    deepStrictEqual(d, { titles: [], note: "", readers: [], opened: 0 });
    (d.titles as string[]).push("mutated");
    deepStrictEqual(lists.runtime.defaultState("Shelf").titles, []);
    const o = lists.run("Read", { state: null, context: ctx() });
    deepStrictEqual(o.outcome === "accepted" && o.state, { titles: [], note: "", readers: [A], opened: 1 });
  });

  it("copies vectors and keeps dates and references", () => {
    const o = ledger.run("Open", { state: { ...owned, template: [0.1, -2, 3.5] }, args: { owner: B, due: "2024-02-29", parent: "acct:1" }, context: ctx() });
    deepStrictEqual(o.outcome === "accepted" && [o.state.embedding, o.state.due, o.state.parent, o.state.template], [[Math.fround(0.1), -2, 3.5], "2024-02-29", "acct:1", [0.1, -2, 3.5]]);
  });
});

describe("runtime isolation", () => {
  it("never imports binaryen or the compiler", () => {
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/^(?:import|export)[^"';]*["']([^"']+)["']/gm)) {
        const spec = m[1] as string;
        ok(!spec.includes("binaryen") && !spec.includes("codegen") && !spec.endsWith("compile.ts") && !spec.includes("front.ts"), `${file} imports ${spec}`);
        if (spec.startsWith(".")) visit(join(dirname(file), spec));
      }
    };
    visit(fileURLToPath(new URL("./index.ts", import.meta.url)));
    ok(seen.size >= 5);
  });
});
