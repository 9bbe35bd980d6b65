/**
 * @module Calc's currency rates: the table the node converts currencies with (`GET /api/calc/rates`:
 * its base, each currency's rate against it and the day it is of), a form to set one rate
 * (`PUT /api/calc/rates {base?, rates: {CODE: rate}, date?}`) and a button to remove one
 * (`{rates: {CODE: null}}`), both through the step-up prompt when the node asks for it. A refusal
 * shows next to the field the node names (`#/base`, `#/date`, `#/rates/CODE` — next to the
 * currency when the node says the code is not one, which it does naming the code in quotes, next
 * to the rate otherwise); the rest is the form's error line. What a code or a rate may be is the
 * node's to say: the page only trims and capitalises the codes typed.
 */
import { useRef, useState } from "preact/hooks";
import { api, messageOf, Refusal } from "../lib/api.ts";
import { useBusy, useLoad } from "../lib/hooks.ts";
import { withStepUp } from "../lib/stepup.ts";
import { Button, Empty, ErrorNote, Field, Status } from "./ui.tsx";

/** A rate as the node lists it: how many of `code` one unit of the base buys, as of `date`. */
interface RateItem {
  readonly code: string;
  readonly rate: number;
  readonly date: string;
}

/** The node's rates table (`base` null before any rate is set). */
interface RateTable {
  readonly base: string | null;
  readonly items: readonly RateItem[];
}

type FieldName = "code" | "rate" | "base" | "date";

/** The node's words for each field of the form its refusal names, and what names none. */
function placed(error: unknown, code: string): { fields: Partial<Record<FieldName, string>>; rest: string | null } {
  const fields: Partial<Record<FieldName, string>> = {};
  if (!(error instanceof Refusal)) return { fields, rest: messageOf(error) };
  for (const entry of error.body?.errors ?? []) {
    const pointer = entry.pointer ?? "";
    const detail = entry.detail;
    if (typeof detail !== "string") continue;
    let name: FieldName | null = null;
    if (pointer === "#/base") name = "base";
    else if (pointer === "#/date") name = "date";
    else if (pointer.startsWith("#/rates/")) name = detail.startsWith(JSON.stringify(code.slice(0, 64))) ? "code" : "rate";
    if (name !== null && fields[name] === undefined) fields[name] = detail;
  }
  return { fields, rest: Object.keys(fields).length === 0 ? messageOf(error) : null };
}

/** The "Currency rates" section; `onChange` is told when the node's table changed. */
export function CalcRates(props: { onChange: () => void }) {
  const rates = useLoad(() => api<RateTable>("GET", "/api/calc/rates"));
  const form = useRef<HTMLFormElement>(null);
  const [code, setCode] = useState("");
  const [rate, setRate] = useState("");
  const [base, setBase] = useState<string | null>(null);
  const [date, setDate] = useState("");
  const [busy, setBusy] = useState(false);
  const [named, setNamed] = useState<Partial<Record<FieldName, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [remove, removing, removeError] = useBusy();

  const table = rates.data;
  /** The base field shows the table's base until the person types another. */
  const baseValue = base ?? table?.base ?? "";

  const put = (body: Record<string, unknown>) => withStepUp(() => api<RateTable>("PUT", "/api/calc/rates", body));
  const changed = (answer: RateTable) => {
    rates.set({ base: answer.base, items: answer.items });
    props.onChange();
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const sentCode = code.trim().toUpperCase();
    const sentBase = baseValue.trim().toUpperCase();
    const body: Record<string, unknown> = { rates: { [sentCode]: rate.trim() } };
    if (sentBase !== "") body["base"] = sentBase;
    if (date !== "") body["date"] = date;
    setBusy(true);
    setNamed({});
    setFormError(null);
    setDone(null);
    try {
      const answer = await put(body);
      changed(answer);
      const item = answer.items.find((i) => i.code === sentCode);
      setDone(item === undefined ? `${sentCode} set.` : `${sentCode} set: 1 ${answer.base ?? ""} = ${item.rate} ${item.code}, as of ${item.date}.`);
      setCode("");
      setRate("");
      setBase(null);
    } catch (failure) {
      const { fields, rest } = placed(failure, sentCode);
      setNamed(fields);
      setFormError(rest);
      const first = (["code", "rate", "base", "date"] as const).find((name) => fields[name] !== undefined);
      if (first !== undefined) requestAnimationFrame(() => form.current?.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus());
    } finally {
      setBusy(false);
    }
  };

  const invalid = (name: FieldName) => (named[name] === undefined ? undefined : "true");

  return (
    <section aria-labelledby="calc-rates-title" class="calc-rates">
      <h2 id="calc-rates-title">Currency rates</h2>
      <p>
        The rates the lines convert currencies with{table?.base ? `, each said against one ${table.base}` : ""}. A converted amount shows the day of the oldest rate it used.
      </p>
      <ErrorNote error={rates.error ?? removeError} />
      {table === null ? null : table.items.length === 0 ? (
        <Empty>No rates yet: set the first one below, naming its base currency.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="calc-rate-table">
            <caption class="calc-sr">Rates against {table.base}</caption>
            <thead>
              <tr>
                <th scope="col">Currency</th>
                <th scope="col">Per 1 {table.base}</th>
                <th scope="col">As of</th>
                <th scope="col">
                  <span class="calc-sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {table.items.map((item) => (
                <tr key={item.code} data-code={item.code}>
                  <th scope="row">
                    {item.code}
                    {item.code === table.base ? <span class="badge">base</span> : null}
                  </th>
                  <td class="calc-rate">{String(item.rate)}</td>
                  <td class="calc-rate-date">
                    <time dateTime={item.date}>{item.date}</time>
                  </td>
                  <td>
                    {item.code === table.base ? null : (
                      <Button
                        kind="danger"
                        busy={removing}
                        aria-label={`Remove the ${item.code} rate`}
                        onClick={() =>
                          void remove(async () => {
                            setDone(null);
                            changed(await put({ rates: { [item.code]: null } }));
                            setDone(`${item.code} removed.`);
                          })
                        }
                      >
                        Remove
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3 id="calc-rate-form-title">Set a rate</h3>
      <form ref={form} class="calc-rate-form" aria-labelledby="calc-rate-form-title" onSubmit={(e) => void submit(e)}>
        <Field label="Currency" hint="Its ISO code, e.g. USD" error={named.code}>
          {(id, describedBy) => (
            <input id={id} data-field="code" required autoComplete="off" autoCapitalize="characters" spellcheck={false} value={code} aria-describedby={describedBy} aria-invalid={invalid("code")} onInput={(e) => setCode(e.currentTarget.value)} />
          )}
        </Field>
        <Field label="Rate" hint={`How many of it one ${baseValue.trim() === "" ? "unit of the base" : baseValue.trim().toUpperCase()} buys`} error={named.rate}>
          {(id, describedBy) => <input id={id} data-field="rate" required inputMode="decimal" autoComplete="off" spellcheck={false} value={rate} aria-describedby={describedBy} aria-invalid={invalid("rate")} onInput={(e) => setRate(e.currentTarget.value)} />}
        </Field>
        <Field label="Base currency" hint={table?.base ? "Another base starts a new table: the rates not named again are removed" : "The first rate names it"} error={named.base}>
          {(id, describedBy) => <input id={id} data-field="base" autoComplete="off" autoCapitalize="characters" spellcheck={false} value={baseValue} aria-describedby={describedBy} aria-invalid={invalid("base")} onInput={(e) => setBase(e.currentTarget.value)} />}
        </Field>
        <Field label="As of" hint="Today when left empty" error={named.date}>
          {(id, describedBy) => <input id={id} data-field="date" type="date" value={date} aria-describedby={describedBy} aria-invalid={invalid("date")} onInput={(e) => setDate(e.currentTarget.value)} />}
        </Field>
        <Button type="submit" kind="primary" busy={busy}>
          Set the rate
        </Button>
      </form>
      <ErrorNote error={formError} />
      {done === null ? null : <Status>{done}</Status>}
    </section>
  );
}
