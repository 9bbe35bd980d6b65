import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AgendaRows, buildAgenda } from "./agenda.ts";
import { parseDate } from "./calendar.ts";
import { parseDue } from "./task-input.ts";
import type { TaskRow } from "./task-view.ts";

const day = (text: string) => parseDate(text) ?? assert.fail(text);

function row(id: string, fields: Partial<TaskRow> = {}): TaskRow {
  return {
    id,
    title: id,
    notes: "",
    status: "Open",
    has_due: true,
    due_on: "2026-03-10",
    due_at: 0,
    repeats: false,
    repeat_rule: "",
    repeat_from: fields.due_on ?? "2026-03-10",
    priority: 0,
    tags: [],
    links: [],
    created_by: null,
    created_at: 1,
    completions: 0,
    last_completed_on: "1970-01-01",
    completed_at: 0,
    ...fields,
  };
}

const rows = (r: Partial<AgendaRows>): AgendaRows => ({ due: [], overdue: [], repeating: [], truncated: false, ...r });
const range = { from: day("2026-03-09"), to: day("2026-03-15"), today: day("2026-03-11") };
const ids = (agenda: ReturnType<typeof buildAgenda>, date: string) => agenda.days.find((d) => d.date === date)?.items.map((i) => `${i.id}${i.occurrence ? "*" : ""}`);

describe("buildAgenda", () => {
  it("lists each task once: on its day when the range has it, else overdue when before today", () => {
    const past = row("past", { due_on: "2026-03-09" });
    const older = row("older", { due_on: "2026-03-01" });
    const agenda = buildAgenda(rows({ due: [past, row("later", { due_on: "2026-03-16" })], overdue: [older, past] }), range, "UTC", 100);
    assert.deepEqual(ids(agenda, "2026-03-09"), ["past"]);
    assert.deepEqual(agenda.overdue.map((t) => t.id), ["older"]);
    assert.equal(agenda.days.length, 7);
    assert.ok(agenda.days.every((d) => !d.items.some((i) => i.id === "later")), "the day after the range is read, not listed");
  });

  it("orders a day: tasks without a time, then by time; priority before id", () => {
    const at = (iso: string) => Date.parse(iso);
    const agenda = buildAgenda(
      rows({
        due: [
          row("b-timed-late", { due_at: at("2026-03-12T18:00:00Z"), due_on: "2026-03-12" }),
          row("a-timed-early", { due_at: at("2026-03-12T08:00:00Z"), due_on: "2026-03-12" }),
          row("c-plain", { due_on: "2026-03-12" }),
          row("d-urgent", { due_on: "2026-03-12", priority: 3 }),
        ],
      }),
      range,
      "UTC",
      100,
    );
    assert.deepEqual(ids(agenda, "2026-03-12"), ["d-urgent", "c-plain", "a-timed-early", "b-timed-late"]);
  });

  it("adds a repeating task's occurrences after both its due date and today, and stops at maxItems", () => {
    const daily = row("daily", { due_on: "2026-03-05", repeat_from: "2026-03-05", repeats: true, repeat_rule: "FREQ=DAILY;INTERVAL=1" });
    const agenda = buildAgenda(rows({ overdue: [daily], repeating: [daily] }), range, "UTC", 100);
    assert.deepEqual(agenda.overdue.map((t) => t.id), ["daily"]);
    assert.deepEqual(
      agenda.days.map((d) => d.items.length),
      [0, 0, 0, 1, 1, 1, 1],
      "from the day after today",
    );
    assert.equal(agenda.days[3]?.items[0]?.due, "2026-03-12");
    assert.equal(agenda.truncated, false);
    const cut = buildAgenda(rows({ repeating: [daily] }), range, "UTC", 2);
    assert.equal(cut.days.flatMap((d) => d.items).length, 2);
    assert.equal(cut.truncated, true);
    assert.equal(buildAgenda(rows({ truncated: true }), range, "UTC", 10).truncated, true, "a query's own limit");
  });

  it("keeps a timed occurrence's wall time across a change of daylight saving time", () => {
    const standup = row("standup", {
      due_on: "2026-03-27",
      due_at: Date.parse("2026-03-27T09:00:00+01:00"),
      repeat_from: "2026-03-27",
      repeats: true,
      repeat_rule: "FREQ=DAILY;INTERVAL=1",
    });
    const agenda = buildAgenda(rows({ due: [standup], repeating: [standup] }), { from: day("2026-03-27"), to: day("2026-03-30"), today: day("2026-03-27") }, "Europe/Paris", 100);
    assert.deepEqual(
      agenda.days.map((d) => d.items.map((i) => i.due)),
      [["2026-03-27T09:00:00+01:00"], ["2026-03-28T09:00:00+01:00"], ["2026-03-29T09:00:00+02:00"], ["2026-03-30T09:00:00+02:00"]],
    );
  });
});

describe("parseDue", () => {
  it("reads RFC 3339 dates and date-times with an offset; a date-time's day is the zone's", () => {
    assert.deepEqual(parseDue("2026-12-01", "Asia/Tokyo"), { day: day("2026-12-01"), at: 0 });
    assert.deepEqual(parseDue("2026-12-01T20:30:00-05:00", "Asia/Tokyo"), { day: day("2026-12-02"), at: Date.parse("2026-12-02T01:30:00Z") });
    assert.deepEqual(parseDue("2026-12-01t09:30z", "UTC"), { day: day("2026-12-01"), at: Date.parse("2026-12-01T09:30:00Z") });
    assert.equal(parseDue("2026-12-01T09:30:00.5+00:00", "UTC")?.at, Date.parse("2026-12-01T09:30:00.500Z"));
    for (const bad of ["2026-02-29", "2026-12-01T24:00:00Z", "2026-12-01T09:30:00", "2026-12-01T09:30:00+25:00", "1969-12-31T23:00:00Z", "tomorrow", "2026-12-1"]) {
      assert.equal(parseDue(bad, "UTC"), null, bad);
    }
  });
});
