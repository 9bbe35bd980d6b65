import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CALL_NAME, callNames } from "./tool-call-names.ts";

describe("the names a model calls tools by", () => {
  it("dots (and anything else a provider refuses) become _", () => {
    assert.deepEqual(callNames(["std.tasks.Create", "std.memory.Add", "acme.ship-it.Go"]), ["std_tasks_Create", "std_memory_Add", "acme_ship-it_Go"]);
  });

  it("a name too long for 64 characters keeps its head and gets a hash of itself", () => {
    const long = `acme.${"very".repeat(20)}.Create`;
    const [name] = callNames([long]);
    assert.ok(name !== undefined);
    assert.match(name, CALL_NAME);
    assert.equal(name.length, 64);
    assert.match(name, /^acme_veryvery.*_[0-9a-f]{8}$/);
    const exactly = `a.${"b".repeat(62)}`;
    assert.deepEqual(callNames([exactly]), [exactly.replace(".", "_")], "64 characters fit");
  });

  it("names that spell the same both get their own hash, so neither takes the other's", () => {
    const names = callNames(["acme.a_b.Go", "acme.a.b.Go", "std.tasks.Create"]);
    assert.equal(new Set(names).size, 3);
    assert.match(names[0] as string, /^acme_a_b_Go_[0-9a-f]{8}$/);
    assert.match(names[1] as string, /^acme_a_b_Go_[0-9a-f]{8}$/);
    assert.notEqual(names[0], names[1]);
    assert.equal(names[2], "std_tasks_Create", "the others keep their plain names");
  });

  it("a hashed name that happens to equal another tool's plain name takes a longer hash", () => {
    const [hashed] = callNames(["x.y", "x_y"]);
    const clash = callNames(["x.y", "x_y", hashed as string]);
    assert.equal(new Set(clash).size, 3);
    assert.equal(clash[2], hashed, "the plain name is the other tool's");
    assert.match(clash[0] as string, /^x_y_[0-9a-f]{16}$/);
  });

  it("is stable: the same name gets the same call name whatever else is in the catalogue", () => {
    const long = `acme.${"x".repeat(80)}.Do`;
    const alone = callNames([long, "std.tasks.Create"]);
    const among = callNames(["a.b.C", "std.memory.Add", long, "std.tasks.Create", "z.z.Z"]);
    assert.equal(among[2], alone[0]);
    assert.equal(among[3], alone[1]);
    assert.deepEqual(callNames([long]), callNames([long]));
  });

  it("every call name fits the providers' pattern", () => {
    for (const name of callNames(["a.b.C", "ünïcode.näme.X", `${"q".repeat(300)}.Y`, "a b.c/d"])) assert.match(name, CALL_NAME);
  });
});
