/**
 * @module Calc (`#/calc`): the calculator notebook. The lines are a textarea; a moment after each
 * change the node evaluates them all (`POST /api/calc`) and each line's result — or its error, the
 * others still evaluated — shows beside it (under it at phone width, with the line repeated). The
 * lines are kept in this browser (`localStorage`). What a line may say is the node's: the page
 * neither parses nor computes. Under the sheet, the currency rates the node converts with, and a
 * form to set one (components/calc-rates.tsx); the lines are evaluated again when they change.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, messageOf } from "../lib/api.ts";
import { ErrorNote, PageHead } from "../components/ui.tsx";
import { CalcRates } from "../components/calc-rates.tsx";
import "./calc.css";

type LineResult = { readonly kind?: string; readonly value: unknown; readonly text: string; readonly unit?: string; readonly rate?: { readonly date: string } } | { readonly error: string };

const STORE_KEY = "charter.calc.lines";
const EXAMPLE = "# A line per calculation; names carry to later lines\nrent = 1200\nrent * 12\n20% of 85\n5 km + 300 m in m\ndays until 2027-01-01";
const DEBOUNCE_MS = 300;

function saved(): string {
  try {
    return localStorage.getItem(STORE_KEY) ?? EXAMPLE;
  } catch {
    return EXAMPLE;
  }
}

export default function CalcPage() {
  const [text, setText] = useState(saved);
  const [results, setResults] = useState<readonly LineResult[] | null>(null);
  /** The lines `results` answer (they lag `text` while the node is asked). */
  const [answered, setAnswered] = useState<readonly string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** Bumped when the node's rates change, so the lines are evaluated again. */
  const [ratesChanged, setRatesChanged] = useState(0);
  const area = useRef<HTMLTextAreaElement>(null);
  const column = useRef<HTMLOListElement>(null);

  useEffect(() => {
    try {
      localStorage.setItem(STORE_KEY, text);
    } catch {
      // Storage full or refused: the lines still evaluate.
    }
    const lines = text.split("\n");
    const abort = new AbortController();
    const timer = setTimeout(() => {
      setBusy(true);
      api<{ results: LineResult[] }>("POST", "/api/calc", { lines }, { signal: abort.signal }).then(
        (answer) => {
          setResults(answer.results);
          setAnswered(lines);
          setError(null);
          setBusy(false);
        },
        (failure: unknown) => {
          if (abort.signal.aborted) return;
          setError(messageOf(failure));
          setBusy(false);
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [text, ratesChanged]);

  const lines = text.split("\n");
  const rows = Math.max(8, lines.length + 1);
  const syncScroll = () => {
    if (area.current !== null && column.current !== null) column.current.scrollTop = area.current.scrollTop;
  };
  const errors = (results ?? []).map((r, i) => ({ r, i })).filter((x): x is { r: { error: string }; i: number } => "error" in x.r);

  return (
    <>
      <PageHead title="Calc">
        <p>One calculation a line: arithmetic, percentages, units, dates and currencies. A name set on one line is read on the later ones.</p>
      </PageHead>
      <div class="calc-sheet">
        <div class="calc-input">
          <label for="calc-lines">Lines</label>
          <textarea id="calc-lines" ref={area} class="calc-lines" rows={rows} wrap="off" spellcheck={false} autoComplete="off" value={text} aria-describedby="calc-hint" onInput={(e) => setText(e.currentTarget.value)} onScroll={syncScroll} />
          <small id="calc-hint" class="hint">
            Evaluated as you type; kept in this browser. Lines starting with # are comments.
          </small>
        </div>
        <div class="calc-output">
          <h2 id="calc-results-title" class="calc-results-title">
            Results
          </h2>
          <ol ref={column} class="calc-results" aria-labelledby="calc-results-title" aria-busy={busy ? "true" : "false"}>
            {(results ?? []).map((r, i) => (
              <Result key={i} result={r} line={answered[i] ?? ""} n={i + 1} />
            ))}
          </ol>
        </div>
      </div>
      <ErrorNote error={error} />
      {errors.length === 0 ? null : (
        <section aria-labelledby="calc-errors-title">
          <h2 id="calc-errors-title">Errors</h2>
          <ul class="calc-errors">
            {errors.map(({ r, i }) => (
              <li key={i}>
                Line {i + 1} (<code>{answered[i] ?? ""}</code>): {r.error}
              </li>
            ))}
          </ul>
        </section>
      )}
      <CalcRates onChange={() => setRatesChanged((n) => n + 1)} />
    </>
  );
}

function Result(props: { result: LineResult; line: string; n: number }) {
  const r = props.result;
  const blank = !("error" in r) && r.text === "";
  return (
    <li class={"error" in r ? "calc-error" : blank ? "calc-blank" : "calc-value"} data-line={props.n}>
      <span class="calc-line">
        <span class="calc-n">{props.n}</span> <code>{props.line}</code>
      </span>
      {"error" in r ? (
        <span class="calc-text" title={r.error}>
          <span class="calc-sr">error: </span>
          {r.error}
        </span>
      ) : blank ? (
        <span class="calc-text calc-sr">blank</span>
      ) : (
        <span class="calc-text" title={r.rate === undefined ? r.text : `${r.text} (rate of ${r.rate.date})`}>
          <output>{r.text}</output>
          {r.rate === undefined ? null : <small class="muted"> rate of {r.rate.date}</small>}
        </span>
      )}
    </li>
  );
}
