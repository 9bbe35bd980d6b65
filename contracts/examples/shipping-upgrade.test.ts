/**
 * The shipped upgrade example is a real upgrade of the shipping example: shipping-v2 names the
 * artifact id shipping compiles to, passes the upgrade check against it, and keeps every one of its
 * actions as it was — so neither file can change without the other.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { Artifact } from "../artifact.ts";
import { compileContract } from "../compile.ts";
import { previousFromSchema } from "../previous-schema.ts";
import type { Schema } from "../schema.ts";

const read = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), "utf8");

function compiled(name: string, previous?: Schema): Artifact {
  const r = compileContract(read(name), previous === undefined ? {} : { previous: previousFromSchema(previous) });
  assert.deepEqual(r.diagnostics.map((d) => d.message), [], `${name} compiles`);
  return r.artifact as Artifact;
}

describe("shipping-v2 upgrades the shipping example", () => {
  const v1 = compiled("shipping.charter.md");
  const v2 = compiled("shipping-v2.charter.md", v1.schema);

  it("names the artifact id shipping.charter.md compiles to", () => {
    assert.equal(v2.schema.upgrades, v1.id);
    assert.equal(v2.schema.namespace, v1.schema.namespace);
  });

  it("keeps every action of version 1.0.0 unchanged, and adds a field with a migrate line", () => {
    for (const [name, action] of Object.entries(v1.schema.actions)) {
      const kept = v2.schema.actions[name];
      assert.ok(kept !== undefined, `${name} is kept`);
      const { validate: _v1Lines, apply: _v1Apply, ...v1Rest } = action;
      const { validate: _v2Lines, apply: _v2Apply, ...v2Rest } = kept;
      assert.deepEqual(v2Rest, v1Rest, `${name} has the same parameters, exposure and authorization`);
      assert.deepEqual(kept.validate.map((c) => c.text), action.validate.map((c) => c.text), `${name} checks the same conditions`);
      assert.deepEqual(kept.apply.map((a) => a.text), action.apply.map((a) => a.text), `${name} changes the same fields`);
    }
    const v1Fields = new Set(v1.schema.aggregates.Order?.fields.map((f) => f.name));
    const added = (v2.schema.aggregates.Order?.fields ?? []).filter((f) => !v1Fields.has(f.name)).map((f) => f.name);
    assert.ok(added.length > 0, "v2 adds a field");
    assert.deepEqual(v2.schema.migrations.Order?.map((m) => m.field), added, "each new field has its migrate line");
  });

  it("fails the upgrade check without its migrate line", () => {
    const source = read("shipping-v2.charter.md").replace(/^migrate Order \{[^}]*\}\n/m, "");
    const r = compileContract(source, { previous: previousFromSchema(v1.schema) });
    assert.match(r.diagnostics.map((d) => d.message).join("\n"), /needs migrate lines for priority/);
  });
});
