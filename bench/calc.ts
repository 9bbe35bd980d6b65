/**
 * @module Benchmark of the calculator notebook: 100 typical lines (arithmetic, percentages, units,
 * dates, names across lines, currencies, comments) evaluated
 *
 * (a) in-process through the route's evaluator (`evaluateLines`), p50 and p99 over many runs,
 *     against a baseline from the same run: plain `math.evaluate` of the same lines on an unlocked
 *     mathjs instance with the same currencies, after the notebook's rewrite (done outside the
 *     timing) — so the ratio is what the notebook layer adds: the allowlist check, the guarded
 *     functions, the deadline, presenting each value;
 * (b) over HTTP on a real `charter node` (`POST /api/calc`, rates read from `std.rates`), one
 *     request at a time, p50 and p99, against `GET /api/calc/rates` (the `/api` stack and the
 *     same declared query, no evaluation).
 *
 * It also prints how much the gateway's resident memory grows once mathjs is loaded (on the first
 * calculation, never at start). Target: 100 lines < 20 ms (p50), in-process and over HTTP. Run alone:
 * `node bench/calc.ts [runs, default 400]` under Node 24.
 */
import { createRequire } from "node:module";
import type { MathJsInstance } from "mathjs";
import { parseDate } from "../contracts/dates.ts";
import { ApiClient, createAccount, printedSetupCode } from "../test/helpers/api-client.ts";
import { cleanup, lockOf, startCharter, stopCharter, waitFor } from "../test/helpers/charter-process.ts";
import { rewriteLine } from "../workers/gateway/api/calc/line-rewrite.ts";
import { evaluateLines, type Rate } from "../workers/gateway/api/calc/notebook.ts";
import { percentile, report, rssMb } from "./lib.ts";

const RUNS = Number(process.argv[2] ?? "400");
const WARM_UP = 50;

const RATES: Rate[] = [
  { code: "EUR", perBase: "1", date: "2026-11-20" },
  { code: "USD", perBase: "1.085", date: "2026-11-20" },
  { code: "GBP", perBase: "0.85", date: "2026-11-20" },
  { code: "JPY", perBase: "162.3", date: "2026-11-20" },
];

/** Ten lines of each kind, ten times over with the numbers varied: 100 lines. */
function typicalLines(): string[] {
  const lines: string[] = [];
  for (let i = 1; i <= 10; i++) {
    lines.push(
      i === 1 ? "# budget" : `0.1 * ${i} + 0.2`,
      `rent${i} = ${1000 + i * 25}`,
      `rent${i} * 12 - 15%`,
      `${10 + i}% of ${80 + i}`,
      `${i} km + ${i * 150} m`,
      `${i * 3} ft in cm`,
      `${20 + i} degC to degF`,
      i % 2 === 0 ? `today + ${i} weeks` : `days until 2027-0${(i % 9) + 1}-01`,
      `${100 * i} EUR in USD`,
      `${25 * i} USD + ${10 * i} GBP`,
    );
  }
  return lines;
}

const lines = typicalLines();
const now = { day: parseDate("2026-11-21") as number, second: 36_000 };

/** The baseline: plain mathjs, the same rewrite done beforehand, the same currencies. */
function plainBaseline(): () => void {
  const bundle = createRequire(import.meta.url)("mathjs/lib/browser/math.js") as { create(config: object): MathJsInstance };
  const math = bundle.create({ number: "BigNumber", precision: 64 });
  const unit = math.Unit as unknown as { createUnitSingle(name: string, definition: object): void };
  unit.createUnitSingle("XXX", {});
  for (const r of RATES) unit.createUnitSingle(r.code, { definition: math.unit(math.bignumber(1).div(math.bignumber(r.perBase)), "XXX") });
  const prepared = lines.map((line) => {
    const r = rewriteLine(line.split("#")[0] as string, now);
    if (!r.ok) throw new Error(`bench: ${line}: ${r.error}`);
    return { expression: r.expression, dates: [...r.dates].map(([name, m]) => [name, math.unit(math.bignumber(m.day), "days")] as const) };
  });
  return () => {
    const scope = new Map<string, unknown>();
    for (const { expression, dates } of prepared) {
      if (expression.trim() === "") continue;
      for (const [name, value] of dates) scope.set(name, value);
      math.evaluate(expression, scope);
    }
  };
}

/** Runs `fn` RUNS times after a warm-up; answers the sorted times in ms. */
function timedRuns(fn: () => void): number[] {
  for (let i = 0; i < WARM_UP; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

const check = evaluateLines(lines, { now, rates: RATES });
const failed = check.flatMap((r, i) => ("error" in r ? [`${lines[i]}: ${r.error}`] : []));
if (failed.length > 0) throw new Error(`bench: lines that fail:\n${failed.join("\n")}`);

const baseline = plainBaseline();
// Alternating halves, so drift on a shared machine hits both alike.
const ours: number[] = [];
const plain: number[] = [];
for (let half = 0; half < 2; half++) {
  ours.push(...timedRuns(() => evaluateLines(lines, { now, rates: RATES, budgetMs: 10_000 })));
  plain.push(...timedRuns(baseline));
}
ours.sort((a, b) => a - b);
plain.sort((a, b) => a - b);
report("calc.in_process.p50_ms", percentile(ours, 50), "ms", { label: "plain math.evaluate after the rewrite", value: percentile(plain, 50), higherIsBetter: false, target: "< 20 ms for 100 lines" });
report("calc.in_process.p99_ms", percentile(ours, 99), "ms", { label: "plain math.evaluate after the rewrite", value: percentile(plain, 99), higherIsBetter: false });

const node = await startCharter({ edition: "node" });
try {
  const api = new ApiClient(node);
  const { cookie } = await createAccount(api, printedSetupCode(node));
  const headers = { cookie, origin: api.origin, "content-type": "application/json" };
  await waitFor("std.rates installed", async () => ((await api.call("GET", "/api/calc/rates", { cookie })).status === 200 ? true : undefined), 30_000);
  const rates = Object.fromEntries(RATES.filter((r) => r.code !== "EUR").map((r) => [r.code, r.perBase]));
  const put = await api.call("PUT", "/api/calc/rates", { cookie, body: { base: "EUR", rates, date: "2026-11-20" } });
  if (put.status !== 200) throw new Error(`bench: PUT /api/calc/rates answered ${put.status} ${JSON.stringify(put.body)}`);
  const body = JSON.stringify({ lines });
  // mathjs is loaded on the first calculation: what that costs the gateway's memory.
  const gateway = lockOf(node.dataDir).workers.gateway as number;
  const idleRss = rssMb(gateway);
  const timed = async (method: string, path: string, send?: string): Promise<number> => {
    const t = performance.now();
    const res = await fetch(`${node.url}${path}`, { method, headers, ...(send === undefined ? {} : { body: send }) });
    const text = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200 || text.includes('"error"')) throw new Error(`bench: ${method} ${path} answered ${res.status} ${text.slice(0, 500)}`);
    return ms;
  };
  for (let i = 0; i < WARM_UP; i++) {
    await timed("POST", "/api/calc", body);
    await timed("GET", "/api/calc/rates");
  }
  report("calc.gateway_rss_growth_mb", rssMb(gateway) - idleRss, "MB");
  report("calc.gateway_rss_idle_mb", idleRss, "MB");
  const calls: number[] = [];
  const reads: number[] = [];
  for (let round = 0; round < 10; round++) {
    for (let i = 0; i < RUNS / 10; i++) calls.push(await timed("POST", "/api/calc", body));
    for (let i = 0; i < RUNS / 10; i++) reads.push(await timed("GET", "/api/calc/rates"));
  }
  calls.sort((a, b) => a - b);
  reads.sort((a, b) => a - b);
  report("calc.http.p50_ms", percentile(calls, 50), "ms", { label: "GET /api/calc/rates", value: percentile(reads, 50), higherIsBetter: false, target: "< 20 ms for 100 lines" });
  report("calc.http.p99_ms", percentile(calls, 99), "ms", { label: "GET /api/calc/rates", value: percentile(reads, 99), higherIsBetter: false });
} finally {
  await stopCharter(node);
  cleanup(node.dataDir);
}
