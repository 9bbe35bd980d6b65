/**
 * The calculator and the manual's images on a real `charter node`: every form a line may take
 * through `POST /api/calc` (exact decimals, percentages, units, dates, names across lines,
 * currencies at the rates set through `PUT /api/calc/rates`, each result in a currency naming its
 * rate's date), a bad line among good ones, bad bodies answered `400` naming the field, costly lines
 * answered quickly, random lines that never break the route nor its time budget; and
 * `GET /api/manual/assets/{file}`: the image's exact bytes and headers, traversal attempts `400`,
 * an unknown name `404`, no session `401`.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { ApiClient, createAccount, printedSetupCode } from "./helpers/api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";

const DIAGRAM = readFileSync(new URL("../docs/manual/assets/diagram.png", import.meta.url));

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

describe("the calculator and the manual's images", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";

  /** A GET whose path is sent exactly as written (no URL normalisation on the way). */
  function rawGet(path: string, headers: Record<string, string> = { cookie }): Promise<Raw> {
    const url = new URL(node.url);
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, method: "GET", headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  /** The text of each line's result, or its error marked `!`. */
  async function calc(lines: readonly string[]): Promise<string[]> {
    const answer = await api.call("POST", "/api/calc", { cookie, body: { lines } });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.results.length, lines.length);
    return answer.body.results.map((r: { error?: string; text?: string }) => (r.error !== undefined ? `! ${r.error}` : r.text));
  }

  before(async () => {
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
    ({ cookie } = await createAccount(api, printedSetupCode(node)));
    const settings = await api.call("PUT", "/api/account/settings", { cookie, body: { timeZone: "UTC" } });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    await waitFor("std.rates in the personal tenant", async () => ((await api.call("GET", "/api/calc/rates", { cookie })).status === 200 ? true : undefined), 20_000);
  });
  after(async () => {
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("evaluates every form a line may take, one result per line, names carried across lines", async () => {
    const before = new Date().toISOString().slice(0, 10);
    const answer = await api.call("POST", "/api/calc", {
      cookie,
      body: { lines: ["0.1 + 0.2", "20% of 85", "85 + 15%", "85 - 15%", "15%", "5 km + 300 m", "3 ft in cm", "5 kg to lb", "1 GiB to MB", "20 degC to degF", "2 hours + 30 min", "rent = 1200", "# a comment", "", "rent * 12", "today", "today + 3 weeks", "days until 2027-01-01", "2026-12-25 - 2026-11-25", "now", "5 km > 3 mi"] },
    });
    const afterDay = new Date().toISOString().slice(0, 10);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const r = answer.body.results;
    assert.deepEqual(r.slice(0, 5), [
      { kind: "number", value: "0.3", text: "0.3" },
      { kind: "number", value: "17", text: "17" },
      { kind: "number", value: "97.75", text: "97.75" },
      { kind: "number", value: "72.25", text: "72.25" },
      { kind: "number", value: "0.15", text: "0.15" },
    ]);
    assert.deepEqual(r[5], { kind: "quantity", value: "5.3", unit: "km", text: "5.3 km" });
    assert.deepEqual(r.slice(6, 11).map((x: { text: string }) => x.text), ["91.44 cm", "11.023113109244 lb", "1073.741824 MB", "68 °F", "2.5 hours"]);
    assert.deepEqual(r.slice(11, 15), [{ kind: "number", value: "1200", text: "1200" }, { value: null, text: "" }, { value: null, text: "" }, { kind: "number", value: "14400", text: "14400" }]);
    // Today in the person's zone (UTC here): the day the request was made, whichever side of midnight it fell.
    assert.equal(r[15].kind, "date");
    assert.ok([before, afterDay].includes(r[15].value), JSON.stringify(r[15]));
    const today = Date.parse(`${r[15].value}T00:00:00Z`);
    assert.equal(r[16].value, new Date(today + 21 * 86_400_000).toISOString().slice(0, 10));
    assert.deepEqual(r[17], { kind: "number", value: String(Math.round((Date.parse("2027-01-01T00:00:00Z") - today) / 86_400_000)), text: String(Math.round((Date.parse("2027-01-01T00:00:00Z") - today) / 86_400_000)) });
    assert.deepEqual(r[18], { kind: "quantity", value: "30", unit: "days", text: "30 days" });
    assert.match(r[19].value, new RegExp(`^${r[15].value}T\\d{2}:\\d{2}(?::\\d{2})?$`));
    assert.deepEqual(r[20], { kind: "boolean", value: true, text: "true" });
  });

  it("a line that fails answers its error; the lines around it still evaluate", async () => {
    assert.deepEqual(await calc(["2 * 3", "2 *", "x + 1", "zeros(1e9)", "7 - 2"]), ["6", "! Unexpected end of expression (char 4)", "! unknown name: x", "! zeros() is not available", "5"]);
  });

  it("converts currencies at the rates PUT on /api/calc/rates, each result naming its rate's date", async () => {
    assert.deepEqual((await api.call("GET", "/api/calc/rates", { cookie })).body, { base: null, items: [] });
    assert.deepEqual(await calc(["100 EUR in USD"]), ["! no rate for the currency EUR"]);
    const noBase = await api.call("PUT", "/api/calc/rates", { cookie, body: { rates: { USD: 1.085 } } });
    assert.equal(noBase.status, 400);
    assert.equal(noBase.body.errors[0].pointer, "#/base");

    const put = await api.call("PUT", "/api/calc/rates", { cookie, body: { base: "EUR", rates: { USD: 1.085, GBP: "0.85" }, date: "2026-11-20" } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual({ base: put.body.base, items: put.body.items }, {
      base: "EUR",
      items: [
        { code: "EUR", rate: 1, date: "2026-11-20" },
        { code: "GBP", rate: 0.85, date: "2026-11-20" },
        { code: "USD", rate: 1.085, date: "2026-11-20" },
      ],
    });
    // Each rate is a std.rates command signed as the person.
    assert.equal(put.body.receipts.length, 3);
    for (const receipt of put.body.receipts) assert.equal(receipt.namespace, "std.rates");
    const record = await api.call("GET", `/api/personal/std.rates/Rate/USD`, { cookie });
    assert.equal(record.status, 200, JSON.stringify(record.body));

    const answer = await api.call("POST", "/api/calc", { cookie, body: { lines: ["100 EUR in USD", "25 USD + 10 EUR", "price = 20 GBP", "price * 3 to EUR"] } });
    assert.deepEqual(answer.body.results, [
      { kind: "currency", value: "108.5", unit: "USD", text: "108.50 USD", rate: { date: "2026-11-20" } },
      { kind: "currency", value: "35.85", unit: "USD", text: "35.85 USD", rate: { date: "2026-11-20" } },
      { kind: "currency", value: "20", unit: "GBP", text: "20.00 GBP", rate: { date: "2026-11-20" } },
      { kind: "currency", value: "70.58823529411764705882352941176471", unit: "EUR", text: "70.59 EUR", rate: { date: "2026-11-20" } },
    ]);

    // A newer USD rate; the result names the older of the rates it used (EUR's).
    const newer = await api.call("PUT", "/api/calc/rates", { cookie, body: { rates: { USD: 1.1 }, date: "2026-11-22" } });
    assert.equal(newer.status, 200, JSON.stringify(newer.body));
    assert.deepEqual(newer.body.items.map((i: { code: string; rate: number; date: string }) => `${i.code} ${i.rate} ${i.date}`), ["EUR 1 2026-11-20", "GBP 0.85 2026-11-20", "USD 1.1 2026-11-22"]);
    const converted = await api.call("POST", "/api/calc", { cookie, body: { lines: ["100 EUR in USD", "5 USD * 2"] } });
    assert.deepEqual(converted.body.results, [
      { kind: "currency", value: "110", unit: "USD", text: "110.00 USD", rate: { date: "2026-11-20" } },
      { kind: "currency", value: "10", unit: "USD", text: "10.00 USD", rate: { date: "2026-11-22" } },
    ]);

    // null removes a rate; a new base starts a new table.
    await api.call("PUT", "/api/calc/rates", { cookie, body: { rates: { GBP: null } } });
    assert.deepEqual(await calc(["100 GBP"]), ["! no rate for the currency GBP"]);
    const rebased = await api.call("PUT", "/api/calc/rates", { cookie, body: { base: "USD", rates: { EUR: 0.5 }, date: "2026-11-23" } });
    assert.equal(rebased.status, 200, JSON.stringify(rebased.body));
    assert.deepEqual(rebased.body.items, [
      { code: "EUR", rate: 0.5, date: "2026-11-23" },
      { code: "USD", rate: 1, date: "2026-11-23" },
    ]);
    assert.deepEqual(await calc(["10 EUR in USD"]), ["20.00 USD"]);
    assert.deepEqual((await api.call("GET", "/api/calc/rates", { cookie })).body, { base: "USD", items: rebased.body.items });
  });

  it("bad bodies are 400 naming each field, and change nothing", async () => {
    const bad = async (path: string, method: string, body: unknown, pointers: string[]) => {
      const answer = await api.call(method, path, { cookie, body });
      assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.code, "malformed-body");
      assert.deepEqual(answer.body.errors.map((e: { pointer: string }) => e.pointer), pointers, JSON.stringify(body));
    };
    await bad("/api/calc", "POST", {}, ["#/lines"]);
    await bad("/api/calc", "POST", { lines: "1 + 1" }, ["#/lines"]);
    await bad("/api/calc", "POST", { lines: Array.from({ length: 501 }, () => "1") }, ["#/lines"]);
    await bad("/api/calc", "POST", { lines: ["1", 2, "x".repeat(1001), null] }, ["#/lines/1", "#/lines/2", "#/lines/3"]);
    await bad("/api/calc", "POST", { lines: [], extra: 1 }, ["#/extra"]);
    const table = (await api.call("GET", "/api/calc/rates", { cookie })).body;
    await bad("/api/calc/rates", "PUT", { rates: "USD=1" }, ["#/rates"]);
    await bad("/api/calc/rates", "PUT", { base: "eur", rates: { usd: 1, GBP: -1, CHF: "1,5", JPY: 1e20, XAU: true }, date: "2026-02-30" }, ["#/base", "#/rates/usd", "#/rates/GBP", "#/rates/CHF", "#/rates/JPY", "#/rates/XAU", "#/date"]);
    await bad("/api/calc/rates", "PUT", { rates: { USD: 2 } }, ["#/rates/USD"]);
    await bad("/api/calc/rates", "PUT", { rate: {} }, ["#/rate"]);
    assert.deepEqual((await api.call("GET", "/api/calc/rates", { cookie })).body, table, "nothing changed");
    const notJson = await fetch(`${node.url}/api/calc`, { method: "POST", headers: { cookie, origin: api.origin, "content-type": "application/json" }, body: "{lines: [" });
    assert.equal(notJson.status, 400);
  });

  it("costly lines answer within the budget: huge powers and factorials, deep nesting", async () => {
    const t0 = performance.now();
    const results = await calc(["9^9^9", "factorial(100000)", "(9^9^9)!", "(".repeat(499) + "1" + ")".repeat(499), "-".repeat(999) + "1", "1 + 1"]);
    const took = performance.now() - t0;
    assert.deepEqual(results, ["4.2812477317575e+369693099", "! factorial's argument is over 5,000", "! factorial's argument is over 5,000", "! brackets are nested more than 32 deep", "-1", "2"]);
    // Not a speed check (bench/ measures that): a line that escaped the budget would take minutes.
    assert.ok(took < 10_000, `took ${took} ms`);
    const many = await calc(Array.from({ length: 500 }, () => Array.from({ length: 60 }, (_, i) => `factorial(${4940 + i})`).join("+")));
    assert.ok(many.at(-1) === "! time budget spent", "lines past the budget say so");
  });

  it("fuzz: random lines never break the route, each request within the budget", async () => {
    const tokens = [..."0123456789+-*/^!%()[]{},.:?=#'\" ", "km", "USD", "EUR", "GBP", " in ", " to ", " of ", "today", "2026-11-21", "x = ", "x", "factorial(", "exp(", "zeros(", "evaluate(", "\u0000", "é"];
    const line = fc.array(fc.constantFrom(...tokens), { maxLength: 60 }).map((t) => t.join(""));
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 20 }), async (lines) => {
        const t0 = performance.now();
        const answer = await api.call("POST", "/api/calc", { cookie, body: { lines } });
        const took = performance.now() - t0;
        assert.equal(answer.status, 200, JSON.stringify({ lines, body: answer.body }));
        assert.equal(answer.body.results.length, lines.length);
        // Not a speed check: the 250 ms budget holds each request to milliseconds, and a line that
        // escaped it would take minutes; ten seconds is room for a loaded two-core machine.
        assert.ok(took < 10_000, `${JSON.stringify(lines)} took ${took} ms`);
      }),
      { numRuns: Number(process.env.CHARTER_FUZZ_RUNS ?? 40), seed: 20261121 },
    );
  });

  it("serves the manual's diagram: the file's bytes, its type, an ETag, a day's caching, nosniff and a sandbox", async () => {
    const answer = await rawGet("/api/manual/assets/diagram.png");
    assert.equal(answer.status, 200);
    assert.ok(answer.body.equals(DIAGRAM), "the PNG's bytes are the file's");
    assert.equal(answer.headers["content-type"], "image/png");
    assert.equal(answer.headers["cache-control"], "public, max-age=86400");
    assert.equal(answer.headers["x-content-type-options"], "nosniff");
    assert.match(String(answer.headers["content-security-policy"]), /\bsandbox\b/);
    const etag = String(answer.headers.etag);
    assert.match(etag, /^"[0-9a-f]{64}"$/);
    const again = await rawGet("/api/manual/assets/diagram.png", { cookie, "if-none-match": etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    const svg = await rawGet("/api/manual/assets/diagram.svg");
    assert.equal(svg.status, 200);
    assert.equal(svg.headers["content-type"], "image/svg+xml");
    assert.match(String(svg.headers["content-security-policy"]), /\bsandbox\b/);
  });

  it("refuses traversal with 400 and an unknown name with 404; without a session, 401", async () => {
    const traversals = [
      "/api/manual/assets/../../../package.json",
      "/api/manual/assets/..%2f..%2f..%2fpackage.json",
      "/api/manual/assets/%2e%2e/%2e%2e/%2e%2e/package.json",
      "/api/manual/assets/%2e%2e%2f%2e%2e%2fpackage.json",
      "/api/manual/assets/..%5c..%5cpackage.json",
      "/api/manual/assets/../../account",
      "/api/manual/assets/diagram.png%00.txt",
      "/api/manual/assets//etc/passwd",
      "/api/manual/assets/%2fetc%2fpasswd",
      "/api/manual/assets/%c0%ae%c0%ae%c0%afpackage.json",
      "/api/manual/assets/.diagram.png",
      "/api/manual/assets/..",
      `/api/manual/assets/${"a".repeat(300)}.png`,
      "/api/manual/assets/",
    ];
    for (const path of traversals) {
      const answer = await rawGet(path);
      assert.equal(answer.status, 400, `${path}: ${answer.status} ${answer.body.toString().slice(0, 200)}`);
      assert.equal(JSON.parse(answer.body.toString()).code, "bad-parameters", path);
    }
    const unknown = await rawGet("/api/manual/assets/nothing.png");
    assert.equal(unknown.status, 404);
    for (const path of ["/api/manual/assets/diagram.png", "/api/manual/assets/../../account", "/api/manual/assets/%2e%2e%2fx"]) {
      const signedOut = await rawGet(path, {});
      assert.equal(signedOut.status, 401, path);
    }
  });
});
