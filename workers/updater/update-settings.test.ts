import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_UPDATE_SETTINGS } from "../../shared/protocol/updater.ts";
import { generateKeyPair } from "../../shared/identity/key-pair.ts";
import { changeSettings, inWindow, localMinutes } from "./update-settings.ts";

const at = (iso: string) => Date.parse(iso);

describe("update settings", () => {
  it("takes a channel (folder, https, http on loopback) and a did:key, and names every wrong field", () => {
    const did = generateKeyPair().did;
    for (const channel of ["/srv/charter-channel", "https://updates.example.com/charter", "http://127.0.0.1:8080/", "http://localhost:9/c", "http://[::1]:9/"]) {
      const ok = changeSettings(DEFAULT_UPDATE_SETTINGS, { mode: "ask", channel, releaseKey: did });
      assert.ok(ok.ok, channel);
    }
    const bad = changeSettings(DEFAULT_UPDATE_SETTINGS, { mode: "sometimes", channel: "http://updates.example.com/", releaseKey: "did:web:x", window: { start: "25:00", end: "5:00", extra: 1 }, timeZone: "Mars/Olympus", colour: "red" });
    assert.ok(!bad.ok);
    assert.deepEqual(bad.errors.map((e) => e.pointer).sort(), ["#/channel", "#/colour", "#/mode", "#/releaseKey", "#/timeZone", "#/window/end", "#/window/extra", "#/window/start"]);
    for (const channel of ["relative/path", "ftp://x/", "https://user:pw@x/", "https://x/?q=1", "", "x".repeat(3000)]) {
      assert.ok(!changeSettings(DEFAULT_UPDATE_SETTINGS, { channel }).ok, channel);
    }
  });

  it("asks for a channel and a key before ask or automatic", () => {
    const bad = changeSettings(DEFAULT_UPDATE_SETTINGS, { mode: "automatic" });
    assert.ok(!bad.ok);
    assert.equal(bad.errors[0]?.pointer, "#/mode");
    assert.ok(changeSettings(DEFAULT_UPDATE_SETTINGS, { mode: "off", window: { start: "01:30" } }).ok);
  });

  it("knows the night window in a time zone, across midnight, and start = end as the whole day", () => {
    const night = { window: { start: "02:00", end: "05:00" }, timeZone: "UTC" };
    assert.equal(inWindow(at("2026-11-28T03:10:00Z"), night), true);
    assert.equal(inWindow(at("2026-11-28T05:00:00Z"), night), false);
    assert.equal(inWindow(at("2026-11-28T01:59:00Z"), night), false);
    const wrap = { window: { start: "23:00", end: "01:00" }, timeZone: "UTC" };
    assert.equal(inWindow(at("2026-11-28T23:30:00Z"), wrap), true);
    assert.equal(inWindow(at("2026-11-28T00:30:00Z"), wrap), true);
    assert.equal(inWindow(at("2026-11-28T12:00:00Z"), wrap), false);
    // 03:10 UTC is 04:10 in Paris in winter: inside 04:00–05:00 there, not in UTC.
    assert.equal(inWindow(at("2026-11-28T03:10:00Z"), { window: { start: "04:00", end: "05:00" }, timeZone: "Europe/Paris" }), true);
    assert.equal(inWindow(at("2026-11-28T03:10:00Z"), { window: { start: "04:00", end: "05:00" }, timeZone: "UTC" }), false);
    assert.equal(inWindow(at("2026-11-28T12:00:00Z"), { window: { start: "03:00", end: "03:00" }, timeZone: "UTC" }), true);
    assert.equal(localMinutes(at("2026-11-28T00:00:00Z"), "UTC"), 0);
  });
});
