/**
 * @module The calculator notebook and the rates it converts currencies with:
 *
 * ```
 * POST /api/calc {lines: [string…]}  → {results: [{kind, value, text, unit?, rate?} | {value: null, text: ""} | {error}]}
 * GET  /api/calc/rates               → {base, items: [{code, rate, date}]}
 * PUT  /api/calc/rates {base?, rates: {CODE: number | "decimal" | null}, date?}
 *                                    → {base, items, receipts}
 * ```
 *
 * One result per line, in order (calc/notebook.ts says what a line may say, calc/line-result.ts
 * what a result holds). At most MAX_LINES lines of at most MAX_LINE_LENGTH characters each: more
 * is a `400` naming `#/lines` or `#/lines/N`. "today" and "now" are the person's wall-clock time
 * in their time zone (the account setting `timeZone`).
 *
 * The rates are records of `std.rates` (calc/rate-records.ts): `rate` is how many of the currency
 * one unit of the base buys. A PUT sets the rates it names (null removes one), on `date` (today
 * when absent); a new `base` starts a new table. Rates are positive decimals of at most 40
 * characters; codes are three capital letters.
 */
import type { Hono } from "hono";
import { formatDate, parseDate } from "../../../../contracts/dates.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import type { FieldError } from "./field-check.ts";
import { MAX_RATES, type RateTable, readRates, writeRates } from "../calc/rate-records.ts";
import { evaluateLines, MAX_LINE_LENGTH, MAX_LINES } from "../calc/notebook.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { jsonBody } from "../request-body.ts";
import { localDay, localTime } from "../time-zone.ts";

/** What the calculator's routes need. */
export interface CalcRouteDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  /** The clock of "today" and "now". */
  readonly now: () => number;
  /** The person's time zone. */
  readonly timeZone: () => string;
}

const CODE = /^[A-Z]{3}$/;
const DECIMAL = /^(?:\d{1,20}(?:\.\d{1,19})?|\.\d{1,19})$/;
const MAX_RATE = 1e15;

/** Mounts the calculator's routes. */
export function mountCalcRoutes(api: Hono<ApiEnv>, deps: CalcRouteDeps): void {
  const { reader, writer } = deps;

  api.post("/api/calc", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["lines"]);
    const lines = linesOf(body.lines);
    const rates = ratesForCalc(reader);
    const results = evaluateLines(lines, { now: localTime(deps.now(), deps.timeZone()), rates: rates.items });
    return c.json({ results });
  });

  api.get("/api/calc/rates", (c) => {
    sessionOf(c);
    return c.json(tableView(readRates(reader)));
  });

  api.put("/api/calc/rates", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["base", "rates", "date"]);
    const errors: FieldError[] = [];
    const base = body.base === undefined ? null : typeof body.base === "string" && CODE.test(body.base) ? body.base : null;
    if (body.base !== undefined && base === null) errors.push({ pointer: "#/base", detail: "base is a currency's ISO code: three capital letters" });
    const rates = rateMap(body.rates, errors);
    const date = body.date === undefined ? formatDate(localDay(deps.now(), deps.timeZone())) : typeof body.date === "string" && parseDate(body.date) !== null ? body.date : null;
    if (date === null) errors.push({ pointer: "#/date", detail: "date is a day: YYYY-MM-DD" });
    if (errors.length > 0 || date === null) throw new HttpProblem(problem(400, "malformed-body", errors.map((e) => e.detail).join("; "), errors));
    const { table, signed } = await writeRates(reader, writer, { base, rates, date });
    return c.json({ ...tableView(table), receipts: signed.map((s) => s.receipt) });
  });
}

/** The body's `lines`, or a `400` naming what is wrong with them. */
function linesOf(value: unknown): string[] {
  const bad = (pointer: string, detail: string) => new HttpProblem(problem(400, "malformed-body", detail, [{ pointer, detail }]));
  if (value === undefined) throw bad("#/lines", "lines is required: a list of strings");
  if (!Array.isArray(value)) throw bad("#/lines", "lines must be a list of strings");
  if (value.length > MAX_LINES) throw bad("#/lines", `at most ${MAX_LINES} lines`);
  const errors: FieldError[] = [];
  for (let i = 0; i < value.length && errors.length < 10; i++) {
    const line: unknown = value[i];
    if (typeof line !== "string") errors.push({ pointer: `#/lines/${i}`, detail: `lines[${i}] must be a string` });
    else if (line.length > MAX_LINE_LENGTH) errors.push({ pointer: `#/lines/${i}`, detail: `lines[${i}] is longer than ${MAX_LINE_LENGTH} characters` });
  }
  if (errors.length > 0) throw new HttpProblem(problem(400, "malformed-body", errors.map((e) => e.detail).join("; "), errors));
  return value as string[];
}

/** The rates the calculator converts with: none where `std.rates` is not installed (a node set up before it existed). */
function ratesForCalc(reader: PersonReader): RateTable {
  try {
    return readRates(reader);
  } catch (error) {
    if (error instanceof HttpProblem && error.problem.status === 404) return { base: null, items: [] };
    throw error;
  }
}

/** The body's `rates`: each code's decimal text, or null to remove it; wrong ones are named in `errors`. */
function rateMap(value: unknown, errors: FieldError[]): Map<string, string | null> {
  const rates = new Map<string, string | null>();
  if (value === undefined) return rates;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    errors.push({ pointer: "#/rates", detail: "rates is an object: {CODE: rate}" });
    return rates;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_RATES) {
    errors.push({ pointer: "#/rates", detail: `at most ${MAX_RATES} rates` });
    return rates;
  }
  for (const [code, rate] of entries) {
    if (errors.length >= 10) break;
    const pointer = `#/rates/${code.slice(0, 64).replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (!CODE.test(code)) {
      errors.push({ pointer, detail: `${JSON.stringify(code.slice(0, 64))} is not a currency's ISO code (three capital letters)` });
      continue;
    }
    const text = rateText(rate);
    if (text === undefined) errors.push({ pointer, detail: `${code}: a rate is a positive number below ${MAX_RATE} (or null to remove it)` });
    else rates.set(code, text);
  }
  return rates;
}

/** A rate as decimal text (null: remove it), or undefined when it is not one. */
function rateText(rate: unknown): string | null | undefined {
  if (rate === null) return null;
  if (typeof rate === "number") return Number.isFinite(rate) && rate > 0 && rate < MAX_RATE ? String(rate) : undefined;
  if (typeof rate === "string" && DECIMAL.test(rate) && Number(rate) > 0 && Number(rate) < MAX_RATE) return rate;
  return undefined;
}

function tableView(table: RateTable): { base: string | null; items: { code: string; rate: number; date: string }[] } {
  return { base: table.base, items: table.items.map((item) => ({ code: item.code, rate: Number(item.perBase), date: item.date })) };
}
