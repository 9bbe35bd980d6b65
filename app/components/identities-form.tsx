/**
 * @module What the Identities and Exchange pages share: a form submission that keeps the node's
 * refusal (its words for each field it names, `#/handle` → `handle`, shown next to that field, and
 * the rest as one error line), a did shown so it wraps, and a compact JWS's payload read for
 * display (the node has checked it; the page only shows it).
 */
import { useCallback, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, messageOf, type Page, Refusal } from "../lib/api.ts";

/** The node's words for each field its refusal names (pointer `#/url` → `url`). */
function fieldErrorsOf(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(error instanceof Refusal)) return out;
  for (const entry of error.body?.errors ?? []) {
    const name = (entry.pointer ?? "").replace(/^#\//, "").split("/")[0] ?? "";
    if (name !== "" && typeof entry.detail === "string" && out[name] === undefined) out[name] = entry.detail;
  }
  return out;
}

export interface Submission {
  /** Runs `work` (one at a time); a refusal is kept: its field errors for `fields`, the rest for `error`. True when it went through. */
  readonly run: (work: () => Promise<unknown>) => Promise<boolean>;
  readonly busy: boolean;
  /** The refusal's message when no field of the form carries it. */
  readonly error: string | null;
  /** The node's words for a field, or undefined. */
  readonly field: (name: string) => string | undefined;
  readonly clear: () => void;
}

/**
 * A form's submission. `fields` are the form's own field names: a refusal naming one of them shows
 * there (and focus moves to it, `data-field="<name>"`, inside `form` when given); otherwise the
 * refusal's message is the form's error line.
 */
export function useSubmission(fields: readonly string[], form?: { current: HTMLElement | null }): Submission {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [named, setNamed] = useState<Record<string, string>>({});
  const run = useCallback(
    async (work: () => Promise<unknown>) => {
      setBusy(true);
      setError(null);
      setNamed({});
      try {
        await work();
        return true;
      } catch (failure) {
        const all = fieldErrorsOf(failure);
        const mine = Object.fromEntries(Object.entries(all).filter(([name]) => fields.includes(name)));
        setNamed(mine);
        const first = fields.find((name) => mine[name] !== undefined);
        if (first === undefined) setError(messageOf(failure));
        else requestAnimationFrame(() => form?.current?.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus());
        return false;
      } finally {
        setBusy(false);
      }
    },
    [fields.join(" ")],
  );
  return { run, busy, error, field: (name) => named[name], clear: () => (setError(null), setNamed({})) };
}

/** A did (long, no spaces), wrapping anywhere. */
export function Did(props: { did: string }) {
  return <code class="wrap">{props.did}</code>;
}

/** The JSON payload of a compact JWS, for display; null when it is not one. */
export function jwsPayload(jws: string): Record<string, unknown> | null {
  const part = jws.split(".")[1];
  if (part === undefined) return null;
  try {
    const base64 = part.replaceAll("-", "+").replaceAll("_", "/");
    const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A value of a record's state as short text. */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value === "" ? "—" : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** Every item of a list route, page after page (`limit` 200, at most `pages` pages). */
export async function allPages<T>(path: string, pages = 10): Promise<Page<T>> {
  const items: T[] = [];
  let after: string | null = null;
  for (let i = 0; i < pages; i++) {
    const page: Page<T> = await api<Page<T>>("GET", `${path}${path.includes("?") ? "&" : "?"}limit=200${after === null ? "" : `&after=${encodeURIComponent(after)}`}`);
    items.push(...page.items);
    after = page.next;
    if (after === null) break;
  }
  return { items, next: after };
}

/** Moves focus to the page's heading when `key` changes within the page (a view opened from a link or after a change), not on the first render. */
export function useFocusTitleOnChange(key: string): void {
  const first = useRef(true);
  useLayoutEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById("page-title")?.focus();
  }, [key]);
}
