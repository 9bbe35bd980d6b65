/**
 * @module The app's few building blocks: a labelled field, an error line, a status line, a
 * button that shows it is working, a relative time, a JSON block. Every control has a label;
 * errors are `role="alert"`, statuses `role="status"`.
 */
import type { ButtonHTMLAttributes, ComponentChildren } from "preact";
import { useId } from "preact/hooks";

/** A labelled control: the label's `for` is the control's id. `hint` and `error` are described-by. */
export function Field(props: { label: string; hint?: string | undefined; error?: string | null | undefined; children: (id: string, describedBy: string | undefined) => ComponentChildren }) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [props.hint === undefined ? null : hintId, props.error ? errorId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children(id, describedBy)}
      {props.hint === undefined ? null : (
        <small id={hintId} class="hint">
          {props.hint}
        </small>
      )}
      {props.error ? (
        <small id={errorId} class="field-error">
          {props.error}
        </small>
      ) : null}
    </div>
  );
}

/** An error for the person, read out when it appears. */
export function ErrorNote(props: { error: string | null | undefined }) {
  if (!props.error) return null;
  return (
    <p class="error" role="alert">
      {props.error}
    </p>
  );
}

/** A status line, read out politely. */
export function Status(props: { children: ComponentChildren }) {
  return (
    <p class="status" role="status">
      {props.children}
    </p>
  );
}

/** A button that is disabled and says so while `busy`. */
export function Button(props: ButtonHTMLAttributes<HTMLButtonElement> & { busy?: boolean; kind?: "primary" | "danger" | "plain" }) {
  const { busy, kind, children, class: className, ...rest } = props;
  return (
    <button type="button" {...rest} class={`btn ${kind ?? "plain"} ${className ?? ""}`} disabled={busy === true || props.disabled === true} aria-busy={busy === true ? "true" : undefined}>
      {children}
    </button>
  );
}

/** A page's heading block: the `h1` (focused when the page opens) and an optional line under it. */
export function PageHead(props: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-head">
      <h1 tabIndex={-1} id="page-title">
        {props.title}
      </h1>
      {props.children}
    </header>
  );
}

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

/** `when` (RFC 3339 or epoch ms) as "3 minutes ago", with the exact time in `datetime` and the title. */
export function Time(props: { when: string | number | null | undefined }) {
  if (props.when === null || props.when === undefined) return <span>—</span>;
  const ms = typeof props.when === "number" ? props.when : Date.parse(props.when);
  if (!Number.isFinite(ms)) return <span>{String(props.when)}</span>;
  const iso = new Date(ms).toISOString();
  return (
    <time dateTime={iso} title={new Date(ms).toLocaleString()}>
      {relative(ms)}
    </time>
  );
}

function relative(ms: number): string {
  const seconds = Math.round((ms - Date.now()) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return RELATIVE.format(seconds, "second");
  if (abs < 45 * 60) return RELATIVE.format(Math.round(seconds / 60), "minute");
  if (abs < 22 * 3600) return RELATIVE.format(Math.round(seconds / 3600), "hour");
  if (abs < 26 * 86400) return RELATIVE.format(Math.round(seconds / 86400), "day");
  return new Date(ms).toLocaleDateString();
}

/** A value as indented JSON, in a scrollable block with a label for screen readers. */
export function JsonBlock(props: { value: unknown; label: string }) {
  return (
    <pre class="json" tabIndex={0} aria-label={props.label}>
      {JSON.stringify(props.value, null, 2)}
    </pre>
  );
}

/** A list that is empty says so. */
export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}
