/**
 * @module An action's form, generated from the contract's description (records-schema.tsx): one
 * labelled input per argument (text with its `maxlength`, a whole number with its range, a date, a
 * yes/no, a list of the contract's enum values, a list one per line, JSON), the subject, and two
 * ways to send it: Preview (`POST /api/data/preview`: the state it would leave, or the refusal and
 * its reason; nothing is written) and Send (`POST /api/data/act`: the receipt, or the contract's
 * refusal — a `422` with the receipt — and its reason). What may be done is the contract's to say.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, messageOf, Refusal } from "../lib/api.ts";
import { href } from "../lib/router.ts";
import { withStepUp } from "../lib/stepup.ts";
import { Button, ErrorNote, Field, JsonBlock, Status } from "./ui.tsx";
import { type ActionSpec, type ArgSpec, type ContractSpec, describeValue, parseValue, usablePattern } from "./records-schema.tsx";

/** A refusal's reason, as receipts and previews carry it. */
export interface Reason {
  readonly code?: string;
  readonly condition?: string | null;
  readonly line?: number | null;
  readonly message?: string;
}

/** A receipt, as much of it as the page shows. */
export interface Receipt {
  readonly id?: string;
  readonly seq?: number;
  readonly action?: string;
  readonly subject?: string;
  readonly outcome?: string;
  readonly reason?: Reason | null;
  readonly state?: Record<string, unknown> | null;
  readonly [key: string]: unknown;
}

type Outcome =
  | { readonly kind: "preview-accepted"; readonly state: Record<string, unknown> }
  | { readonly kind: "preview-refused"; readonly reason: Reason }
  | { readonly kind: "accepted"; readonly receipt: Receipt }
  | { readonly kind: "refused"; readonly receipt: Receipt; readonly message: string };

/** Picks an action of `aggregate` and shows its form; `subject` fixed (a record's page) or entered. */
export function ActionPanel(props: { contract: ContractSpec; aggregate: string; subject?: string; onSent: (receipt: Receipt) => void }) {
  const actions = props.contract.actions.filter((a) => a.aggregate === props.aggregate);
  const [chosen, setChosen] = useState(actions[0]?.name ?? "");
  const action = actions.find((a) => a.name === chosen) ?? actions[0];
  if (action === undefined) return <p class="empty">This contract offers no action on {props.aggregate} through its API.</p>;
  return (
    <div class="stack">
      <div class="field inline">
        <label for="records-action">Action</label>
        <select id="records-action" value={action.name} onChange={(e) => setChosen(e.currentTarget.value)}>
          {actions.map((a) => (
            <option key={a.name} value={a.name}>
              {a.name}
            </option>
          ))}
        </select>
      </div>
      <ActionForm key={action.name} namespace={props.contract.namespace} contract={props.contract} action={action} subject={props.subject} onSent={props.onSent} />
    </div>
  );
}

function ActionForm(props: { namespace: string; contract: ContractSpec; action: ActionSpec; subject: string | undefined; onSent: (receipt: Receipt) => void }) {
  const { action } = props;
  const [values, setValues] = useState<Record<string, string | boolean>>(() => Object.fromEntries(action.args.map((a) => [a.name, a.kind === "bool" ? false : ""])));
  const [subject, setSubject] = useState(props.subject ?? suggestedSubject(action.aggregate));
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (props.subject !== undefined) setSubject(props.subject);
  }, [props.subject]);

  const argsOf = (): Record<string, unknown> | null => {
    const errors: Record<string, string> = {};
    const args: Record<string, unknown> = {};
    for (const arg of action.args) {
      try {
        args[arg.name] = parseValue(arg, values[arg.name] ?? "");
      } catch (failure) {
        errors[arg.name] = `Enter ${failure instanceof SyntaxError ? "valid JSON" : (failure as Error).message}.`;
      }
    }
    setFieldErrors(errors);
    return Object.keys(errors).length === 0 ? args : null;
  };

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const preview = (event.submitter as HTMLButtonElement | null)?.value === "preview";
    const args = argsOf();
    if (args === null) return;
    const body = { namespace: props.namespace, action: action.name, subject, args };
    setBusy(true);
    setError(null);
    setOutcome(null);
    try {
      if (preview) {
        const answer = await api<{ outcome: string; state?: Record<string, unknown>; reason?: Reason }>("POST", "/api/data/preview", body);
        setOutcome(answer.outcome === "accepted" ? { kind: "preview-accepted", state: answer.state ?? {} } : { kind: "preview-refused", reason: answer.reason ?? {} });
      } else {
        const key = crypto.randomUUID();
        const answer = await withStepUp(() => api<{ receipt: Receipt }>("POST", "/api/data/act", { ...body, idempotencyKey: key }));
        setOutcome({ kind: "accepted", receipt: answer.receipt });
        props.onSent(answer.receipt);
      }
    } catch (failure) {
      const receipt = failure instanceof Refusal ? (failure.body?.["receipt"] as Receipt | undefined) : undefined;
      if (receipt !== undefined && receipt.outcome === "refused") {
        setOutcome({ kind: "refused", receipt, message: messageOf(failure) });
        props.onSent(receipt);
      } else setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="stack records-form" aria-label={`${action.name} on ${action.aggregate}`} onSubmit={(e) => void submit(e as unknown as SubmitEvent)}>
      {action.description === "" ? null : <p class="muted">{action.description.replace(/ The body is a command.*$/, "")}</p>}
      {props.subject === undefined ? (
        <Field label="Subject" hint={`The record's key${props.contract.subject?.description === undefined ? "" : `: ${props.contract.subject.description}`}`}>
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              value={subject}
              required
              maxLength={props.contract.subject?.maxLength}
              pattern={usablePattern(props.contract.subject?.pattern)}
              autoComplete="off"
              onInput={(e) => setSubject(e.currentTarget.value)}
            />
          )}
        </Field>
      ) : null}
      {action.args.length === 0 ? <p class="muted">This action takes no arguments.</p> : null}
      <div class="records-args">
        {action.args.map((arg) => (
          <ArgInput key={arg.name} arg={arg} value={values[arg.name] ?? ""} error={fieldErrors[arg.name]} onChange={(v) => setValues((old) => ({ ...old, [arg.name]: v }))} />
        ))}
      </div>
      <div class="buttons">
        <Button type="submit" value="preview" busy={busy}>
          Preview
        </Button>
        <Button type="submit" value="send" kind="primary" busy={busy}>
          Send {action.name}
        </Button>
      </div>
      <ErrorNote error={error} />
      <OutcomeView outcome={outcome} namespace={props.namespace} aggregate={action.aggregate} subject={subject} showLink={props.subject === undefined} />
    </form>
  );
}

function ArgInput(props: { arg: ArgSpec; value: string | boolean; error: string | undefined; onChange: (value: string | boolean) => void }) {
  const { arg } = props;
  const label = arg.name;
  const hint = describeValue(arg);
  const text = typeof props.value === "string" ? props.value : "";
  return (
    <Field label={label} hint={hint} error={props.error}>
      {(id, describedBy) => {
        const common = { id, "aria-describedby": describedBy, "aria-invalid": props.error === undefined ? undefined : ("true" as const), name: arg.name };
        switch (arg.kind) {
          case "bool":
            return <input {...common} type="checkbox" checked={props.value === true} onChange={(e) => props.onChange(e.currentTarget.checked)} />;
          case "enum":
            return (
              <select {...common} value={text} required={arg.required && !arg.nullable} onChange={(e) => props.onChange(e.currentTarget.value)}>
                <option value="">{arg.nullable ? "(none)" : "Choose…"}</option>
                {(arg.options ?? []).map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            );
          case "date":
            return <input {...common} type="date" value={text} required={arg.required && !arg.nullable} onInput={(e) => props.onChange(e.currentTarget.value)} />;
          case "int":
          case "number":
            return (
              <input
                {...common}
                type="number"
                inputMode={arg.kind === "int" ? "numeric" : "decimal"}
                step={arg.kind === "int" ? 1 : "any"}
                min={arg.minimum}
                max={arg.maximum}
                value={text}
                required={arg.required && !arg.nullable}
                onInput={(e) => props.onChange(e.currentTarget.value)}
              />
            );
          case "list":
          case "json":
            return <textarea {...common} rows={3} value={text} spellcheck={false} onInput={(e) => props.onChange(e.currentTarget.value)} />;
          case "text": {
            // A required text may still be empty: whether it may is the contract's to say.
            const long = (arg.maxLength ?? 0) > 200;
            return long ? (
              <textarea {...common} rows={3} maxLength={arg.maxLength} value={text} onInput={(e) => props.onChange(e.currentTarget.value)} />
            ) : (
              <input {...common} maxLength={arg.maxLength} pattern={usablePattern(arg.pattern)} value={text} autoComplete="off" onInput={(e) => props.onChange(e.currentTarget.value)} />
            );
          }
        }
      }}
    </Field>
  );
}

function OutcomeView(props: { outcome: Outcome | null; namespace: string; aggregate: string; subject: string; showLink: boolean }) {
  const { outcome } = props;
  if (outcome === null) return null;
  const link = props.showLink ? (
    <p>
      <a href={href("records", props.namespace, props.aggregate, props.subject)}>Open the record {props.subject}</a>
    </p>
  ) : null;
  switch (outcome.kind) {
    case "preview-accepted":
      return (
        <Result title="Preview: it would be accepted" tone="accepted">
          <p>Nothing was written. The record would then be:</p>
          <StateList state={outcome.state} label="The state it would leave" />
        </Result>
      );
    case "preview-refused":
      return (
        <Result title="Preview: it would be refused" tone="refused">
          <ReasonView reason={outcome.reason} />
          <p class="muted">Nothing was written.</p>
        </Result>
      );
    case "accepted":
      return (
        <Result title={`Accepted (#${String(outcome.receipt.seq ?? "")})`} tone="accepted">
          <Status>Sent: {String(outcome.receipt.action ?? "")} was accepted.</Status>
          {link}
          <ReceiptDetails receipt={outcome.receipt} />
        </Result>
      );
    case "refused":
      return (
        <Result title={`Refused (#${String(outcome.receipt.seq ?? "")})`} tone="refused">
          <div role="alert">
            <ReasonView reason={outcome.receipt.reason ?? { message: outcome.message }} />
          </div>
          {link}
          <ReceiptDetails receipt={outcome.receipt} />
        </Result>
      );
  }
}

function Result(props: { title: string; tone: "accepted" | "refused"; children: ComponentChildren }) {
  return (
    <section class={`records-result ${props.tone}`} aria-label={props.title}>
      <h3>{props.title}</h3>
      {props.children}
    </section>
  );
}

/** A refusal's reason: its message, code, and the condition and line that failed. */
export function ReasonView(props: { reason: Reason | null | undefined }) {
  const r = props.reason ?? {};
  return (
    <div class="records-reason">
      <p>
        <strong>Reason:</strong> {r.message ?? r.code ?? "no reason given"}
      </p>
      {r.code === undefined && r.condition == null ? null : (
        <p class="muted">
          {r.code === undefined ? null : <code>{r.code}</code>}
          {r.condition == null ? null : (
            <>
              {" "}
              — <code>{r.condition}</code>
            </>
          )}
          {r.line == null ? null : <> (line {r.line})</>}
        </p>
      )}
    </div>
  );
}

export function ReceiptDetails(props: { receipt: unknown }) {
  return (
    <details class="records-receipt">
      <summary>Receipt</summary>
      <JsonBlock value={props.receipt} label="Receipt" />
    </details>
  );
}

/** A record's state as a list of its fields. */
export function StateList(props: { state: Record<string, unknown> | null | undefined; label: string }) {
  const entries = Object.entries(props.state ?? {});
  if (entries.length === 0) return <p class="empty">No public fields.</p>;
  return (
    <dl class="records-state" aria-label={props.label}>
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{showValue(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A value in a few characters: text as is, lists joined, null as a dash. */
export function showValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value === "" ? "“”" : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null)) return value.length === 0 ? "(none)" : value.map((v) => String(v)).join(", ");
  return JSON.stringify(value);
}

function suggestedSubject(aggregate: string): string {
  const base = aggregate.toLowerCase().replace(/[^a-z0-9]+/g, "-") || "record";
  return `${base}-${Date.now().toString(36)}`;
}
