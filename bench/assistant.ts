/**
 * @module Benchmark of the assistant's turns on a real `charter node`, the model being the
 * OpenAI-protocol test double on this machine (it answers at once unless told to wait):
 *
 * (a) Turn overhead: from `POST /api/messages` to the turn's first `text` frame on `/api/events`
 *     (the node writes the message and the turn, queues it, the assistant worker claims it, loads
 *     the conversation, memory, rules and tools, calls the model; the double answers at once):
 *     p50 and p99 over sequential turns (target p50 < 20 ms). Baseline in the same run: from
 *     `POST /api/memory` (one signed write) to its `commit` frame on the same socket.
 * (b) Relay latency: each streamed piece, from the moment the double writes it to its `text`
 *     frame on `/api/events` (through the assistant worker and the gateway): p50 and p99 (target
 *     p99 < 10 ms). Baseline in the same run: the same pieces read straight from the double by
 *     the official `openai` client in this process.
 * (c) 20 turns in flight: task creations per second through `POST /api/tasks` (32 clients) while
 *     20 turns stream slowly, against the same with no turn running, rounds alternating; and the
 *     time each of the 20 turns took to its first text (none waits for another).
 *
 *   node bench/assistant.ts               # default: ~1 minute
 *   node bench/assistant.ts --turns 100   # sequential turns of (a) (default 150)
 *
 * Benchmarks print; they never assert.
 */
import OpenAI from "openai";
import { ApiClient, createAccount, printedSetupCode, stepUp } from "../test/helpers/api-client.ts";
import { cleanup, lockOf, startCharter, stopCharter, tempDataDir, waitFor } from "../test/helpers/charter-process.ts";
import { FrameLog } from "../test/helpers/assistant-node.ts";
import { OpenAiDouble } from "../test/helpers/model-doubles/openai-double.ts";
import { percentile, report } from "./lib.ts";
import { drive, type Req } from "./support/http-load.ts";

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const TURNS = Number(option("--turns") ?? 150);
const RELAY_TURNS = 10;
const RELAY_PIECES = 50;
const RELAY_GAP_MS = 5;
const IN_FLIGHT_TURNS = 20;
const ROUNDS = 3;
const CREATES = 3000;
const note = (text: string) => process.stderr.write(`# ${text}\n`);
const now = () => performance.timeOrigin + performance.now();

const model = await OpenAiDouble.start({ models: ["m1"] });
const dataDir = tempDataDir("charter-bench-assistant-");
const node = await startCharter({ edition: "node", dataDir });
try {
  const api = new ApiClient(node);
  const { cookie, auth } = await createAccount(api, printedSetupCode(node));
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { cookie, ...(body === undefined ? {} : { body }) });
  await stepUp(api, auth, cookie);
  const must = async (what: string, answer: Promise<{ status: number; body: unknown }>) => {
    const a = await answer;
    if (a.status >= 300) throw new Error(`${what}: ${a.status} ${JSON.stringify(a.body)}`);
    return a.body as any;
  };
  await must("connection", call("PUT", "/api/connections/local/key", { provider: "openai", key: "", baseUrl: model.baseURL, memory: true }));
  await must("model", call("PUT", "/api/settings/models", { conversation: { connection: "local", model: "m1" } }));
  await waitFor("the node's contracts", async () => ((await call("PUT", "/api/settings/tools", { tools: { "std.tasks.Open": "read", "std.tasks.Create": "ask" } })).status === 200 ? true : undefined), 20_000);
  for (let i = 0; i < 20; i++) await must("note", call("POST", "/api/memory", { text: `a memory note ${i} about the person` }));
  const events = await FrameLog.open(node, api, cookie);
  /** When each turn's first text frame arrived, and each commit frame by subject. */
  const firstText = new Map<string, number>();
  const commits = new Map<string, number>();
  const relay: number[] = [];
  const sentAt = new Map<string, number>();
  events.ws.on("message", (data) => {
    const t = now();
    const frame = JSON.parse(String(data)) as { kind: string; turn?: string; delta?: string; subject?: string };
    if (frame.kind === "text" && frame.turn !== undefined) {
      if (!firstText.has(frame.turn)) firstText.set(frame.turn, t);
      const sent = sentAt.get(String(frame.delta));
      if (sent !== undefined) relay.push(t - sent);
    } else if (frame.kind === "commit" && frame.subject !== undefined && !commits.has(frame.subject)) commits.set(frame.subject, t);
  });
  const say = async (text: string) => (await must("say", call("POST", "/api/messages", { text }))).turn as string;
  const settled = (turn: string) => waitFor(`turn ${turn}`, async () => (["done", "failed", "cancelled"].includes((await call("GET", `/api/turns/${turn}`)).body.status) ? true : undefined), 30_000);

  // (a) Turn overhead, alternating with the baseline.
  for (let i = 0; i < 10; i++) {
    model.reply({ text: ["warm"] });
    await settled(await say("warm up"));
  }
  const overhead: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    model.reply({ text: [`answer ${i}`] });
    const t0 = now();
    const turn = await say(`question ${i}`);
    await waitFor("first text", () => (firstText.has(turn) ? true : undefined), 10_000);
    overhead.push((firstText.get(turn) as number) - t0);
    await settled(turn);
    const b0 = now();
    const noteId = (await must("note", call("POST", "/api/memory", { text: `baseline ${i}` }))).id as string;
    await waitFor("commit", () => (commits.has(noteId) ? true : undefined), 10_000);
    baseline.push((commits.get(noteId) as number) - b0);
  }
  overhead.sort((x, y) => x - y);
  baseline.sort((x, y) => x - y);
  report("assistant.turn_overhead_p50", percentile(overhead, 50), "ms", { label: "a signed write to its commit frame", value: percentile(baseline, 50), higherIsBetter: false, target: "p50 < 20 ms" });
  report("assistant.turn_overhead_p99", percentile(overhead, 99), "ms", { label: "a signed write to its commit frame", value: percentile(baseline, 99), higherIsBetter: false });

  // (b) Relay latency of streamed pieces, and the same pieces read straight from the double.
  const pieces = (tag: string) => Array.from({ length: RELAY_PIECES }, (_, i) => `${tag}-${i} `);
  for (let t = 0; t < RELAY_TURNS; t++) {
    const text = pieces(`r${t}`);
    model.reply({ text, delayMs: RELAY_GAP_MS, onFrame: (i) => i >= 1 && i <= text.length && sentAt.set(text[i - 1] as string, now()) });
    await settled(await say(`stream ${t}`));
  }
  const direct: number[] = [];
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: "none", maxRetries: 0 });
  for (let t = 0; t < RELAY_TURNS; t++) {
    const text = pieces(`d${t}`);
    const sent = new Map<string, number>();
    model.reply({ text, delayMs: RELAY_GAP_MS, onFrame: (i) => i >= 1 && i <= text.length && sent.set(text[i - 1] as string, now()) });
    const stream = await client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "direct" }], stream: true });
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.content;
      const at = delta === undefined || delta === null ? undefined : sent.get(delta);
      if (at !== undefined) direct.push(now() - at);
    }
  }
  relay.sort((x, y) => x - y);
  direct.sort((x, y) => x - y);
  note(`relay: ${relay.length} pieces through the node, ${direct.length} read directly`);
  report("assistant.relay_p50", percentile(relay, 50), "ms", { label: "read straight from the double", value: percentile(direct, 50), higherIsBetter: false });
  report("assistant.relay_p99", percentile(relay, 99), "ms", { label: "read straight from the double", value: percentile(direct, 99), higherIsBetter: false, target: "p99 < 10 ms" });

  // (c) The write rate with 20 slow turns in flight, against none.
  const port = Number(new URL(node.url).port);
  const session = { cookie, origin: api.origin, host: `127.0.0.1:${port}` };
  const create = (tag: string): Req[] =>
    Array.from({ length: CREATES }, (_, i) => {
      const body = JSON.stringify({ title: `${tag} ${i}` });
      return { bytes: Buffer.from(`POST /api/tasks HTTP/1.1\r\nHost: ${session.host}\r\nCookie: ${session.cookie}\r\nOrigin: ${session.origin}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`, "utf8") };
    });
  const pids = lockOf(dataDir).workers as Record<string, number>;
  await drive(port, create("warm"), { receipts: false, inFlight: 32 });
  const quiet: number[] = [];
  const busy: number[] = [];
  const firsts: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const q = await drive(port, create(`quiet${round}`), { receipts: false, inFlight: 32, pids });
    quiet.push(CREATES / q.seconds);
    const started: { turn: string; t0: number }[] = [];
    for (let i = 0; i < IN_FLIGHT_TURNS; i++) model.reply({ text: Array.from({ length: 80 }, (_, k) => `slow${round}-${i}-${k} `), delayMs: 50 });
    await Promise.all(
      Array.from({ length: IN_FLIGHT_TURNS }, async (_, i) => {
        const t0 = now();
        started.push({ turn: await say(`slow ${round} ${i}`), t0 });
      }),
    );
    const b = await drive(port, create(`busy${round}`), { receipts: false, inFlight: 32, pids });
    busy.push(CREATES / b.seconds);
    for (const s of started) {
      await waitFor("first text", () => (firstText.has(s.turn) ? true : undefined), 30_000);
      firsts.push((firstText.get(s.turn) as number) - s.t0);
    }
    await call("POST", "/api/cancel", {});
    for (const s of started) await settled(s.turn);
  }
  quiet.sort((x, y) => x - y);
  busy.sort((x, y) => x - y);
  firsts.sort((x, y) => x - y);
  report("assistant.creates_with_20_turns", busy[Math.floor(busy.length / 2)] as number, "tasks/s", { label: "no turn running", value: quiet[Math.floor(quiet.length / 2)] as number, higherIsBetter: true, target: "unchanged within noise" });
  report("assistant.first_text_of_20_in_flight_max", firsts.at(-1) as number, "ms", { label: "p50", value: percentile(firsts, 50), higherIsBetter: false });
  events.close();
} finally {
  await stopCharter(node);
  await model.close();
  cleanup(dataDir);
}
