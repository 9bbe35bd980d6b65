/**
 * @module A generated contract of a given number of lines (an aggregate with many actions and
 * queries), for the language server's latency test and benchmark. It compiles without diagnostics.
 */

/** A `*.charter.md` file of at least `lines` lines. */
export function largeContract(lines: number): string {
  const fields = 40;
  const out = ["# Large", "", "A generated contract for latency tests.", "", "```charter", "namespace bench.large", "version 1.0.0", "", "enum Status(New, Open, Closed)", ""];
  out.push("aggregate Ledger {", "  public status: Status = New", "  public owner: Identity", "  public note: Text(len=200)");
  for (let f = 0; f < fields; f++) out.push(`  public f${f}: Int = 0`);
  const tail = ["}", "", "query Open() returns List<Ledger> api authenticated pipe", "  Ledger", "  | where status == Open", "  | sort key", "  | take 100", "```"];
  for (let i = 0; out.length + tail.length + 1 < lines; i++) {
    const f = `f${i % fields}`;
    out.push(
      "",
      `  action Op${i}(amount: Int, memo: Text(len=100)) api authenticated {`,
      "    authorize member",
      "    validate {",
      "      state.status != Closed",
      "      amount > 0",
      `      state.${f} + amount < 1000000`,
      "      len(memo) <= 100",
      "    }",
      "    apply {",
      `      state.${f} = state.${f} + amount`,
      "      state.note = memo",
      "      state.status = Open",
      "      state.owner = context.signer",
      "    }",
      "  }",
    );
  }
  return [...out, ...tail, ""].join("\n");
}
