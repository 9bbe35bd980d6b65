/** The gateway's read-only store view: lazy opening, and installs changing under a cached schema. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { HttpProblem } from "../../../shared/problem.ts";
import { migrate } from "../../../shared/store/migrations.ts";
import { openDatabase } from "../../../shared/store/open.ts";
import { StoreView } from "./store-view.ts";

const dir = mkdtempSync(join(tmpdir(), "charter-store-view-"));
after(() => rmSync(dir, { recursive: true, force: true }));

it("answers 503 until the store exists, then follows installs as the writer changes them", () => {
  const path = join(dir, "charter.db");
  const view = new StoreView(path);
  assert.throws(() => view.read(() => 0), (e: unknown) => e instanceof HttpProblem && e.problem.status === 503);

  const writer = openDatabase(path);
  migrate(writer);
  const schema = (version: string) => JSON.stringify({ format: "charter-schema/1", namespace: "acme.x", version });
  writer.exec("INSERT INTO tenants (handle, did, created_at) VALUES ('acme', 'did:key:z', 0)");
  const store = writer.prepare("INSERT INTO artifacts (id, namespace, version, schema, wasm, source, stored_at) VALUES (?, 'acme.x', ?, ?, x'00', '', 0)");
  store.run("art_1", "1.0.0", schema("1.0.0"));
  store.run("art_2", "2.0.0", schema("2.0.0"));
  writer.exec("INSERT INTO installs (tenant, namespace, artifact, status, installed_at) VALUES ('acme', 'acme.x', 'art_1', 'active', 0)");

  const active = () => view.read(() => view.active("acme", "acme.x"));
  assert.equal(active()?.artifact, "art_1");
  assert.equal(active()?.schema.version, "1.0.0");
  assert.equal(view.read(() => view.active("acme", "acme.y")), null);

  writer.exec("UPDATE installs SET status = 'replaced' WHERE artifact = 'art_1'");
  writer.exec("INSERT INTO installs (tenant, namespace, artifact, status, installed_at) VALUES ('acme', 'acme.x', 'art_2', 'active', 1)");
  assert.equal(active()?.artifact, "art_2", "a commit by the writer is seen on the next read");
  assert.equal(active()?.schema.version, "2.0.0");
  view.close();
  writer.close();
});
