/** @module A small contract using every kind of declaration, for the language service's unit tests. */
import { openDocument, type ContractDocument } from "../document.ts";
import { contractFile, cursor } from "./cursor-marker.ts";

/** The fixture's block body. The cursor marker is `‸` (the language uses `|`). */
export const FIXTURE = `namespace acme.test
version 1.0.0

enum Status(New, Done)

record Row {
  id: Text(len=128)
  total: Int
}

aggregate Order {
  public status: Status = New
  public owner: Identity
  public units: Int = 0
  public kind: Enum(Small, Large) = Small

  action Place(units: Int, kind: Enum(Small, Large)) api authenticated {
    authorize member
    validate {
      state.status == New
      units > 0
    }
    apply {
      state.units = units
      state.kind = kind
      state.owner = context.signer
    }
  }
}

query Totals(min: Int) returns List<Row> pipe
  Order
  | where units >= $min
  | let total = units * 2
  | select subject as id, total`;

/** The fixture file with `from` replaced by `to` (which holds the cursor marker `‸`), opened at the cursor. */
export function at(from: string, to: string): { doc: ContractDocument; offset: number } {
  if (!FIXTURE.includes(from)) throw new Error(`fixture has no ${from}`);
  const { text, offset } = cursor(contractFile(FIXTURE.replace(from, to)), "‸");
  return { doc: openDocument(text, openDocument(contractFile(FIXTURE))), offset };
}
