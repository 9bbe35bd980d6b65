/**
 * @module Benchmark of the durable outbox on a real `charter node`: N effects of the local no-op
 * connector, each journaled before it is acted on (appended through the engine's socket, as the
 * gateway queues them) and receipted after (marked done with its signed receipt), timed from the
 * first append to the last receipt. Baseline, same run, same node, same socket: the journal's own
 * append → claim → ack of N entries of another topic by this process, in batches of the same size
 * the outbox claims — the work every effect needs before any connector runs. Target (reported, not
 * asserted): ≥ 2,000 effects/s.
 *
 *   node bench/outbox.ts            # 20,000 effects
 *   node bench/outbox.ts --n 5000
 */
import { dataPaths } from "../shared/worker/config.ts";
import { EngineLink } from "../shared/worker/engine-link.ts";
import { cleanup, startCharter, stopCharter, waitFor } from "../test/helpers/charter-process.ts";
import { report } from "./lib.ts";

const at = process.argv.indexOf("--n");
const n = at >= 0 ? Number(process.argv[at + 1]) : 20_000;
/** Appends in flight at once (the gateway's routes queue effects concurrently). */
const CONCURRENCY = 64;
const BATCH = 512;

async function appendAll(engine: EngineLink, topic: string, payload: (i: number) => unknown, prefix: string): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        await engine.request("journal-append", { topic, payload: payload(i), key: `${prefix}-${i}` });
      }
    }),
  );
}

const node = await startCharter({ edition: "node" });
const engine = new EngineLink(dataPaths(node.dataDir).engineSocket);
try {
  // Warm both paths (the connections, the statements) with a few entries.
  await engine.request("journal-append", { topic: "effect", payload: { connector: "noop", effect: "nothing", account: null, args: {} }, key: "warm" });

  // Baseline: the journal's own append → claim → ack, by this process.
  const b0 = performance.now();
  await appendAll(engine, "bench", (i) => ({ i }), "base");
  let acked = 0;
  while (acked < n) {
    const claimed = await engine.request("journal-claim", { claimant: "bench#1", topics: ["bench"], limit: BATCH });
    if (claimed.length === 0) continue;
    acked += (await engine.request("journal-ack", { claimant: "bench#1", ids: claimed.map((e) => e.id) })).length;
  }
  const baseMs = performance.now() - b0;

  // The outbox: the same appends as effects; done when every one has its receipt.
  const done0 = (await engine.request("journal-stats", {})).done;
  const t0 = performance.now();
  await appendAll(engine, "effect", () => ({ connector: "noop", effect: "nothing", account: null, args: {} }), "effect");
  await waitFor("every effect receipted", async () => ((await engine.request("journal-stats", {})).done - done0 >= n ? true : undefined), 600_000);
  const outboxMs = performance.now() - t0;
  const sample = await engine.request("journal-list", { topic: "effect", states: ["done"], limit: 1, newestFirst: true });
  if (typeof (sample[0]?.result as { receipt?: unknown } | null)?.receipt !== "string") throw new Error("a done effect has no receipt");

  process.stdout.write(`# ${n} effects: outbox ${outboxMs.toFixed(0)} ms; journal append → ack ${baseMs.toFixed(0)} ms\n`);
  report("outbox.effects_per_s", n / (outboxMs / 1000), "effects/s", { label: "journal append → claim → ack", value: n / (baseMs / 1000), higherIsBetter: true, target: "≥ 2,000/s" });
} finally {
  await engine.close();
  await stopCharter(node);
  cleanup(node.dataDir);
}
