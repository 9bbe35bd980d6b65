/**
 * @module Benchmark of `POST /api/data/preview` on a real `charter node`: the latency of a preview
 * (sign as the person, the engine's checks and program, nothing committed) p50/p99, one request at
 * a time, against two baselines from the same run — the same action through `POST /api/data/act`
 * (which also commits and fsyncs) and a record read (`GET /api/personal/std.invoices/Invoice/{id}`:
 * the `/api` stack and one snapshot read, no engine). Rounds alternate the three, so drift hits all
 * alike. Target: preview p50 < 3 ms. Run alone: `node bench/preview.ts [previews, default 2000]`
 * under Node 24.
 */
import { ApiClient, createAccount, printedSetupCode } from "../test/helpers/api-client.ts";
import { cleanup, startCharter, stopCharter } from "../test/helpers/charter-process.ts";
import { percentile, report } from "./lib.ts";

const PREVIEWS = Number(process.argv[2] ?? "2000");
const ROUNDS = 10;
const WARM_UP = 100;

const invoice = (i: number) => ({
  reference: `ref-${i}`,
  supplier: "Acme Paper",
  number: `INV-${i}`,
  amount_minor: 1250 + i,
  currency: "EUR",
  issued_on: "2026-11-01",
  due_on: "2026-12-01",
  source: "bench",
  digest: `d-${i}`,
  note: "",
});

const node = await startCharter({ edition: "node" });
try {
  const api = new ApiClient(node);
  const { cookie } = await createAccount(api, printedSetupCode(node));
  const headers = { cookie, origin: api.origin, "content-type": "application/json" };
  let made = 0;

  /** One request's latency in ms; fails on any status but `ok`. */
  const timed = async (method: string, path: string, body: unknown, ok: number): Promise<number> => {
    const t = performance.now();
    const res = await fetch(`${node.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    const ms = performance.now() - t;
    if (res.status !== ok) throw new Error(`bench: ${method} ${path} answered ${res.status} ${text}`);
    return ms;
  };
  const preview = () => timed("POST", "/api/data/preview", { namespace: "std.invoices", action: "Record", subject: `inv-p-${++made}`, args: invoice(made) }, 200);
  const act = () => timed("POST", "/api/data/act", { namespace: "std.invoices", action: "Record", subject: `inv-a-${++made}`, args: invoice(made) }, 200);
  const read = () => timed("GET", "/api/personal/std.invoices/Invoice/inv-a-first", undefined, 200);

  await timed("POST", "/api/data/act", { namespace: "std.invoices", action: "Record", subject: "inv-a-first", args: invoice(0) }, 200);
  for (let i = 0; i < WARM_UP; i++) {
    await preview();
    await act();
    await read();
  }
  const previews: number[] = [];
  const acts: number[] = [];
  const reads: number[] = [];
  const perRound = Math.max(1, Math.ceil(PREVIEWS / ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < perRound; i++) previews.push(await preview());
    for (let i = 0; i < perRound / 2; i++) acts.push(await act());
    for (let i = 0; i < perRound; i++) reads.push(await read());
  }
  for (const s of [previews, acts, reads]) s.sort((a, b) => a - b);
  report("preview.p50_ms", percentile(previews, 50), "ms", { label: "the same action through /api/data/act", value: percentile(acts, 50), higherIsBetter: false, target: "< 3 ms" });
  report("preview.p99_ms", percentile(previews, 99), "ms", { label: "the same action through /api/data/act", value: percentile(acts, 99), higherIsBetter: false });
  report("preview.p50_ms", percentile(previews, 50), "ms", { label: "a record read", value: percentile(reads, 50), higherIsBetter: false });
  report("preview.p99_ms", percentile(previews, 99), "ms", { label: "a record read", value: percentile(reads, 99), higherIsBetter: false });
} finally {
  await stopCharter(node);
  cleanup(node.dataDir);
}
