/**
 * @module What the settings forms share: `useSave()` runs a change (through the step-up prompt
 * when the node asks for one) and keeps the node's refusal — each `errors[]` entry by its
 * pointer, so a field shows its own (`save.at("#/timeZone")`), and the rest in the form's alert
 * (`<SaveNote save={save} />`, rendered after the fields). A labelled select or input for a row of
 * a list whose visible label is short ("Mode") and whose full name is read out.
 */
import type { ComponentChildren } from "preact";
import { useRef, useState } from "preact/hooks";
import { messageOf, Refusal } from "../lib/api.ts";
import { withStepUp } from "../lib/stepup.ts";
import { ErrorNote, Status } from "./ui.tsx";

export interface Save {
  /** Runs `work` (again after a step-up when the node asks for one); true when it succeeded. */
  readonly run: (work: () => Promise<unknown>, done?: string) => Promise<boolean>;
  readonly busy: boolean;
  /** The node's reason for the field at `pointer`, or null; the pointer is then shown there, not in the alert. */
  readonly at: (pointer: string) => string | null;
  /** The node's reasons for `prefix` and every pointer under it (`#/mappings/0/command`), or null; shown there. */
  readonly within: (prefix: string) => string | null;
  /** The errors of no field shown, and a refusal without field errors. */
  readonly rest: () => string | null;
  readonly done: string | null;
  readonly clear: () => void;
}

export function useSave(): Save {
  const [busy, setBusy] = useState(false);
  const [fields, setFields] = useState<ReadonlyMap<string, string>>(new Map());
  const [general, setGeneral] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  // The pointers the form shows next to a field, gathered afresh by each render.
  const shown = useRef(new Set<string>());
  shown.current = new Set();
  const clear = () => {
    setFields(new Map());
    setGeneral(null);
    setDone(null);
  };
  const run = async (work: () => Promise<unknown>, doneText?: string) => {
    setBusy(true);
    clear();
    try {
      await withStepUp(work);
      if (doneText !== undefined) setDone(doneText);
      return true;
    } catch (error) {
      const errors = error instanceof Refusal ? (error.body?.errors ?? []) : [];
      const byPointer = new Map<string, string>();
      for (const e of errors) if (typeof e.pointer === "string" && typeof e.detail === "string" && !byPointer.has(e.pointer)) byPointer.set(e.pointer, e.detail);
      setFields(byPointer);
      setGeneral(byPointer.size === 0 ? messageOf(error) : null);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return {
    run,
    busy,
    done,
    clear,
    at: (pointer) => {
      shown.current.add(pointer);
      return fields.get(pointer) ?? null;
    },
    within: (prefix) => {
      const found = [...fields].filter(([pointer]) => pointer === prefix || pointer.startsWith(`${prefix}/`));
      for (const [pointer] of found) shown.current.add(pointer);
      return found.length === 0 ? null : found.map(([pointer, detail]) => (pointer === prefix ? detail : `${pointer.slice(prefix.length + 1)}: ${detail}`)).join("; ");
    },
    rest: () => {
      if (general !== null) return general;
      const others = [...fields].filter(([pointer]) => !shown.current.has(pointer));
      if (fields.size === 0) return null;
      if (others.length === 0) return `Refused: ${fields.size === 1 ? "the reason is" : "the reasons are"} next to ${fields.size === 1 ? "the field" : "each field"}.`;
      return `Refused: ${others.map(([pointer, detail]) => `${pointer.replace(/^#\//, "")}: ${detail}`).join("; ")}`;
    },
  };
}

/** The form's alert (what no field shows) and its success line. Render it after the form's fields. */
export function SaveNote(props: { save: Save }) {
  return (
    <>
      <ErrorNote error={props.save.rest()} />
      {props.save.done === null ? null : <Status>{props.save.done}</Status>}
    </>
  );
}

/** A control of one row of a list: the visible label is short, the accessible name says which row. */
export function RowField(props: { id: string; label: string; name: string; error?: string | null; children: (describedBy: string | undefined) => ComponentChildren }) {
  const errorId = `${props.id}-error`;
  return (
    <div class="field">
      <label for={props.id}>
        {props.label}
        <span class="settings-vh"> of {props.name}</span>
      </label>
      {props.children(props.error ? errorId : undefined)}
      {props.error ? (
        <small id={errorId} class="field-error">
          {props.error}
        </small>
      ) : null}
    </div>
  );
}

/** `aria-invalid` for a control with an error. */
export function invalid(error: string | null | undefined): "true" | undefined {
  return error ? "true" : undefined;
}
