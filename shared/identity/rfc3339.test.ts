import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parseRfc3339 } from "./rfc3339.ts";

describe("RFC 3339 timestamps", () => {
  it("parses UTC, offsets and fractions", () => {
    assert.equal(parseRfc3339("2026-11-21T10:00:00Z"), Date.UTC(2026, 10, 21, 10));
    assert.equal(parseRfc3339("2026-11-21t10:00:00z"), Date.UTC(2026, 10, 21, 10));
    assert.equal(parseRfc3339("2026-11-21T10:00:00.012Z"), Date.UTC(2026, 10, 21, 10, 0, 0, 12));
    assert.equal(parseRfc3339("2026-11-21T10:00:00.123456789Z"), Date.UTC(2026, 10, 21, 10, 0, 0, 123));
    assert.equal(parseRfc3339("2026-11-21T11:30:00+01:30"), Date.UTC(2026, 10, 21, 10));
    assert.equal(parseRfc3339("2026-11-21T08:00:00-02:00"), Date.UTC(2026, 10, 21, 10));
    assert.equal(parseRfc3339("2024-02-29T00:00:00Z"), Date.UTC(2024, 1, 29));
    assert.equal(parseRfc3339("2016-12-31T23:59:60Z"), Date.UTC(2017, 0, 1));
    assert.equal(parseRfc3339("0001-01-01T00:00:00Z"), -62135596800000);
  });

  it("agrees with toISOString for any instant", () => {
    fc.assert(fc.property(fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }), (date) => {
      assert.equal(parseRfc3339(date.toISOString()), date.getTime());
    }));
  });

  for (const text of [
    "",
    "2026-11-21",
    "2026-11-21T10:00Z",
    "2026-11-21 10:00:00Z",
    "2026-11-21T10:00:00",
    "2026-11-21T10:00:00.Z",
    "2026-11-21T10:00:00+0100",
    "2026-13-01T00:00:00Z",
    "2026-00-01T00:00:00Z",
    "2026-02-29T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-11-21T24:00:00Z",
    "2026-11-21T10:60:00Z",
    "2026-11-21T10:00:61Z",
    "2026-11-21T10:00:00+24:00",
    "+02026-11-21T10:00:00Z",
    "Sat, 21 Nov 2026 10:00:00 GMT",
    " 2026-11-21T10:00:00Z",
  ]) {
    it(`rejects ${JSON.stringify(text)}`, () => assert.equal(parseRfc3339(text), null));
  }
});
