/** Arguments of `std.invoices`' `Record` for invoice `n` of the tests (reference `ref-n`, digest `dn`). */
export function invoiceArgs(n: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    reference: `ref-${n}`,
    supplier: "Acme Paper",
    number: `INV-${n}`,
    amount_minor: 1000 + n,
    currency: "EUR",
    issued_on: "2026-11-01",
    due_on: "2026-12-01",
    source: "mail",
    digest: `d${n}`,
    note: "",
    ...overrides,
  };
}
