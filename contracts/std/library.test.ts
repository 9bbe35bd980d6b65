/** The standard library's stored artifacts match its sources (issue 5, item 3 "Sources"). */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";
import { buildStandardLibrary } from "./build.ts";
import { ARTIFACTS_URL, standardLibrary } from "./library.ts";

it("artifacts.json is what the sources compile to (run node contracts/std/build.ts)", () => {
  assert.equal(readFileSync(ARTIFACTS_URL, "utf8"), buildStandardLibrary());
});

it("ships std.invoices with the fields of the specification's example", () => {
  const invoices = standardLibrary().find((a) => a.namespace === "std.invoices");
  assert.ok(invoices);
  const schema = JSON.parse(invoices.schemaJson) as { aggregates: Record<string, { fields: { name: string }[] }> };
  assert.deepEqual(
    schema.aggregates.Invoice?.fields.map((f) => f.name),
    ["reference", "supplier", "number", "amount_minor", "currency", "issued_on", "due_on", "status", "source", "digest", "note", "payment_reference", "owner"],
  );
});
