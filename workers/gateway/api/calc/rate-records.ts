/**
 * @module The exchange rates the calculator converts with: records of `std.rates` in the personal
 * tenant, one per currency (its ISO code is the subject), each said against one base currency.
 * The table's base is the currency whose own record is said against itself (`per_base` "1"); a
 * rate said against another base (left from before the base changed) is not part of the table.
 *
 * Setting rates is the contract's `Set` and `Remove`, signed as the person, all previewed before
 * the first is written (personal/signed-write.ts), so a refused one leaves the table as it was.
 * A new base starts a new table: the rates it does not name are removed.
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWrite, PersonWriter } from "../personal/person-writer.ts";
import { type Signed, signedWrites } from "../personal/signed-write.ts";
import type { Rate } from "./notebook.ts";

export const RATES = "std.rates";
/** Most currencies a table keeps (ISO 4217 has about 180). */
export const MAX_RATES = 300;

/** The rates table: its base (null before any rate is set) and its rates, the base's own among them. */
export interface RateTable {
  readonly base: string | null;
  readonly items: readonly Rate[];
}

/** A change to the table, its fields checked (routes/calc.ts): a rate's decimal text, or null to remove it. */
export interface RateChange {
  readonly base: string | null;
  readonly rates: ReadonlyMap<string, string | null>;
  readonly date: string;
}

/** Reads the table. */
export function readRates(reader: PersonReader): RateTable {
  const { rows } = reader.query(undefined, RATES, "Rates", { limit: MAX_RATES });
  const own = rows.find((row) => row.code === row.base);
  if (own === undefined) return { base: null, items: [] };
  const base = String(own.base);
  const items = rows.filter((row) => row.base === base).map((row) => ({ code: String(row.code), perBase: String(row.per_base), date: String(row.date) }));
  return { base, items };
}

/** Applies `change` as the person; answers the table after it and the receipts of the writes. */
export async function writeRates(reader: PersonReader, writer: PersonWriter, change: RateChange): Promise<{ table: RateTable; signed: Signed[] }> {
  const current = readRates(reader);
  const base = change.base ?? current.base;
  if (base === null) throw badField("base", "the first rates name their base currency (base)");
  const rate = (code: string, perBase: string): PersonWrite => ({ namespace: RATES, action: "Set", subject: code, args: { base, per_base: perBase, date: change.date } });
  const remove = (code: string): PersonWrite => ({ namespace: RATES, action: "Remove", subject: code, args: {} });

  const kept = new Set(base === current.base ? current.items.map((item) => item.code) : []);
  const writes: PersonWrite[] = [];
  if (base !== current.base) {
    writes.push(rate(base, "1"));
    kept.add(base);
    // A new base: the old table's rates are said against another currency, so they go unless named now.
    for (const item of current.items) if (item.code !== base && !change.rates.has(item.code)) writes.push(remove(item.code));
  }
  for (const [code, perBase] of change.rates) {
    if (code === base) {
      if (perBase !== null && Number(perBase) === 1) continue;
      throw badField(`rates/${code}`, `${code} is the base: one ${code} is always 1 ${code}`);
    }
    if (perBase === null) {
      if (kept.delete(code) || current.items.some((item) => item.code === code)) writes.push(remove(code));
    } else {
      writes.push(rate(code, perBase));
      kept.add(code);
    }
  }
  if (kept.size > MAX_RATES) throw badField("rates", `a table keeps at most ${MAX_RATES} currencies`);
  const signed = await signedWrites(writer, writes);
  return { table: readRates(reader), signed };
}

function badField(field: string, detail: string): HttpProblem {
  return new HttpProblem(problem(400, "malformed-body", detail, [{ pointer: `#/${field}`, detail }]));
}
