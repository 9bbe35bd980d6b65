import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseDate } from "../../../contracts/dates.ts";
import { canonicalTimeZone, instantOf, localDay, localTime, machineTimeZone, offsetAt, zonedText } from "./time-zone.ts";

const day = (text: string) => parseDate(text) ?? assert.fail(text);
const at = (iso: string) => Date.parse(iso);

describe("time zones", () => {
  it("accepts IANA names Intl knows, in their canonical spelling, and nothing else", () => {
    assert.equal(canonicalTimeZone("Europe/Paris"), "Europe/Paris");
    assert.equal(canonicalTimeZone("europe/paris"), "Europe/Paris");
    assert.equal(canonicalTimeZone("UTC"), "UTC");
    assert.equal(canonicalTimeZone("US/Pacific"), "America/Los_Angeles", "an alias, as Intl spells it");
    assert.notEqual(canonicalTimeZone("America/Argentina/Buenos_Aires"), null);
    for (const bad of ["Mars/Olympus_Mons", "+01:00", "", "Europe/../Paris", "x".repeat(65), 3, null]) assert.equal(canonicalTimeZone(bad), null, String(bad));
    assert.equal(canonicalTimeZone(machineTimeZone()), machineTimeZone());
  });

  it("finds the local day and time of an instant", () => {
    assert.deepEqual(localTime(at("2026-12-01T23:30:00Z"), "Europe/Paris"), { day: day("2026-12-02"), second: 30 * 60 });
    assert.equal(localDay(at("2026-12-01T23:30:00Z"), "America/New_York"), day("2026-12-01"));
    assert.equal(localDay(at("2026-12-01T10:30:00Z"), "Pacific/Kiritimati"), day("2026-12-02"), "UTC+14");
    assert.equal(offsetAt(at("2026-07-01T00:00:00Z"), "Europe/Paris"), 2 * 3600_000);
    assert.equal(offsetAt(at("2026-01-01T00:00:00Z"), "Asia/Kolkata"), 5.5 * 3600_000);
  });

  it("finds the instant of a wall time: a gap moves forward, an overlap takes the earlier", () => {
    assert.equal(instantOf({ day: day("2026-12-01"), second: 9.5 * 3600 }, "Europe/Paris"), at("2026-12-01T09:30:00+01:00"));
    assert.equal(instantOf({ day: day("2026-07-01"), second: 9.5 * 3600 }, "Europe/Paris"), at("2026-07-01T09:30:00+02:00"));
    // 2026-03-29 02:30 does not exist in Paris (02:00 → 03:00); 2026-10-25 02:30 happens twice.
    assert.equal(instantOf({ day: day("2026-03-29"), second: 2.5 * 3600 }, "Europe/Paris"), at("2026-03-29T03:30:00+02:00"));
    assert.equal(instantOf({ day: day("2026-10-25"), second: 2.5 * 3600 }, "Europe/Paris"), at("2026-10-25T02:30:00+02:00"));
    assert.equal(instantOf({ day: day("2026-03-08"), second: 2.5 * 3600 }, "America/New_York"), at("2026-03-08T03:30:00-04:00"));
    assert.equal(instantOf({ day: day("2026-12-01"), second: 0 }, "UTC"), at("2026-12-01T00:00:00Z"));
  });

  it("writes RFC 3339 with the zone's offset", () => {
    assert.equal(zonedText(at("2026-12-01T08:30:00Z"), "Europe/Paris"), "2026-12-01T09:30:00+01:00");
    assert.equal(zonedText(at("2026-12-01T08:30:00.250Z"), "America/St_Johns"), "2026-12-01T05:00:00.250-03:30");
    assert.equal(zonedText(at("2026-12-01T08:30:00Z"), "UTC"), "2026-12-01T08:30:00+00:00");
  });
});
