/**
 * @module A line's value as `/api/calc` answers it. `value` is JSON that loses nothing: a decimal
 * is a string of up to 34 significant digits (`"0.3"`, `"1.8446744073709551616e+19"`), a date is
 * its ISO text, a comparison a boolean. `text` is what a notebook shows: at most 14 significant
 * digits, whole numbers below 1e21 in full, a unit after its number (`5.3 km`, `68 °F`), an amount
 * of money with two decimals (`108.50 USD`). A result in a currency carries `rate: {date}`, the
 * day of the oldest rate the line used, so a stale rate shows.
 */
import type { BigNumber, Unit } from "mathjs";
import { formatDate } from "../../../../contracts/dates.ts";
import type { CalcMath } from "./calc-math.ts";
import type { Moment } from "./line-rewrite.ts";

/** One line's answer. */
export type LineResult =
  | { readonly value: null; readonly text: "" }
  | { readonly kind: "number"; readonly value: string; readonly text: string }
  | { readonly kind: "quantity"; readonly value: string; readonly unit: string; readonly text: string }
  | { readonly kind: "currency"; readonly value: string; readonly unit: string; readonly text: string; readonly rate: { readonly date: string } }
  | { readonly kind: "date"; readonly value: string; readonly text: string }
  | { readonly kind: "boolean"; readonly value: boolean; readonly text: string }
  | { readonly kind: "complex"; readonly value: string; readonly text: string }
  | { readonly error: string };

/** What presenting a value needs beyond it. */
export interface Presentation {
  readonly date: boolean;
  readonly asPercent: boolean;
  /** The currencies the line used, and each one's rate date. */
  readonly currencies: ReadonlySet<string>;
  readonly rateDates: ReadonlyMap<string, string>;
}

/** The first and last day a date may be (0000-01-01, 9999-12-31). */
const FIRST_DAY = -719_528;
const LAST_DAY = 2_932_896;
const SIGNIFICANT = 34;
const SHOWN = 14;

/** `value`, a line's value, as the answer says it; an error when it is not a value a notebook shows. */
export function present(cm: CalcMath, value: unknown, p: Presentation): LineResult {
  if (p.date) return dateResult(cm, value);
  const type = cm.math.typeOf(value);
  switch (type) {
    case "BigNumber":
    case "number": {
      const n = decimalOf(cm, value);
      return { kind: "number", value: valueText(n), text: p.asPercent ? `${numberText(n)}%` : numberText(n) };
    }
    case "boolean":
      return { kind: "boolean", value: value as boolean, text: String(value) };
    case "Unit":
      return unitResult(cm, value as Unit, p);
    case "Complex": {
      const text = cm.math.format(value, { precision: SHOWN });
      return { kind: "complex", value: text, text };
    }
    default:
      return { error: "the line has no value a notebook shows" };
  }
}

function unitResult(cm: CalcMath, unit: Unit, p: Presentation): LineResult {
  const amount = unit.value === null ? cm.decimal(1) : decimalOf(cm, unit.toNumeric());
  const units = (unit as unknown as { units: { unit: { name: string }; prefix: { name: string }; power: number }[] }).units;
  const only = units.length === 1 ? units[0] : undefined;
  if (only !== undefined && only.power === 1 && only.prefix.name === "" && p.rateDates.has(only.unit.name)) {
    const code = only.unit.name;
    const dates = [...p.currencies, code].flatMap((c) => p.rateDates.get(c) ?? []).sort();
    return { kind: "currency", value: valueText(amount), unit: code, text: `${amount.isFinite() ? amount.toFixed(2) : numberText(amount)} ${code}`, rate: { date: dates[0] as string } };
  }
  const name = unit.formatUnits();
  return { kind: "quantity", value: valueText(amount), unit: name, text: `${numberText(amount)} ${name.replace(/\bdeg([CFR])\b/g, "°$1")}` };
}

/** The wall-clock moment a date's value (a unit of time since 1970-01-01) stands for, to the second; null outside 0000–9999. */
export function momentOf(cm: CalcMath, value: unknown): Moment | null {
  if (cm.math.typeOf(value) !== "Unit") return null;
  const days = decimalOf(cm, (value as Unit).toNumeric("days"));
  const seconds = days.times(86_400).toDecimalPlaces(0);
  if (!seconds.isFinite() || seconds.lt(FIRST_DAY * 86_400) || seconds.gt(LAST_DAY * 86_400 + 86_399)) return null;
  const total = seconds.toNumber();
  const day = Math.floor(total / 86_400);
  return { day, second: total - day * 86_400 };
}

function dateResult(cm: CalcMath, value: unknown): LineResult {
  if (cm.math.typeOf(value) !== "Unit") return { error: "the line has no value a notebook shows" };
  const moment = momentOf(cm, value);
  if (moment === null) return { error: "the date is outside the years 0000–9999" };
  const { day, second } = moment;
  if (second === 0) return { kind: "date", value: formatDate(day), text: formatDate(day) };
  const two = (n: number) => String(n).padStart(2, "0");
  const time = `${two(Math.floor(second / 3600))}:${two(Math.floor(second / 60) % 60)}${second % 60 === 0 ? "" : `:${two(second % 60)}`}`;
  return { kind: "date", value: `${formatDate(day)}T${time}`, text: `${formatDate(day)} ${time}` };
}

function decimalOf(cm: CalcMath, value: unknown): BigNumber {
  return typeof value === "number" ? cm.decimal(value) : (value as BigNumber);
}

/** The value's JSON: up to 34 significant digits, so a 64-digit working value's last digits do not show as noise. */
function valueText(n: BigNumber): string {
  return n.isFinite() ? n.toSignificantDigits(SIGNIFICANT).toString() : n.toString();
}

/** What a notebook shows: whole numbers below 1e21 in full, else 14 significant digits. */
export function numberText(n: BigNumber): string {
  if (!n.isFinite()) return n.toString();
  if (n.isInteger() && n.abs().lt(1e21)) return n.toFixed(0);
  return n.toSignificantDigits(SHOWN).toString();
}
