/**
 * @module Benchmark of knowledge search on a real `charter node`: a vault of 10,000 Markdown notes
 * (`--notes N`; ~200 words each from a vocabulary of 5,000 made-up words, a few wiki links and a
 * tag) is written into the vault's folder before the node starts, taken in by its first scan (each
 * note a `std.knowledge` record and a blob: the import's time is printed), then searched over
 * `POST /api/knowledge {operation: "search"}` with one- and two-word queries. Baseline, same run:
 * the same FTS5 query (with its snippet) run in-process on the node's index file, i.e. what the
 * route, the session check and HTTP add. Target (reported, not asserted): p50 < 10 ms.
 *
 *   node bench/knowledge.ts               # 10,000 notes
 *   node bench/knowledge.ts --notes 2000  # a quicker run
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ApiClient, createAccount, printedSetupCode } from "../test/helpers/api-client.ts";
import { cleanup, startCharter, stopCharter, tempDataDir, waitFor } from "../test/helpers/charter-process.ts";
import { ftsQuery } from "../workers/gateway/api/knowledge/knowledge-index.ts";
import { percentile, report } from "./lib.ts";

const at = process.argv.indexOf("--notes");
const count = at >= 0 ? Number(process.argv[at + 1]) : 10_000;
const QUERIES = 400;

/** A small deterministic generator, so every run searches the same vault. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = random(42);
const syllables = ["ka", "lo", "mi", "ren", "tu", "sa", "vor", "el", "qui", "dan", "po", "ris", "ne", "ba", "zu", "tor"];
const vocabulary = Array.from({ length: 5000 }, () => Array.from({ length: 2 + Math.floor(next() * 3) }, () => syllables[Math.floor(next() * syllables.length)]).join(""));
// Zipf-like: a few words are common, most are rare.
const word = () => vocabulary[Math.floor(vocabulary.length * next() ** 3)] as string;

async function main(): Promise<void> {
  const work = tempDataDir("charter-bench-knowledge-");
  const dataDir = join(work, "data");
  const vault = join(dataDir, "vaults", "personal");
  for (let i = 0; i < count; i++) {
    const folder = join(vault, `f${i % 50}`);
    if (i < 50) mkdirSync(folder, { recursive: true });
    const words = Array.from({ length: 200 }, word).join(" ");
    writeFileSync(join(folder, `note-${i}.md`), `# ${word()} ${word()}\n\n${words}\n\nSee [[note-${(i * 7) % count}]] and [[note-${(i * 13) % count}]]. #bench\n`);
  }

  const node = await startCharter({ edition: "node", dataDir, timeoutMs: 60_000 });
  try {
    const api = new ApiClient(node);
    const t0 = performance.now();
    const { cookie } = await createAccount(api, printedSetupCode(node));
    const search = (q: string) => api.call("POST", "/api/knowledge", { cookie, body: { operation: "search", args: { q, limit: 10 } } });
    // The first scan takes every note in before the vault answers.
    await waitFor(
      "the vault's notes taken in",
      async () => {
        const tags = await api.call("POST", "/api/knowledge", { cookie, body: { operation: "tags", args: {} } });
        return tags.status === 200 && tags.body.items?.[0]?.count === count ? true : undefined;
      },
      30 * 60_000,
    );
    const importMs = performance.now() - t0;

    const queries = Array.from({ length: QUERIES }, (_, i) => (i % 2 === 0 ? word() : `${word()} ${word().slice(0, 3)}`));
    for (const q of queries.slice(0, 20)) await search(q);
    const route: number[] = [];
    let hits = 0;
    for (const q of queries) {
      const t = performance.now();
      const answer = await search(q);
      route.push(performance.now() - t);
      if (answer.status !== 200) throw new Error(`search: ${answer.status} ${JSON.stringify(answer.body)}`);
      hits += answer.body.items.length;
    }

    // The baseline: the same query on the same index, in-process.
    const db = new DatabaseSync(join(dataDir, "knowledge", "index.db"), { readOnly: true });
    const statement = db.prepare(
      "SELECT n.path, n.title, snippet(notes_fts, 1, '**', '**', '…', 16) AS snippet, bm25(notes_fts, 4.0, 1.0) AS rank FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid WHERE notes_fts MATCH ? AND n.vault = ? ORDER BY rank LIMIT 10",
    );
    for (const q of queries.slice(0, 20)) statement.all(ftsQuery(q), "personal");
    const direct: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      statement.all(ftsQuery(q), "personal");
      direct.push(performance.now() - t);
    }
    db.close();
    route.sort((a, b) => a - b);
    direct.sort((a, b) => a - b);
    process.stdout.write(`# ${process.env.CHARTER_BENCH_NOTE ?? ""}${count} notes taken in by the first scan in ${(importMs / 1000).toFixed(1)} s (${((count / importMs) * 1000).toFixed(0)} notes/s); ${QUERIES} searches, ${(hits / QUERIES).toFixed(1)} hits each\n`);
    report("knowledge.search_p50_ms", percentile(route, 50), "ms", { label: "FTS5 in-process", value: percentile(direct, 50), higherIsBetter: false, target: "< 10 ms" });
    report("knowledge.search_p99_ms", percentile(route, 99), "ms", { label: "FTS5 in-process", value: percentile(direct, 99), higherIsBetter: false });
  } finally {
    await stopCharter(node);
    cleanup(work);
  }
}

await main();
