/**
 * @module A dashboard's result as `std.dashboards` stores it: the JSON text of every panel's rows,
 * `[{"rows": […], "truncated": false}, …]`, within the `result` field's length. Rows that do not
 * fit are left out, a panel's from the first that does not fit on, and that panel says
 * `truncated: true`. The panels share the room fairly: rows are taken in turns, the first row of
 * each panel, then the second of each, and so on, so one long panel cannot crowd out the others.
 */

/** The `result` field's length (`Text(len=65536)` in `std.dashboards`). */
export const RESULT_LEN = 65_536;

/** One panel of a stored result. */
export interface PanelResult {
  readonly rows: readonly unknown[];
  readonly truncated: boolean;
}

/** The result's text and what it holds. */
export interface FittedResult {
  readonly text: string;
  readonly panels: readonly PanelResult[];
}

// `{"rows":[],"truncated":false}`: a panel without its rows (`true` is one character shorter).
const PANEL_OVERHEAD = '{"rows":[],"truncated":false}'.length;

/**
 * The panels' rows cut to fit `budget` characters of JSON (counted in UTF-16 code units, never fewer
 * than the code points the contract counts). Each row is serialised once, and serialising stops
 * once no panel can take another row.
 */
export function fitResult(panels: readonly (readonly unknown[])[], budget = RESULT_LEN): FittedResult {
  const parts: string[][] = panels.map(() => []);
  const truncated = panels.map(() => false);
  const open = new Set(panels.keys());
  // `[` and `]`, each panel's frame, and the commas between panels.
  let used = 2 + panels.length * PANEL_OVERHEAD + Math.max(0, panels.length - 1);
  for (let r = 0; open.size > 0; r++) {
    for (const p of [...open]) {
      const rows = panels[p] as readonly unknown[];
      if (r >= rows.length) {
        open.delete(p);
        continue;
      }
      const text = JSON.stringify(rows[r], jsonSafe) ?? "null";
      const cost = text.length + (r > 0 ? 1 : 0);
      if (used + cost > budget) {
        truncated[p] = true;
        open.delete(p);
        continue;
      }
      used += cost;
      (parts[p] as string[]).push(text);
    }
  }
  const text = `[${parts.map((rows, p) => `{"rows":[${rows.join(",")}],"truncated":${String(truncated[p])}}`).join(",")}]`;
  return { text, panels: parts.map((rows, p) => ({ rows: panels[p]?.slice(0, rows.length) ?? [], truncated: truncated[p] === true })) };
}

/** A stored result's panels, or null when `text` is empty (never refreshed) or not a result. */
export function parseResult(text: string): PanelResult[] | null {
  if (text === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value)) return null;
  return value.map((p: unknown) => {
    const panel = (typeof p === "object" && p !== null ? p : {}) as { rows?: unknown; truncated?: unknown };
    return { rows: Array.isArray(panel.rows) ? panel.rows : [], truncated: panel.truncated === true };
  });
}

// A query's Int beyond ±2^53 comes as a string already; a bigint anywhere is written as its digits.
function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}
