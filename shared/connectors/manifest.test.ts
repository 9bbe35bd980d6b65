import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { checkManifest, declaredHosts, loadManifests } from "./manifest.ts";

const good = {
  name: "mail",
  title: "Mail",
  description: "Sends mail.",
  hosts: ["{smtpHost}:{smtpPort}", "api.example.com"],
  effects: { send: { description: "Sends one.", approval: "ask" } },
  queue: { concurrency: 2, perSecond: 5 },
  retry: { attempts: 5, baseMs: 100, maxMs: 1000 },
};

describe("connector manifests", () => {
  it("the built-in manifests check", () => {
    const manifests = loadManifests();
    assert.deepEqual([...manifests.keys()].sort(), ["email", "noop", "pdf"]);
    assert.deepEqual(manifests.get("noop")?.hosts, []);
  });

  it("names every problem of a bad manifest at once, and refuses fields it does not know", () => {
    const checked = checkManifest({ ...good, name: "Bad Name", hosts: ["not a host", 7], effects: { send: { description: "", approval: "maybe", extra: 1 } }, queue: { concurrency: 0 }, surprise: true });
    assert.equal(checked.ok, false);
    const pointers = checked.ok ? [] : checked.problems.map((p) => p.pointer).sort();
    assert.deepEqual(pointers, [
      "#/effects/send/approval",
      "#/effects/send/description",
      "#/effects/send/extra",
      "#/hosts/0",
      "#/hosts/1",
      "#/name",
      "#/queue/concurrency",
      "#/queue/perSecond",
      "#/surprise",
    ]);
    assert.equal(checkManifest([]).ok, false);
    assert.equal(checkManifest(good).ok, true);
  });

  it("refuses to load a folder holding a manifest that does not check, naming the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "charter-manifests-"));
    try {
      writeFileSync(join(dir, "mail.json"), JSON.stringify(good));
      writeFileSync(join(dir, "other.json"), JSON.stringify({ ...good, name: "mail" }));
      writeFileSync(join(dir, "broken.json"), "{");
      assert.throws(() => loadManifests(dir), (error: Error) => /broken\.json: not JSON/.test(error.message) && /other\.json/.test(error.message));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fills host templates from an account's fields, declaring nothing for a missing field", () => {
    const checked = checkManifest(good);
    assert.ok(checked.ok);
    assert.deepEqual(declaredHosts(checked.manifest, { smtpHost: "smtp.example.com", smtpPort: 587 }), ["smtp.example.com:587", "api.example.com"]);
    assert.deepEqual(declaredHosts(checked.manifest, { smtpHost: "smtp.example.com" }), ["api.example.com"]);
  });
});
