/**
 * @module Workbench: write a contract and try it before installing it. The editor sends the source to
 * `POST /api/workbench/check` a moment after typing stops — one check at a time, and when the node
 * answers `503 workbench-busy` not again before its `Retry-After` — and lists the compiler's
 * diagnostics with their line and column (each moves the caret there; the gutter marks the lines).
 * Completion (Ctrl+Space) offers the language's keywords and the names the source declares. A table
 * of steps (action, subject, arguments, signer) runs with the check on a throwaway node, and each
 * step's result is shown: the state it left, or the refusal and its reason. Installing asks for an
 * approval (`POST /api/workbench/install`), which the person then approves (with a step-up) or
 * denies (`POST /api/approvals/{id}`); the outcome is the node's.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, messageOf, Refusal } from "../lib/api.ts";
import { refresh } from "../lib/account.ts";
import { useBusy } from "../lib/hooks.ts";
import { href } from "../lib/router.ts";
import { withStepUp } from "../lib/stepup.ts";
import type { PageProps } from "../routes.ts";
import { Button, ErrorNote, Field, PageHead, Status } from "../components/ui.tsx";
import { ReasonView, type Reason, StateList } from "../components/records-form.tsx";
import { declaredActions, type Suggestion, suggest } from "../components/records-completion.ts";
import "./workbench.css";
import { STARTER } from "../components/workbench-starter.ts";

/** A compile error as the check and the install answer it. */
interface Diagnostic {
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

interface StepReport {
  readonly step: number;
  readonly action: string;
  readonly subject: string;
  readonly signer: string;
  readonly outcome: "accepted" | "refused" | "rejected" | "timeout" | "failed";
  readonly state?: Record<string, unknown>;
  readonly reason?: Reason;
  readonly problem?: { readonly detail?: string; readonly code?: string };
  readonly error?: string;
}

interface CheckAnswer {
  readonly artifact: string;
  readonly namespace: string;
  readonly steps: readonly StepReport[];
}

interface Approval {
  readonly id: string;
  readonly kind: string;
  readonly summary: string;
  readonly status: string;
  readonly outcome?: string | null;
  readonly target?: string;
}

interface StepRow {
  readonly id: number;
  readonly action: string;
  readonly subject: string;
  readonly args: string;
  readonly signer: string;
}

/** How long typing must pause before the source is checked. */
const DEBOUNCE_MS = 900;
const STORAGE_KEY = "charter.workbench.source";


let nextRowId = 1;
const row = (action = "", subject = "", args = "{}", signer = ""): StepRow => ({ id: nextRowId++, action, subject, args, signer });

function savedSource(): string {
  try {
    return localStorage.getItem(STORAGE_KEY) ?? STARTER;
  } catch {
    return STARTER;
  }
}

/** The check's state, as the status line says it. */
type CheckState =
  | { readonly kind: "idle" }
  | { readonly kind: "checking"; readonly run: boolean }
  | { readonly kind: "ok"; readonly namespace: string; readonly artifact: string }
  | { readonly kind: "errors"; readonly count: number }
  | { readonly kind: "busy"; readonly seconds: number }
  | { readonly kind: "failed"; readonly message: string };

export default function WorkbenchPage(_props: PageProps) {
  const [source, setSource] = useState(savedSource);
  const [diagnostics, setDiagnostics] = useState<readonly Diagnostic[]>([]);
  const [check, setCheck] = useState<CheckState>({ kind: "idle" });
  const checked = useRef(check);
  checked.current = check;
  const [rows, setRows] = useState<readonly StepRow[]>(() => [row("Write", "note-1", '{"title": "Hello", "text": "First note"}')]);
  const [stepErrors, setStepErrors] = useState<Record<string, string>>({});
  const [results, setResults] = useState<ReadonlyMap<number, StepReport> | null>(null);
  const [runNote, setRunNote] = useState<string | null>(null);
  const editor = useRef<HTMLTextAreaElement>(null);

  // The check queue: at most one request in flight; the latest wish waits for it (and for a busy node's Retry-After).
  const wish = useRef<{ source: string; run: boolean } | null>(null);
  const inFlight = useRef(false);
  const notBefore = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const alive = useRef(true);
  // Leaving the page stops a running check (the node then stops its throwaway node).
  const leaving = useRef(new AbortController());
  const latest = useRef({ rows, source });
  latest.current = { rows, source };
  useEffect(
    () => () => {
      alive.current = false;
      clearTimeout(timer.current);
      leaving.current.abort();
    },
    [],
  );

  const schedule = (delay: number) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void pump(), Math.max(delay, notBefore.current - Date.now()));
  };

  const pump = async () => {
    if (inFlight.current || wish.current === null || !alive.current) return;
    if (Date.now() < notBefore.current) return schedule(0);
    const wanted = wish.current;
    wish.current = null;
    const sent = latest.current.rows;
    const steps = wanted.run ? stepsOf(sent) : [];
    if (steps === null) return;
    inFlight.current = true;
    const before = checked.current;
    setCheck({ kind: "checking", run: wanted.run });
    try {
      const answer = await api<CheckAnswer>("POST", "/api/workbench/check", { source: wanted.source, steps }, { signal: leaving.current.signal });
      if (!alive.current) return;
      setDiagnostics([]);
      setCheck({ kind: "ok", namespace: answer.namespace, artifact: answer.artifact });
      if (wanted.run) {
        const ids = sent.map((r) => r.id);
        setResults(new Map(answer.steps.map((s, i) => [ids[i] ?? -1, s])));
        setRunNote(`Ran ${answer.steps.length} step${answer.steps.length === 1 ? "" : "s"} on a throwaway node: nothing real was touched.`);
      }
    } catch (error) {
      if (!alive.current) return;
      const body = error instanceof Refusal ? error.body : null;
      if (error instanceof Refusal && error.code === "compile-errors") {
        const found = ((body?.errors ?? []) as unknown as Diagnostic[]).filter((d) => typeof d.line === "number");
        setDiagnostics(found);
        setCheck({ kind: "errors", count: found.length });
        if (wanted.run) {
          setResults(null);
          setRunNote("The steps did not run: the contract has errors.");
        }
      } else if (error instanceof Refusal && error.code === "workbench-busy") {
        const seconds = typeof body?.["retryAfter"] === "number" ? body["retryAfter"] : 10;
        notBefore.current = Date.now() + seconds * 1000;
        // Not again before the node says: the same wish waits (unless a newer one replaced it).
        const newer = wish.current as { source: string; run: boolean } | null;
        wish.current = newer === null ? wanted : { ...newer, run: newer.run || wanted.run };
        setCheck({ kind: "busy", seconds });
      } else if (error instanceof Refusal && error.code === "malformed-body" && wanted.run) {
        setStepErrors(stepErrorsOf(body?.errors ?? []));
        // The steps were refused before the contract was checked: its last check still holds.
        setCheck(before);
        setResults(null);
        setRunNote(`The steps did not run: ${messageOf(error)}`);
      } else setCheck({ kind: "failed", message: messageOf(error) });
    } finally {
      inFlight.current = false;
      if (wish.current !== null && alive.current) schedule(0);
    }
  };

  const want = (run: boolean, delay: number) => {
    const text = latest.current.source;
    wish.current = { source: text, run: run || (wish.current?.run ?? false) };
    schedule(delay);
  };

  // The first check, for the source the page opens with.
  useEffect(() => want(false, 0), []);

  const edit = (text: string) => {
    setSource(text);
    latest.current = { ...latest.current, source: text };
    try {
      localStorage.setItem(STORAGE_KEY, text);
    } catch {
      // Kept for this visit only.
    }
    want(false, DEBOUNCE_MS);
  };

  /** The steps as the check takes them, or null (with each wrong field said) when one cannot be read. */
  const stepsOf = (list: readonly StepRow[]) => {
    const errors: Record<string, string> = {};
    const steps = list.map((r, i) => {
      let args: unknown = {};
      try {
        args = r.args.trim() === "" ? {} : JSON.parse(r.args);
        if (args === null || typeof args !== "object" || Array.isArray(args)) errors[`${i}/args`] = "The arguments are a JSON object, like {\"title\": \"Hello\"}.";
      } catch (failure) {
        errors[`${i}/args`] = `Not JSON: ${(failure as Error).message}`;
      }
      return { action: r.action, subject: r.subject, args, ...(r.signer.trim() === "" ? {} : { signer: r.signer.trim() }) };
    });
    setStepErrors(errors);
    if (Object.keys(errors).length > 0) {
      setRunNote("The steps did not run: some arguments are not a JSON object (see the steps).");
      return null;
    }
    return steps;
  };

  const goTo = (d: Diagnostic) => {
    const area = editor.current;
    if (area === null) return;
    const lines = area.value.split("\n");
    let offset = 0;
    for (let i = 0; i < d.line - 1 && i < lines.length; i++) offset += (lines[i]?.length ?? 0) + 1;
    offset += Math.max(0, Math.min(d.column - 1, lines[d.line - 1]?.length ?? 0));
    area.focus();
    area.setSelectionRange(offset, offset);
    const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 20;
    area.scrollTop = Math.max(0, (d.line - 1) * lineHeight - area.clientHeight / 3);
  };

  const badLines = new Set(diagnostics.map((d) => d.line));
  const actions = declaredActions(source);

  return (
    <>
      <PageHead title="Workbench">
        <p>Write a contract, try it on a throwaway node, then ask to install it. Nothing real is touched until you approve the install.</p>
      </PageHead>
      <section aria-labelledby="wb-source-title">
        <h2 id="wb-source-title">Contract</h2>
        <Editor source={source} badLines={badLines} editor={editor} onEdit={edit} />
        <CheckLine check={check} />
        <Diagnostics diagnostics={diagnostics} onGo={goTo} />
      </section>
      <section aria-labelledby="wb-steps-title">
        <h2 id="wb-steps-title">Steps</h2>
        <p class="muted">Each step is a command on the throwaway node, in order. The signer is a name: “owner” owns the throwaway tenant, any other name is a member (alice when left empty).</p>
        <datalist id="wb-actions">
          {actions.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        <ol class="wb-steps">
          {rows.map((r, i) => (
            <StepRowView
              key={r.id}
              index={i}
              row={r}
              result={results?.get(r.id)}
              errors={stepErrors}
              onChange={(changed) => setRows((old) => old.map((o) => (o.id === r.id ? changed : o)))}
              onRemove={() => {
                setRows((old) => old.filter((o) => o.id !== r.id));
                setStepErrors({});
              }}
            />
          ))}
        </ol>
        <div class="buttons">
          <Button onClick={() => setRows((old) => [...old, row(old.at(-1)?.action ?? "", old.at(-1)?.subject ?? "")])}>Add a step</Button>
          <Button kind="primary" busy={check.kind === "checking" && check.run} onClick={() => want(true, 0)} disabled={rows.length === 0}>
            Run the steps
          </Button>
        </div>
        {runNote === null ? null : <Status>{runNote}</Status>}
      </section>
      <Install source={source} onErrors={(found) => (setDiagnostics(found), setCheck({ kind: "errors", count: found.length }))} />
    </>
  );
}

/** A `400`'s field errors on the steps, by `index/field` (`#/steps/2/subject` → `2/subject`). */
function stepErrorsOf(errors: readonly { readonly pointer?: string; readonly detail?: string }[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const e of errors) {
    const match = /^#\/steps\/(\d+)\/(\w+)$/.exec(e.pointer ?? "");
    if (match !== null) found[`${match[1]}/${match[2]}`] = e.detail ?? "wrong";
  }
  return found;
}

function Editor(props: { source: string; badLines: ReadonlySet<number>; editor: { current: HTMLTextAreaElement | null }; onEdit: (text: string) => void }) {
  const gutter = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState<{ from: number; items: Suggestion[]; active: number } | null>(null);
  const lines = props.source.split("\n").length;

  const syncScroll = () => {
    if (gutter.current !== null && props.editor.current !== null) gutter.current.scrollTop = props.editor.current.scrollTop;
  };

  const accept = (item: Suggestion) => {
    const area = props.editor.current;
    if (area === null || open === null) return;
    area.setRangeText(item.label, open.from, area.selectionStart, "end");
    setOpen(null);
    props.onEdit(area.value);
    area.focus();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const area = props.editor.current;
    if (area === null) return;
    if (event.key === " " && event.ctrlKey) {
      event.preventDefault();
      const found = suggest(area.value, area.selectionStart);
      setOpen({ ...found, active: 0 });
      return;
    }
    if (open === null) return;
    if (event.key === "Escape") {
      event.preventDefault();
      setOpen(null);
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const n = open.items.length;
      if (n > 0) setOpen({ ...open, active: (open.active + (event.key === "ArrowDown" ? 1 : n - 1)) % n });
    } else if (event.key === "Enter" || event.key === "Tab") {
      const item = open.items[open.active];
      if (item === undefined) return setOpen(null);
      event.preventDefault();
      accept(item);
    }
  };

  const onInput = (event: Event) => {
    const area = event.currentTarget as HTMLTextAreaElement;
    props.onEdit(area.value);
    // An open list follows the word being typed.
    if (open !== null) {
      const found = suggest(area.value, area.selectionStart);
      setOpen(found.items.length === 0 ? null : { ...found, active: 0 });
    }
  };

  return (
    <div class="field">
      <label for="wb-source">Contract source (Markdown with a charter block)</label>
      <div class="wb-editor">
        <div class="wb-gutter" ref={gutter} aria-hidden="true">
          {Array.from({ length: lines }, (_, i) => (
            <div key={i} class={props.badLines.has(i + 1) ? "bad" : undefined}>
              {i + 1}
            </div>
          ))}
        </div>
        <textarea
          id="wb-source"
          ref={props.editor}
          class="wb-source"
          value={props.source}
          wrap="off"
          spellcheck={false}
          autoCapitalize="off"
          autoComplete="off"
          rows={24}
          aria-describedby="wb-source-hint wb-check"
          aria-autocomplete="list"
          aria-controls={open === null ? undefined : "wb-suggestions"}
          aria-activedescendant={open === null || open.items.length === 0 ? undefined : `wb-suggestion-${open.active}`}
          onInput={onInput}
          onKeyDown={onKeyDown}
          onScroll={syncScroll}
          onBlur={() => setOpen(null)}
        />
      </div>
      <small id="wb-source-hint" class="hint">
        Checked as you type. Ctrl+Space suggests keywords and the names the contract declares; arrows choose, Enter inserts, Escape closes.
      </small>
      {open === null ? null : open.items.length === 0 ? (
        <p class="muted">No suggestion here.</p>
      ) : (
        <ul id="wb-suggestions" role="listbox" aria-label="Suggestions" class="wb-suggestions">
          {open.items.map((item, i) => (
            <li
              key={item.label}
              id={`wb-suggestion-${i}`}
              role="option"
              aria-selected={i === open.active ? "true" : "false"}
              onMouseDown={(e) => {
                e.preventDefault();
                accept(item);
              }}
            >
              <code>{item.label}</code> <span class="muted">{item.detail}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function CheckLine(props: { check: CheckState }) {
  const c = props.check;
  const text =
    c.kind === "idle"
      ? "Not checked yet."
      : c.kind === "checking"
        ? c.run
          ? "Checking and running the steps…"
          : "Checking…"
        : c.kind === "ok"
          ? `Compiles: ${c.namespace}, ${c.artifact}.`
          : c.kind === "errors"
            ? `${c.count} error${c.count === 1 ? "" : "s"}: see the diagnostics.`
            : c.kind === "busy"
              ? `The Workbench is busy with another check: trying again in ${c.seconds} s.`
              : `The check did not run: ${c.message}`;
  return (
    <p id="wb-check" role="status" class={`wb-check ${c.kind}`}>
      {text}
    </p>
  );
}

function Diagnostics(props: { diagnostics: readonly Diagnostic[]; onGo: (d: Diagnostic) => void }) {
  if (props.diagnostics.length === 0) return null;
  return (
    <div>
      <h3 id="wb-diagnostics-title">Diagnostics</h3>
      <ul class="wb-diagnostics" aria-labelledby="wb-diagnostics-title">
        {props.diagnostics.map((d, i) => (
          <li key={i}>
            <button type="button" class="link" onClick={() => props.onGo(d)}>
              Line {d.line}, column {d.column}
            </button>
            : <span class="wrap">{d.message}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function StepRowView(props: { index: number; row: StepRow; result: StepReport | undefined; errors: Record<string, string>; onChange: (row: StepRow) => void; onRemove: () => void }) {
  const { row: r, index: i } = props;
  const set = (field: keyof Omit<StepRow, "id">) => (e: Event) => props.onChange({ ...r, [field]: (e.currentTarget as HTMLInputElement).value });
  const err = (field: string) => props.errors[`${i}/${field}`];
  return (
    <li class="wb-step card">
      <fieldset>
        <legend>Step {i + 1}</legend>
        <div class="wb-step-fields">
          <Field label="Action" error={err("action")}>
            {(id, d) => <input id={id} aria-describedby={d} list="wb-actions" value={r.action} autoComplete="off" onInput={set("action")} />}
          </Field>
          <Field label="Subject" error={err("subject")}>
            {(id, d) => <input id={id} aria-describedby={d} value={r.subject} autoComplete="off" onInput={set("subject")} />}
          </Field>
          <Field label="Arguments (JSON)" error={err("args")}>
            {(id, d) => <textarea id={id} aria-describedby={d} class="wb-args" rows={2} spellcheck={false} value={r.args} onInput={set("args")} />}
          </Field>
          <Field label="Signer" error={err("signer")}>
            {(id, d) => <input id={id} aria-describedby={d} value={r.signer} placeholder="alice" autoComplete="off" onInput={set("signer")} />}
          </Field>
        </div>
        <Button kind="danger" onClick={props.onRemove} aria-label={`Remove step ${i + 1}`}>
          Remove
        </Button>
      </fieldset>
      {props.result === undefined ? null : <StepResult report={props.result} />}
    </li>
  );
}

function StepResult(props: { report: StepReport }) {
  const r = props.report;
  return (
    <section class={`wb-result ${r.outcome}`} aria-label={`Result of step ${r.step}`}>
      <p>
        <strong class={r.outcome}>{r.outcome}</strong> — {r.action} on {r.subject} by {r.signer}
      </p>
      {r.outcome === "refused" ? <ReasonView reason={r.reason} /> : null}
      {r.problem !== undefined ? <p>{r.problem.detail ?? r.problem.code ?? "Not a command the node takes."}</p> : null}
      {r.error !== undefined ? <p>{r.error}</p> : null}
      {r.state === undefined ? null : (
        <details open={r.outcome === "accepted"}>
          <summary>State after step {r.step}</summary>
          <StateList state={r.state} label={`State after step ${r.step}`} />
        </details>
      )}
    </section>
  );
}

function Install(props: { source: string; onErrors: (errors: Diagnostic[]) => void }) {
  const [approval, setApproval] = useState<Approval | null>(null);
  const [run, busy, error] = useBusy();
  const [done, setDone] = useState<{ text: string; namespace: string | null } | null>(null);

  const ask = () =>
    run(async () => {
      setDone(null);
      try {
        const answer = await api<{ approval: Approval }>("POST", "/api/workbench/install", { source: props.source });
        setApproval(answer.approval);
      } catch (failure) {
        if (failure instanceof Refusal && failure.code === "compile-errors") props.onErrors(((failure.body?.errors ?? []) as unknown as Diagnostic[]).filter((d) => typeof d.line === "number"));
        throw failure;
      }
    });

  const decide = (approve: boolean) =>
    run(async () => {
      if (approval === null) return;
      const path = `/api/approvals/${encodeURIComponent(approval.id)}`;
      try {
        const answer = await withStepUp(() => api<{ approval: Approval; install?: { namespace: string; version: string; artifact: string }; denied?: boolean }>("POST", path, { approve }));
        setApproval(answer.approval);
        setDone(answer.denied === true ? { text: "Denied: nothing was installed.", namespace: null } : { text: answer.approval.outcome ?? "Approved.", namespace: answer.install?.namespace ?? null });
        if (answer.install !== undefined) await refresh();
      } catch (failure) {
        // Approved but not installed (the engine's reason), or decided already: the approval says where it stands.
        if (failure instanceof Refusal && failure.body?.["approval"] !== undefined) setApproval(failure.body["approval"] as Approval);
        throw failure;
      }
    });

  return (
    <section aria-labelledby="wb-install-title">
      <h2 id="wb-install-title">Install</h2>
      <p class="muted">Installing asks for your approval first: the node keeps the source you approve, and installs exactly what it compiles to in your personal records.</p>
      <div class="buttons">
        <Button kind="primary" busy={busy} onClick={() => void ask()}>
          Ask to install
        </Button>
      </div>
      <ErrorNote error={error} />
      {approval === null ? null : (
        <div class="card wb-approval" aria-label="Install approval" role="group">
          <p>
            <strong>{approval.summary}</strong> <span class={`badge ${approval.status}`}>{approval.status}</span>
          </p>
          <p class="muted wrap">Approval {approval.id}</p>
          {approval.outcome == null ? null : <p>Outcome: {approval.outcome}</p>}
          {approval.status === "waiting" ? (
            <div class="buttons">
              <Button kind="primary" busy={busy} onClick={() => void decide(true)}>
                Approve and install
              </Button>
              <Button kind="danger" busy={busy} onClick={() => void decide(false)}>
                Deny
              </Button>
            </div>
          ) : null}
        </div>
      )}
      {done === null ? null : (
        <Status>
          {done.text}
          {done.namespace === null ? null : (
            <>
              {" "}
              <a href={href("records", done.namespace)}>Open its records</a>
            </>
          )}
        </Status>
      )}
    </section>
  );
}
