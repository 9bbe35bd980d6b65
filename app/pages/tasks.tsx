/**
 * @module Tasks and the agenda: a new task (`POST /api/tasks`: title, notes, due date and time,
 * repeat, priority, tags, links), the agenda of the days ahead (`GET /api/agenda`: overdue, then
 * each day with what is due and the coming occurrences of repeating tasks), and the person's tasks
 * (`GET /api/tasks`, open, done or all, a page at a time) to complete, reopen, reschedule or edit
 * (`PATCH /api/tasks/{id}`: title, notes, priority, tags, links; only what was changed is sent). What
 * the node refuses is shown with its reason. A task changed elsewhere (a `std.tasks` commit on the
 * live events) reloads the agenda and the list.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Page, withQuery } from "../lib/api.ts";
import { useBusy, useFrames, useLoad } from "../lib/hooks.ts";
import { Button, Empty, ErrorNote, Field, PageHead, Status } from "../components/ui.tsx";
import { addDays, clock, DueFields, DueLabel, dueParts, dueText, longDay } from "../components/tasks-due.tsx";
import "./tasks.css";

/** A task as `/api/tasks` answers it. */
interface Task {
  readonly id: string;
  readonly title: string;
  readonly notes: string;
  readonly status: "open" | "done";
  readonly due: string | null;
  readonly repeat: string | null;
  readonly priority: number;
  readonly tags: readonly string[];
  readonly links: readonly string[];
  readonly completions: number;
  readonly lastCompletedOn: string | null;
  readonly completedAt: string | null;
  readonly createdBy: string | null;
  readonly createdAt: string | null;
}

/** An agenda entry. */
interface AgendaItem {
  readonly id: string;
  readonly title: string;
  readonly due: string | null;
  readonly repeat: string | null;
  readonly priority: number;
  readonly tags: readonly string[];
  readonly occurrence: boolean;
}

interface Agenda {
  readonly timeZone: string;
  readonly from: string;
  readonly to: string;
  readonly today: string;
  readonly days: readonly { readonly date: string; readonly items: readonly AgendaItem[] }[];
  readonly overdue: readonly AgendaItem[];
  readonly truncated: boolean;
}

type StatusFilter = "open" | "done" | "all";

/** Tasks per page of the list. */
const PAGE = 50;

/** The repeat keywords the route takes; anything else is an RRULE typed in. */
const REPEATS = [
  { value: "", label: "Does not repeat" },
  { value: "daily", label: "Every day" },
  { value: "weekly", label: "Every week" },
  { value: "monthly", label: "Every month" },
  { value: "yearly", label: "Every year" },
  { value: "rule", label: "Another rule (RRULE)…" },
];

/** `std.tasks`'s priorities, 0 to 3. */
const PRIORITIES = ["None", "Low", "Medium", "High"];

/** The task's priority, chosen by name (the contract keeps it as 0–3). */
function PriorityField(props: { value: number; onChange: (priority: number) => void }) {
  return (
    <Field label="Priority">
      {(id) => (
        <select id={id} value={String(props.value)} onChange={(e) => props.onChange(Number(e.currentTarget.value))}>
          {PRIORITIES.map((label, n) => (
            <option key={label} value={String(n)}>
              {label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export default function TasksPage() {
  const [agendaFrom, setAgendaFrom] = useState("");
  const [agendaDays, setAgendaDays] = useState(7);
  const agenda = useLoad(() => api<Agenda>("GET", withQuery("/api/agenda", agendaFrom === "" ? {} : { from: agendaFrom, to: addDays(agendaFrom, agendaDays - 1) })), [agendaFrom, agendaDays]);

  const [status, setStatus] = useState<StatusFilter>("open");
  const [pages, setPages] = useState(1);
  const list = useLoad(async () => {
    const items: Task[] = [];
    let next: string | null = null;
    // Every page shown so far is read again, so a reload keeps what was listed.
    for (let i = 0; i < pages; i++) {
      const page: Page<Task> = await api<Page<Task>>("GET", withQuery("/api/tasks", { status, limit: PAGE, after: next }));
      items.push(...page.items);
      next = page.next;
      if (next === null) break;
    }
    return { items, next, status };
  }, [status, pages]);

  const changed = () => {
    list.reload();
    agenda.reload();
  };
  useFrames(changed, (frame) => frame.kind === "commit" && frame["namespace"] === "std.tasks");

  const zone = agenda.data?.timeZone ?? null;
  return (
    <>
      <PageHead title="Tasks">
        <p>What you have to do, and when. The assistant sees and changes the same tasks.</p>
      </PageHead>
      <NewTask zone={zone} today={agenda.data?.today ?? ""} onCreated={changed} />
      <section aria-labelledby="agenda-title">
        <h2 id="agenda-title">Agenda</h2>
        <div class="inline-form tasks-agenda-range">
          <Field label="First day">
            {(id, describedBy) => <input id={id} type="date" aria-describedby={describedBy} value={agendaFrom} onInput={(e) => setAgendaFrom(e.currentTarget.value)} />}
          </Field>
          <Field label="Days">
            {(id) => (
              <select
                id={id}
                value={String(agendaDays)}
                onChange={(e) => {
                  const days = Number(e.currentTarget.value);
                  setAgendaDays(days);
                  // A length is counted from a first day: today's, when none was chosen.
                  if (agendaFrom === "" && days !== 7 && agenda.data !== null) setAgendaFrom(agenda.data.today);
                }}
              >
                {[7, 14, 31, 92].map((n) => (
                  <option key={n} value={String(n)}>
                    {n} days
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <ErrorNote error={agenda.error} />
        {agenda.data === null ? null : <AgendaView agenda={agenda.data} />}
      </section>
      <section aria-labelledby="list-title">
        <h2 id="list-title">Your tasks</h2>
        <div class="field inline">
          <label for="tasks-status">Show</label>
          <select
            id="tasks-status"
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value as StatusFilter);
              setPages(1);
            }}
          >
            <option value="open">Open tasks</option>
            <option value="done">Done tasks</option>
            <option value="all">All tasks</option>
          </select>
        </div>
        <ErrorNote error={list.error} />
        {list.data === null ? null : list.data.items.length === 0 ? (
          <Empty>{list.data.status === "done" ? "Nothing done yet." : list.data.status === "open" ? "Nothing open: all done." : "No tasks yet."}</Empty>
        ) : (
          <ul class="cards tasks-list" aria-label="Tasks" aria-busy={list.loading ? "true" : "false"}>
            {list.data.items.map((task) => (
              <TaskCard
                key={task.id}
                task={task}
                zone={zone}
                onChanged={changed}
                onEdited={(edited) => {
                  // The answer shows at once; the reload after it confirms it (and moves the agenda).
                  if (list.data !== null) list.set({ ...list.data, items: list.data.items.map((t) => (t.id === edited.id ? edited : t)) });
                  changed();
                }}
              />
            ))}
          </ul>
        )}
        {list.data?.next == null ? null : (
          <Button busy={list.loading} onClick={() => setPages(pages + 1)}>
            Show more tasks
          </Button>
        )}
      </section>
    </>
  );
}

/** Words of a comma-separated field: trimmed, the empty ones left out. */
function words(text: string): string[] {
  return text
    .split(",")
    .map((word) => word.trim())
    .filter((word) => word !== "");
}

function NewTask(props: { zone: string | null; today: string; onCreated: () => void }) {
  const [title, setTitle] = useState("");
  const [notes, setNotes] = useState("");
  const [date, setDate] = useState("");
  const [time, setTime] = useState("");
  const [repeat, setRepeat] = useState("");
  const [rule, setRule] = useState("");
  const [priority, setPriority] = useState(0);
  const [tags, setTags] = useState("");
  const [links, setLinks] = useState("");
  const [made, setMade] = useState<string | null>(null);
  const [more, setMore] = useState(false);
  const [run, busy, error] = useBusy();

  const submit = (event: Event) => {
    event.preventDefault();
    setMade(null);
    void run(async () => {
      const due = dueText(date, time, props.zone);
      const repeatText = repeat === "rule" ? rule.trim() : repeat;
      const body = {
        title,
        ...(notes === "" ? {} : { notes }),
        ...(due === null ? {} : { due }),
        ...(repeatText === "" ? {} : { repeat: repeatText }),
        ...(priority === 0 ? {} : { priority }),
        ...(tags.trim() === "" ? {} : { tags: words(tags) }),
        ...(links.trim() === "" ? {} : { links: words(links) }),
      };
      const task = await api<Task>("POST", "/api/tasks", body);
      setMade(task.title);
      setTitle("");
      setNotes("");
      setDate("");
      setTime("");
      setRepeat("");
      setRule("");
      setPriority(0);
      setTags("");
      setLinks("");
      props.onCreated();
    });
  };

  return (
    <section aria-labelledby="new-task-title">
      <h2 id="new-task-title">New task</h2>
      <form class="stack tasks-form" onSubmit={submit}>
        <Field label="Title" hint="Up to 200 characters.">
          {(id, describedBy) => <input id={id} maxLength={200} aria-describedby={describedBy} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />}
        </Field>
        <DueFields
          date={date}
          time={time}
          zone={props.zone}
          onDate={setDate}
          onTime={setTime}
          dateHint={props.today === "" ? "Optional." : `Optional. Today is ${longDay(props.today)}.`}
        />
        <details class="tasks-more" open={more} onToggle={(e) => setMore(e.currentTarget.open)}>
          <summary>Repeat, priority, notes, tags and links</summary>
          <div class="stack">
            <div class="tasks-row">
              <Field label="Repeats" hint={repeat === "" ? undefined : "A repeating task without a date starts today."}>
                {(id, describedBy) => (
                  <select id={id} aria-describedby={describedBy} value={repeat} onChange={(e) => setRepeat(e.currentTarget.value)}>
                    {REPEATS.map((r) => (
                      <option key={r.value} value={r.value}>
                        {r.label}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              {repeat !== "rule" ? null : (
                <Field label="Repeat rule" hint="e.g. FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE">
                  {(id, describedBy) => <input id={id} maxLength={200} aria-describedby={describedBy} value={rule} spellcheck={false} onInput={(e) => setRule(e.currentTarget.value)} />}
                </Field>
              )}
              <PriorityField value={priority} onChange={setPriority} />
            </div>
            <Field label="Notes" hint="Optional, up to 4,000 characters.">
              {(id, describedBy) => <textarea id={id} maxLength={4000} aria-describedby={describedBy} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />}
            </Field>
            <div class="tasks-row">
              <Field label="Tags" hint="Separated by commas: up to 20, each up to 40 characters.">
                {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}
              </Field>
              <Field label="Links to records" hint="Separated by commas, each namespace/Aggregate/subject (e.g. std.invoices/Invoice/inv-7).">
                {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={links} spellcheck={false} onInput={(e) => setLinks(e.currentTarget.value)} />}
              </Field>
            </div>
          </div>
        </details>
        <ErrorNote error={error} />
        {made === null ? null : <Status>Added “{made}”.</Status>}
        <div class="buttons">
          <Button type="submit" kind="primary" busy={busy}>
            Add the task
          </Button>
        </div>
      </form>
    </section>
  );
}

function AgendaView(props: { agenda: Agenda }) {
  const { agenda } = props;
  return (
    <div class="tasks-agenda" aria-label={`Agenda from ${longDay(agenda.from)} to ${longDay(agenda.to)}`} role="region">
      <p class="muted">
        Times in {agenda.timeZone}. {longDay(agenda.from)} to {longDay(agenda.to)}.
      </p>
      {agenda.truncated ? <p class="error">Some entries are left out: choose fewer days.</p> : null}
      {agenda.overdue.length === 0 ? null : (
        <div class="tasks-day overdue">
          <h3>Overdue</h3>
          <AgendaItems items={agenda.overdue} withDate />
        </div>
      )}
      <ol class="tasks-days">
        {agenda.days.map((day) => (
          <li key={day.date} data-date={day.date} class={`tasks-day${day.date === agenda.today ? " today" : ""}${day.items.length === 0 ? " quiet" : ""}`}>
            <h3>
              {longDay(day.date)}
              {day.date === agenda.today ? <span class="badge">today</span> : null}
            </h3>
            {day.items.length === 0 ? <p class="muted">Nothing due.</p> : <AgendaItems items={day.items} />}
          </li>
        ))}
      </ol>
    </div>
  );
}

function AgendaItems(props: { items: readonly AgendaItem[]; withDate?: boolean }) {
  return (
    <ul class="tasks-entries">
      {props.items.map((item) => {
        const { time } = dueParts(item.due);
        return (
          <li key={`${item.id}:${item.due ?? ""}`} class={item.occurrence ? "occurrence" : ""}>
            {props.withDate ? (
              <span class="tasks-when">
                <DueLabel due={item.due} />
              </span>
            ) : time === "" ? null : (
              <time class="tasks-when" dateTime={item.due ?? undefined}>
                {clock(time)}
              </time>
            )}
            <span class="tasks-entry-title">{item.title}</span>
            {item.priority > 0 ? <span class={`badge priority-${item.priority}`}>{PRIORITIES[item.priority] ?? item.priority}</span> : null}
            {item.occurrence ? <span class="badge">next time</span> : item.repeat !== null ? <span class="badge">repeats</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

function TaskCard(props: { task: Task; zone: string | null; onChanged: () => void; onEdited: (task: Task) => void }) {
  const { task } = props;
  const [run, busy, error] = useBusy();
  const [moving, setMoving] = useState(false);
  const [editing, setEditing] = useState(false);
  const card = useRef<HTMLLIElement>(null);
  // When the edit form closes, the focus goes back to the Edit button (once it is rendered again).
  const refocus = useRef(false);
  useEffect(() => {
    if (editing || !refocus.current) return;
    refocus.current = false;
    card.current?.querySelector<HTMLButtonElement>(".tasks-edit-button")?.focus();
  }, [editing]);
  const closeEdit = () => {
    refocus.current = true;
    setEditing(false);
  };
  const editButton = (
    <Button class="tasks-edit-button" aria-expanded={editing ? "true" : "false"} aria-label={`Edit: ${task.title}`} onClick={() => (editing ? closeEdit() : setEditing(true))}>
      Edit
    </Button>
  );
  const act = (path: string, body: unknown) => void run(() => api("POST", `/api/tasks/${encodeURIComponent(task.id)}/${path}`, body)).then(props.onChanged);
  return (
    <li ref={card} class={`card tasks-card ${task.status}`} data-task={task.id}>
      <div class="tasks-card-main">
        <div class="tasks-card-title">
          <strong>{task.title}</strong>
          {task.status === "done" ? <span class="badge">done</span> : null}
          {task.priority > 0 ? <span class={`badge priority-${task.priority}`}>{PRIORITIES[task.priority] ?? task.priority} priority</span> : null}
          {task.repeat === null ? null : (
            <span class="badge" title={task.repeat}>
              repeats
            </span>
          )}
        </div>
        <div class="muted">
          Due: <DueLabel due={task.due} />
          {task.completions > 0 && task.lastCompletedOn !== null ? `; done ${task.completions === 1 ? "once" : `${task.completions} times`}, last on ${longDay(task.lastCompletedOn)}` : ""}
        </div>
        {task.notes === "" ? null : <p class="tasks-notes">{task.notes}</p>}
        {task.tags.length === 0 && task.links.length === 0 ? null : (
          <ul class="tasks-tags" aria-label="Tags and links">
            {task.tags.map((tag) => (
              <li key={`t:${tag}`} class="badge">
                {tag}
              </li>
            ))}
            {task.links.map((link) => (
              <li key={`l:${link}`} class="badge">
                <a href={`#/records/${link.split("/").map(encodeURIComponent).join("/")}`}>{link}</a>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div class="buttons tasks-actions">
        {task.status === "open" ? (
          <>
            <Button kind="primary" busy={busy} aria-label={`Complete: ${task.title}`} onClick={() => act("complete", {})}>
              {task.repeat === null ? "Complete" : "Complete this time"}
            </Button>
            {task.repeat === null ? null : (
              <Button busy={busy} aria-label={`Complete for good: ${task.title}`} onClick={() => act("complete", { stop: true })}>
                Complete for good
              </Button>
            )}
            <Button busy={busy} aria-expanded={moving ? "true" : "false"} aria-label={`Reschedule: ${task.title}`} onClick={() => setMoving(!moving)}>
              Reschedule
            </Button>
            {editButton}
          </>
        ) : (
          <>
            <Button busy={busy} aria-label={`Reopen: ${task.title}`} onClick={() => act("reopen", {})}>
              Reopen
            </Button>
            {editButton}
          </>
        )}
      </div>
      <ErrorNote error={error} />
      {moving && task.status === "open" ? (
        <Reschedule
          task={task}
          zone={props.zone}
          busy={busy}
          onSave={(due) =>
            void run(async () => {
              await api("POST", `/api/tasks/${encodeURIComponent(task.id)}/reschedule`, { due });
              setMoving(false);
            }).then(props.onChanged)
          }
          onCancel={() => setMoving(false)}
        />
      ) : null}
      {editing ? (
        <EditTask
          task={task}
          onSaved={(edited) => {
            if (edited !== null) props.onEdited(edited);
            closeEdit();
          }}
          onCancel={closeEdit}
        />
      ) : null}
    </li>
  );
}

function Reschedule(props: { task: Task; zone: string | null; busy: boolean; onSave: (due: string | null) => void; onCancel: () => void }) {
  const start = dueParts(props.task.due);
  const [date, setDate] = useState(start.date);
  const [time, setTime] = useState(start.time);
  return (
    <form
      class="tasks-reschedule"
      aria-label={`Reschedule ${props.task.title}`}
      onSubmit={(event) => {
        event.preventDefault();
        props.onSave(dueText(date, time, props.zone));
      }}
    >
      <DueFields date={date} time={time} zone={props.zone} onDate={setDate} onTime={setTime} dateLabel="New due date" dateHint="Empty: no due date." />
      <div class="buttons">
        <Button type="submit" kind="primary" busy={props.busy}>
          Save the new date
        </Button>
        <Button onClick={props.onCancel}>Cancel</Button>
      </div>
    </form>
  );
}

/** Whether two lists of words are the same, in the same order. */
function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => word === b[i]);
}

/**
 * A task's title, notes, priority, tags and links, prefilled, with the new-task form's limits. Only
 * the fields changed since the form opened are sent (`PATCH`): a change made elsewhere meanwhile to
 * another field is kept. Nothing changed: the form just closes. Escape cancels.
 */
function EditTask(props: { task: Task; onSaved: (task: Task | null) => void; onCancel: () => void }) {
  // What the task said when the form opened: what "changed" is measured against.
  const [start] = useState(() => ({ ...props.task, tagsText: props.task.tags.join(", "), linksText: props.task.links.join(", ") }));
  const [title, setTitle] = useState(start.title);
  const [notes, setNotes] = useState(start.notes);
  const [priority, setPriority] = useState(start.priority);
  const [tags, setTags] = useState(start.tagsText);
  const [links, setLinks] = useState(start.linksText);
  const [run, busy, error] = useBusy();
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => {
    first.current?.focus();
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const tagList = words(tags);
      const linkList = words(links);
      const body = {
        ...(title === start.title ? {} : { title }),
        ...(notes === start.notes ? {} : { notes }),
        ...(priority === start.priority ? {} : { priority }),
        ...(sameWords(tagList, start.tags) ? {} : { tags: tagList }),
        ...(sameWords(linkList, start.links) ? {} : { links: linkList }),
      };
      if (Object.keys(body).length === 0) {
        props.onSaved(null);
        return;
      }
      props.onSaved(await api<Task>("PATCH", `/api/tasks/${encodeURIComponent(start.id)}`, body));
    });
  };

  return (
    <form
      class="stack tasks-form tasks-edit"
      aria-label={`Edit ${start.title}`}
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key !== "Escape" || busy) return;
        e.preventDefault();
        props.onCancel();
      }}
    >
      <Field label="Title" hint="Up to 200 characters.">
        {(id, describedBy) => <input ref={first} id={id} maxLength={200} aria-describedby={describedBy} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />}
      </Field>
      <Field label="Notes" hint="Up to 4,000 characters.">
        {(id, describedBy) => <textarea id={id} maxLength={4000} aria-describedby={describedBy} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />}
      </Field>
      <div class="tasks-row">
        <PriorityField value={priority} onChange={setPriority} />
        <Field label="Tags" hint="Separated by commas: up to 20, each up to 40 characters.">
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}
        </Field>
      </div>
      <Field label="Links to records" hint="Separated by commas, each namespace/Aggregate/subject (e.g. std.invoices/Invoice/inv-7).">
        {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={links} spellcheck={false} onInput={(e) => setLinks(e.currentTarget.value)} />}
      </Field>
      <ErrorNote error={error} />
      <div class="buttons">
        <Button type="submit" kind="primary" busy={busy}>
          Save the changes
        </Button>
        <Button onClick={props.onCancel}>Cancel</Button>
      </div>
    </form>
  );
}
