/**
 * @module Benchmark of the app in Debian's Chromium against a real `charter node` (playwright-core).
 *
 * `--part load` (first load of `/`): a fresh browser context per run (nothing cached), the page
 * opened and its first contentful paint read from Chromium's own timing
 * (`performance.getEntriesByName("first-contentful-paint")`), alternating with a bare static page
 * (an h1 and a paragraph, no script, served by a plain node:http server on the same machine) as the
 * baseline. The JavaScript a first load fetches is summed from the page's resource timing
 * (`encodedBodySize`: as sent, brotli-compressed), for the set-up page a new node shows and for the
 * signed-in Home page. Targets: < 150 KB compressed, first contentful paint < 500 ms.
 *
 * `--part activity` (a commit reaching the open Activity page): the person signed in, Activity
 * open, `--commands` tasks created one every `--gap` ms through `POST /api/tasks` from this
 * process; a MutationObserver in the page notes when each commit's row appears (wall clock, in
 * ms with fractions); a raw `/api/events` WebSocket client in this process notes when the frame
 * arrives (the baseline: what the page cannot beat). Latency is from the request's send. Target:
 * p99 < 100 ms.
 *
 *   node bench/app.ts                       # both parts
 *   node bench/app.ts --part load --runs 30
 *   node bench/app.ts --part activity --commands 300 --gap 30
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { WebSocket } from "ws";
import { CHROMIUM, CHROMIUM_ARGS, openApp } from "../test/helpers/browser.ts";
import { percentile, report } from "./lib.ts";

const { values } = parseArgs({ options: { part: { type: "string", default: "all" }, runs: { type: "string", default: "20" }, commands: { type: "string", default: "200" }, gap: { type: "string", default: "50" } } });
const now = () => performance.timeOrigin + performance.now();
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

const BARE = Buffer.from('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bare</title></head><body><h1>A bare page</h1><p>Static text, no script.</p></body></html>');

async function load(runs: number): Promise<void> {
  const bare = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": BARE.length }).end(BARE));
  bare.listen(0, "127.0.0.1");
  await once(bare, "listening");
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  const app = await openApp();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    /** FCP (ms) and JS bytes of one cold load of `url`, in a fresh context. */
    const cold = async (url: string, ready: string) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(url);
      await page.locator(ready).first().waitFor();
      const measured = await page.evaluate(() => {
        const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN;
        const js = (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).filter((e) => e.name.endsWith(".js")).reduce((sum, e) => sum + e.encodedBodySize, 0);
        return { fcp, js };
      });
      await context.close();
      return measured;
    };
    const appFcp: number[] = [];
    const bareFcp: number[] = [];
    let setupJs = 0;
    for (let i = 0; i < runs + 2; i++) {
      const a = await cold(`${app.origin}/`, "h1");
      const b = await cold(bareUrl, "h1");
      if (i < 2) continue; // warm the node and the browser's process pool
      appFcp.push(a.fcp);
      bareFcp.push(b.fcp);
      setupJs = a.js;
    }
    report("app_first_load_js_setup_page", setupJs / 1024, "KB compressed", { label: "target", value: 150, higherIsBetter: false, target: "< 150 KB" });
    report("app_fcp_p50", median(appFcp), "ms", { label: "bare static page", value: median(bareFcp), higherIsBetter: false, target: "< 500 ms" });
    report("app_fcp_p95", percentile([...appFcp].sort((x, y) => x - y), 95), "ms", { label: "bare static page", value: percentile([...bareFcp].sort((x, y) => x - y), 95), higherIsBetter: false });
    // Signed in: Home's first load (shell, Home's chunk, and their styles), cache cleared.
    await app.setUp();
    const cdp = await app.context.newCDPSession(app.page);
    await cdp.send("Network.clearBrowserCache");
    await app.page.goto(`${app.origin}/`);
    await app.page.getByRole("heading", { name: /^Hello/ }).waitFor();
    const homeJs = await app.page.evaluate(() => (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).filter((e) => e.name.endsWith(".js")).reduce((sum, e) => sum + e.encodedBodySize, 0));
    report("app_first_load_js_home_signed_in", homeJs / 1024, "KB compressed", { label: "target", value: 150, higherIsBetter: false, target: "< 150 KB" });
  } finally {
    await browser.close();
    await app.close();
    bare.close();
  }
}

async function activity(commands: number, gapMs: number): Promise<void> {
  const app = await openApp();
  try {
    await app.setUp();
    // The tasks contract installs just after set-up.
    for (let i = 0; i < 100 && (await app.call("GET", "/api/tasks")).status !== 200; i++) await new Promise((r) => setTimeout(r, 200));
    await app.open("activity", "Activity");
    await app.page.evaluate(() => {
      const seen = new Map<string, number>();
      (globalThis as unknown as { __seen: Map<string, number> }).__seen = seen;
      new MutationObserver((records) => {
        const at = performance.timeOrigin + performance.now();
        for (const record of records)
          for (const node of record.addedNodes) {
            if (!(node instanceof HTMLElement)) continue;
            for (const row of [node, ...node.querySelectorAll<HTMLElement>("[data-seq]")]) {
              const seq = row.dataset.seq;
              if (seq !== undefined && !seen.has(seq)) seen.set(seq, at);
            }
          }
      }).observe(document.body, { childList: true, subtree: true });
    });
    const cookie = (await app.context.cookies(app.origin)).map((c) => `${c.name}=${c.value}`).join("; ");
    const raw = new Map<string, number>();
    const ws = new WebSocket(`${app.origin.replace(/^http/, "ws")}/api/events`, { headers: { cookie, origin: app.origin } });
    ws.on("message", (data) => {
      const at = now();
      const frame = JSON.parse(String(data)) as { kind: string; seq?: number };
      if (frame.kind === "commit" && frame.seq !== undefined) raw.set(String(frame.seq), at);
    });
    await once(ws, "open");
    const sent = new Map<string, number>();
    for (let i = 0; i < commands; i++) {
      const t0 = now();
      const res = await fetch(`${app.origin}/api/tasks`, { method: "POST", headers: { cookie, origin: app.origin, "content-type": "application/json" }, body: JSON.stringify({ title: `bench task ${i}` }) });
      const body = (await res.json()) as { receipt?: { seq: number } };
      if (body.receipt !== undefined) sent.set(String(body.receipt.seq), t0);
      const wait = gapMs - (now() - t0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    await new Promise((r) => setTimeout(r, 1000));
    const seen = new Map(await app.page.evaluate(() => [...(globalThis as unknown as { __seen: Map<string, number> }).__seen]));
    const page: number[] = [];
    const frame: number[] = [];
    let missing = 0;
    for (const [seq, t0] of sent) {
      const shown = seen.get(seq);
      const arrived = raw.get(seq);
      if (shown === undefined) missing++;
      else page.push(shown - t0);
      if (arrived !== undefined) frame.push(arrived - t0);
    }
    page.sort((a, b) => a - b);
    frame.sort((a, b) => a - b);
    ws.close();
    process.stdout.write(`commands ${sent.size}, shown on the page ${page.length}, not shown ${missing}\n`);
    report("activity_send_to_row_p50", percentile(page, 50), "ms", { label: "raw /api/events client", value: percentile(frame, 50), higherIsBetter: false });
    report("activity_send_to_row_p99", percentile(page, 99), "ms", { label: "raw /api/events client", value: percentile(frame, 99), higherIsBetter: false, target: "< 100 ms" });
  } finally {
    await app.close();
  }
}

if (values.part === "all" || values.part === "load") await load(Number(values.runs));
if (values.part === "all" || values.part === "activity") await activity(Number(values.commands), Number(values.gap));
