/**
 * @module The bodies of the task routes, checked for their types and turned into the arguments of
 * `std.tasks`'s actions. Every wrong field is collected and answered as one `400 malformed-body`
 * naming each (`errors: [{pointer: "#/field", detail}]`). Lengths, counts, ranges and every other
 * rule are the contract's: its refusal (`422`, with the receipt) is what a caller sees for those.
 *
 * `due` is RFC 3339: a date (`2026-12-01`), or a date-time with its offset
 * (`2026-12-01T09:30:00+01:00`, or `Z`; seconds may be left out); `null` for none. A date-time's
 * day is its day in the person's time zone. `repeat` is a keyword or an RRULE (repeat-rule.ts).
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { localDay } from "../time-zone.ts";
import { formatDate, parseDate } from "./calendar.ts";
import { CONTRACT_REPEAT, nextOccurrence, parseRepeat, type RepeatRule, ruleText } from "./repeat-rule.ts";

/** A due date as `std.tasks` keeps it: a day, and the instant when a time of day was given (else 0). */
export interface Due {
  readonly day: number;
  readonly at: number;
}

/** The arguments of `std.tasks`'s `Create`. */
export type CreateArgs = Record<string, unknown>;

/** A link to another record: `namespace/Aggregate/subject`. */
const LINK = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*\/[A-Z][A-Za-z0-9_]*\/[A-Za-z0-9._:-]+$/;

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const DAY_MS = 86_400_000;
const LAST_DAY = parseDate("9999-12-31") as number;

/** The field problems of one body; `done()` throws them as one `400`. */
export class BodyCheck {
  readonly #errors: { pointer: string; detail: string }[] = [];

  fail(field: string, detail: string): void {
    // A body's JSON limits bound how many there can be; a few say enough.
    if (this.#errors.length < 20) this.#errors.push({ pointer: `#/${field}`, detail });
  }

  text(value: unknown, field: string, required = false): string | undefined {
    if (value === undefined && !required) return undefined;
    if (typeof value === "string") return value;
    this.fail(field, value === undefined ? `${field} is required` : `${field} must be a string`);
    return undefined;
  }

  integer(value: unknown, field: string): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value === "number" && Number.isSafeInteger(value)) return value;
    this.fail(field, `${field} must be a whole number`);
    return undefined;
  }

  boolean(value: unknown, field: string): boolean | undefined {
    if (value === undefined) return undefined;
    if (typeof value === "boolean") return value;
    this.fail(field, `${field} must be true or false`);
    return undefined;
  }

  /** A list of strings; each element that is not one (or does not match `pattern`) is named. */
  texts(value: unknown, field: string, pattern?: { re: RegExp; what: string }): string[] | undefined {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.fail(field, `${field} must be a list of strings`);
      return undefined;
    }
    let ok = true;
    value.forEach((element, i) => {
      const wrong = typeof element !== "string" ? "a string" : pattern !== undefined && !pattern.re.test(element) ? pattern.what : null;
      if (wrong === null) return;
      ok = false;
      this.fail(`${field}/${i}`, `${field}[${i}] must be ${wrong}`);
    });
    return ok ? (value as string[]) : undefined;
  }

  /** A due date (null: none), or undefined when absent or wrong (then named). */
  due(value: unknown, field: string, zone: string): Due | null | undefined {
    if (value === undefined || value === null) return value;
    const parsed = typeof value === "string" ? parseDue(value, zone) : null;
    if (parsed === null) this.fail(field, `${field} must be an RFC 3339 date (2026-12-01) or date-time with an offset (2026-12-01T09:30:00+01:00), or null`);
    return parsed ?? undefined;
  }

  /** A repeat rule (null: none), or undefined when absent or wrong (then named, with the reason). */
  repeat(value: unknown, field: string): RepeatRule | null | undefined {
    if (value === undefined || value === null) return value;
    if (typeof value !== "string") {
      this.fail(field, `${field} must be a string: daily, weekly, monthly, yearly or an RRULE such as FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE`);
      return undefined;
    }
    const parsed = parseRepeat(value);
    if (parsed.ok) return parsed.value;
    this.fail(field, `${field}: ${parsed.error}`);
    return undefined;
  }

  /** Throws the `400` when any field was wrong. */
  done(): void {
    if (this.#errors.length === 0) return;
    throw new HttpProblem(problem(400, "malformed-body", this.#errors.map((e) => e.detail).join("; "), this.#errors));
  }
}

/** `text` as a due date in `zone`, or null when it is not one (or falls outside 1970–9999 for a date-time). */
export function parseDue(text: string, zone: string): Due | null {
  const date = parseDate(text);
  if (date !== null) return { day: date, at: 0 };
  const m = DATE_TIME.exec(text);
  if (m === null) return null;
  const day = parseDate(m[1] as string);
  const [h, min, s] = [Number(m[2]), Number(m[3]), Number(m[4] ?? 0)];
  if (day === null || h > 23 || min > 59 || s > 59) return null;
  let offset = 0;
  if (m[6] === undefined) {
    const [oh, om] = [Number(m[8]), Number(m[9])];
    if (oh > 23 || om > 59) return null;
    offset = (m[7] === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const ms = Math.trunc(Number(`0${m[5] ?? ""}`) * 1000);
  const at = day * DAY_MS + (h * 3600 + min * 60 + s) * 1000 + ms - offset;
  // The contract keeps 0 for "no time of day", so a date-time is after the epoch.
  if (at <= 0) return null;
  const local = localDay(at, zone);
  return local > LAST_DAY ? null : { day: local, at };
}

/** The arguments of `Create`/`Reschedule` that say a due date (or none). */
export function dueArgs(due: Due | null): { has_due: boolean; due_on: string; due_at: number } {
  return due === null ? { has_due: false, due_on: "1970-01-01", due_at: 0 } : { has_due: true, due_on: formatDate(due.day), due_at: due.at };
}

/** The arguments of `Create` that say a repeat rule (or none). */
export function repeatArgs(rule: RepeatRule | null): { repeat: string; interval: number; repeat_rule: string } {
  return rule === null ? { repeat: "None", interval: 0, repeat_rule: "" } : { repeat: CONTRACT_REPEAT[rule.freq], interval: rule.interval, repeat_rule: ruleText(rule) };
}

/**
 * `POST /api/tasks`'s body as `Create`'s arguments. A repeating task without `due` starts today
 * (in `zone`); a rule that never falls after its first due date is a `400`.
 */
export function createArgs(body: Record<string, unknown>, zone: string, today: number): CreateArgs {
  const check = new BodyCheck();
  const title = check.text(body.title, "title", true);
  const notes = check.text(body.notes, "notes");
  const given = check.due(body.due, "due", zone);
  const rule = check.repeat(body.repeat, "repeat");
  const priority = check.integer(body.priority, "priority");
  const tags = check.texts(body.tags, "tags");
  const links = check.texts(body.links, "links", { re: LINK, what: "a record's namespace/Aggregate/subject" });
  const due = given === undefined && rule !== undefined && rule !== null ? { day: today, at: 0 } : given;
  if (rule !== undefined && rule !== null && due !== undefined && due !== null && nextOccurrence(rule, due.day, due.day) === null) {
    check.fail("repeat", "repeat: this rule has no occurrence after the due date");
  }
  check.done();
  return {
    title,
    notes: notes ?? "",
    ...dueArgs(due ?? null),
    ...repeatArgs(rule ?? null),
    priority: priority ?? 0,
    tags: tags ?? [],
    links: links ?? [],
  };
}

/** `PATCH /api/tasks/{id}`'s body over the task's `current` state, as `Update`'s arguments. */
export function updateArgs(body: Record<string, unknown>, current: Record<string, unknown>): Record<string, unknown> {
  const check = new BodyCheck();
  const title = check.text(body.title, "title");
  const notes = check.text(body.notes, "notes");
  const priority = check.integer(body.priority, "priority");
  const tags = check.texts(body.tags, "tags");
  const links = check.texts(body.links, "links", { re: LINK, what: "a record's namespace/Aggregate/subject" });
  check.done();
  return {
    title: title ?? current.title,
    notes: notes ?? current.notes,
    priority: priority ?? current.priority,
    tags: tags ?? current.tags,
    links: links ?? current.links,
  };
}
