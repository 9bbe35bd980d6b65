/**
 * @module Benchmark of `/api/events` on a real `charter node`: many connected clients, commits at a
 * steady rate, and how long each commit takes to reach the clients as a frame.
 *
 * Besides the node, four processes, so that no side's work hides in another's: this one (set-up,
 * figures); a poster (`--role poster`: every command of a phase signed before it starts, then
 * posted on a schedule — one every 1/rate ms — over up to 128 keep-alive connections); and two
 * client processes (`--role clients`) of raw WebSocket clients on plain TCP sockets — the
 * handshake, then frames read by their headers only, pings answered. One holds the `--probes`
 * clients, which also parse each frame and note when it arrived; the other the rest (the sinks),
 * whose reads would otherwise delay the probes' notes behind hundreds of other sockets.
 * Subjects are about 100 characters, so a frame is about 230 bytes.
 *
 * Latency, two ways. `commit_to_frame` (the target's figure) is from the commit — its history
 * entry's `committed_at`, the engine's clock as it planned the batch, before its fsync, in whole ms —
 * to the moment a probe read the frame, on the wall clock both read: the fsync, the notice to the
 * gateway, the wait for the next batch of frames, the fan-out. `post_to_frame` is from the moment
 * the poster wrote the command to its socket, on the monotonic clock (`process.hrtime`): the whole
 * write path as well, which the fan-out's CPU slows too. The baselines, measured in the same run:
 * the same commits with one connected client, and each command's own answer (post to receipt,
 * `post_to_receipt`). The sinks run at the lowest CPU priority: they stand in for devices
 * elsewhere, and take only the CPU the node and the probes leave. Phases, each `--seconds` long at `--rate` commits/s:
 *   0. no client (the gateway's CPU without the stream);
 *   1. one reading client (baseline);
 *   2. `--clients` reading clients;
 *   3. the same plus `--stalled` clients that complete the handshake and never read again: the
 *      readers' latency with them against phase 2's, and how many of them the node closed with
 *      4008 (each first fills its kernel socket buffers, a few MB on loopback).
 * The gateway's resident memory (VmRSS of its process, from the lock file's pid) is read at the
 * start and after each phase, its growth counted from after phase 0 (the same commits without a
 * client); the CPU each process used is printed per phase, to read the figures against the cores
 * they share. Targets (reported, not asserted): p99 < 50 ms, RSS growth < 100 MB. Everything runs
 * on one machine: on 2 cores, the clients' reads alone take most of a core at 1,000 clients.
 *
 *   node bench/events.ts                              # 1,000 clients, 20 s phases, 1,000 commits/s
 *   node bench/events.ts --clients 200 --seconds 10   # a quicker run
 *   node bench/events.ts --rate 500 --stalled 50 --probes 20
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { availableParallelism, setPriority } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { connectChannel } from "../shared/channel/socket.ts";
import { fromPrivateJwk, signCommand, toPrivateJwk } from "../shared/identity/index.ts";
import type { AdminRequests } from "../shared/protocol/admin.ts";
import { readFrames } from "../test/helpers/ws-frame-reader.ts";
import { ApiClient, createAccount, printedSetupCode } from "../test/helpers/api-client.ts";
import { cleanup, lockOf, startCharter, stopCharter, tempDataDir } from "../test/helpers/charter-process.ts";
import { seed } from "../test/helpers/seed.ts";
import { percentile, report, rssMb } from "./lib.ts";
import { Client, cpuMs, type Req, req } from "./support/http-load.ts";

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const note = (text: string) => process.stderr.write(`# ${text}\n`);
/** The monotonic clock every process of the bench reads, in ms. */
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
/** The wall clock, in ms with a fraction: what a commit's `committed_at` (the engine's Date.now()) is compared with. */
const wallMs = () => performance.timeOrigin + performance.now();

// ---- The client process -------------------------------------------------------------------------

type ToClients = { type: "connect"; readers: number; probes: number } | { type: "stall"; count: number } | { type: "reset" } | { type: "collect" };
type FromClients =
  | { type: "connected"; open: number; failed: number; ms: number }
  | { type: "stalled"; open: number }
  | { type: "reset" }
  | { type: "collected"; arrivals: number[]; minFrames: number; maxFrames: number; readers: number; closed: number };

/** Pads subjects to about 100 characters. */
const SUBJECT_PAD = "s".repeat(90);

/** A pong, masked (as a client's frames must be) with a zero key, empty. */
const PONG = Buffer.from([0x8a, 0x80, 0, 0, 0, 0]);

interface Reader {
  frames: number;
  closed: boolean;
}

async function runClients(): Promise<void> {
  const port = Number(process.env.BENCH_PORT);
  const headers = `Cookie: ${process.env.BENCH_COOKIE}\r\nOrigin: ${process.env.BENCH_ORIGIN}\r\n`;
  const readers: Reader[] = [];
  const stalled: Socket[] = [];
  // Probe arrivals: triples (commit index, arrival ms on the monotonic clock, on the wall clock), flat.
  let arrivals: number[] = [];
  // The sinks stand in for other devices: at the lowest priority, their reads take only the CPU
  // the node and the probes leave, as they would from other machines.
  if (process.env.BENCH_SINKS === "1") setPriority(19);

  /** Opens one socket; resolves with it, paused, once the 101 has arrived, and the bytes after it. */
  const open = (): Promise<{ socket: Socket; first: Buffer }> =>
    new Promise((resolve, reject) => {
      const socket = connect({ port, host: "127.0.0.1", noDelay: true });
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        socket.off("data", onData);
        if (!head.subarray(0, 12).toString().startsWith("HTTP/1.1 101")) {
          socket.destroy();
          reject(new Error(head.subarray(0, Math.min(head.length, 200)).toString()));
          return;
        }
        socket.pause();
        resolve({ socket, first: head.subarray(end + 4) });
      };
      socket.on("data", onData);
      socket.on("error", reject);
      socket.on("connect", () =>
        socket.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\n${headers}\r\n`),
      );
    });

  const reader = async (probe: boolean): Promise<void> => {
    const r: Reader = { frames: 0, closed: false };
    const { socket, first } = await open();
    let rest: Buffer = Buffer.alloc(0);
    const take = (chunk: Buffer) => {
      const at = nowMs();
      const wall = wallMs();
      const { frames, rest: left } = readFrames(rest.length === 0 ? chunk : Buffer.concat([rest, chunk]));
      rest = left;
      for (const f of frames) {
        if (f.op === 0x89) socket.write(PONG);
        else if (f.op === 0x88) r.closed = true;
        else if (f.op === 0x81) {
          r.frames++;
          if (probe) {
            const subject = (JSON.parse(f.payload.toString("utf8")) as { subject: string }).subject;
            const dash = subject.lastIndexOf("-");
            if (subject.startsWith("e")) arrivals.push(Number(subject.slice(dash + 1)), at, wall);
          }
        }
      }
    };
    if (first.length > 0) take(first);
    socket.on("data", take);
    socket.resume();
    socket.on("close", () => (r.closed = true));
    socket.on("error", () => (r.closed = true));
    readers.push(r);
  };

  process.on("message", async (raw) => {
    const m = raw as ToClients;
    const send = (out: FromClients) => process.send?.(out);
    if (m.type === "connect") {
      const started = nowMs();
      let failed = 0;
      const jobs: Promise<void>[] = [];
      for (let i = 0; i < m.readers; i++) {
        jobs.push(reader(i < m.probes).catch(() => void failed++));
        // A few hundred handshakes at a time, as browsers coming back would.
        if (jobs.length >= 200) await Promise.all(jobs.splice(0));
      }
      await Promise.all(jobs);
      send({ type: "connected", open: readers.length, failed, ms: nowMs() - started });
    } else if (m.type === "stall") {
      for (let i = 0; i < m.count; i++) stalled.push((await open()).socket);
      send({ type: "stalled", open: stalled.length });
    } else if (m.type === "reset") {
      arrivals = [];
      for (const r of readers) r.frames = 0;
      send({ type: "reset" });
    } else if (m.type === "collect") {
      const live = readers.filter((r) => !r.closed);
      send({
        type: "collected",
        arrivals,
        minFrames: live.length === 0 ? 0 : Math.min(...live.map((r) => r.frames)),
        maxFrames: live.length === 0 ? 0 : Math.max(...live.map((r) => r.frames)),
        readers: live.length,
        closed: readers.length - live.length,
      });
    }
  });
  process.send?.({ type: "ready" });
}

// ---- The poster process -------------------------------------------------------------------------

type ToPoster = { type: "sign"; phase: number; count: number } | { type: "go"; rate: number };
type FromPoster = { type: "signed"; ms: number } | { type: "posted"; sentAt: number[]; answeredAt: number[]; bad: number; firstBad: string | null; seconds: number };

async function runPoster(): Promise<void> {
  const port = Number(process.env.BENCH_PORT);
  const key = fromPrivateJwk(JSON.parse(process.env.BENCH_KEY as string));
  if (!key.ok) throw new Error("bench: bad key");
  const clients = Array.from({ length: 128 }, () => new Client(port));
  let signed: Req[] = [];
  process.on("message", async (raw) => {
    const m = raw as ToPoster;
    const send = (out: FromPoster) => process.send?.(out);
    if (m.type === "sign") {
      const started = nowMs();
      const issuedAt = new Date().toISOString();
      signed = Array.from({ length: m.count }, (_, i) =>
        req(
          "/v1/acme/acme.bench/actions/Increment",
          signCommand(key.value, { tenant: "acme", namespace: "acme.bench", action: "Increment", subject: `e${m.phase}-${SUBJECT_PAD}-${i}`, args: { by: 1 }, idempotencyKey: `e${m.phase}-${i}`, issuedAt }),
        ),
      );
      send({ type: "signed", ms: nowMs() - started });
      return;
    }
    const count = signed.length;
    const sentAt = new Array<number>(count).fill(0);
    const answeredAt = new Array<number>(count).fill(0);
    let bad = 0;
    let firstBad: string | null = null;
    const free = [...clients];
    let next = 0;
    let done = 0;
    const start = nowMs();
    await new Promise<void>((resolve) => {
      const pump = () => {
        const due = Math.min(count, Math.floor((nowMs() - start) * (m.rate / 1000)) + 1);
        while (next < due && free.length > 0) {
          const i = next++;
          // The longest idle connection first: none sits past the server's keep-alive timeout.
          const client = free.shift() as Client;
          sentAt[i] = nowMs();
          client.send((signed[i] as Req).bytes).then(
            ({ status, head }) => {
              answeredAt[i] = nowMs();
              if (status !== 200) {
                bad++;
                firstBad ??= `HTTP ${status}: ${head.toString()}`;
              }
              free.push(client);
              if (++done === count) resolve();
            },
            (error: Error) => {
              bad++;
              firstBad ??= error.message;
              free.push(client);
              if (++done === count) resolve();
            },
          );
        }
        if (next < count) setTimeout(pump, 1);
      };
      pump();
    });
    send({ type: "posted", sentAt, answeredAt, bad, firstBad, seconds: (nowMs() - start) / 1000 });
  });
  process.send?.({ type: "ready" });
}

// ---- The run ------------------------------------------------------------------------------------

/** A forked role of this file, and a way to ask it something and wait for its answer of `type`. */
function role(name: string, env: Record<string, string>): { child: ChildProcess; ask: <T>(message: object, type: string) => Promise<T>; ready: Promise<void> } {
  const child = fork(fileURLToPath(import.meta.url), ["--role", name], { env: { ...process.env, ...env }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const ask = <T>(message: object, type: string) =>
    new Promise<T>((resolve) => {
      const on = (m: { type: string }) => {
        if (m.type !== type) return;
        child.off("message", on);
        resolve(m as T);
      };
      child.on("message", on);
      child.send(message);
    });
  const ready = new Promise<void>((resolve) => child.once("message", () => resolve()));
  return { child, ask, ready };
}

type Connected = Extract<FromClients, { type: "connected" }>;
type Collected = Extract<FromClients, { type: "collected" }>;

interface PhaseResult {
  readonly frame: number[];
  readonly fromCommit: number[];
  readonly receipt: number[];
  readonly rate: number;
  readonly commits: number;
  readonly minFrames: number;
  readonly maxFrames: number;
  readonly readers: number;
  readonly cpu: Record<string, number>;
}

async function main(): Promise<void> {
  const CLIENTS = Number(option("--clients") ?? 1000);
  const SECONDS = Number(option("--seconds") ?? 20);
  const RATE = Number(option("--rate") ?? 1000);
  const STALLED = Number(option("--stalled") ?? 50);
  const PROBES = Math.min(CLIENTS, Number(option("--probes") ?? 20));
  const counter = readFileSync(new URL("./contracts/counter.charter.md", import.meta.url), "utf8");

  const dataDir = tempDataDir("charter-bench-events-");
  const seeded = await seed(dataDir, { tenant: "acme", members: 0, contracts: [counter] });
  const nodeOptions = option("--node-options");
  const node = await startCharter({ edition: "node", dataDir, timeoutMs: 30_000, ...(nodeOptions === undefined ? {} : { env: { NODE_OPTIONS: nodeOptions } }) });
  const children: ChildProcess[] = [];
  try {
    const api = new ApiClient(node);
    const { cookie } = await createAccount(api, printedSetupCode(node));
    const accounts = new DatabaseSync(join(dataDir, "accounts.db"), { readOnly: true });
    const person = (accounts.prepare("SELECT did FROM account").get() as { did: string }).did;
    accounts.close();
    const admin = await connectChannel<AdminRequests, Record<string, never>>(join(dataDir, "admin.sock"));
    if (!(await admin.request("tenant-member-add", { tenant: "acme", did: person })).ok) throw new Error("bench setup: member-add");
    admin.close();
    const { workers } = lockOf(dataDir);
    const gateway = workers.gateway as number;
    const pids: Record<string, number> = { gateway, engine: workers.engine as number };
    const env = { BENCH_PORT: new URL(node.url).port, BENCH_COOKIE: cookie, BENCH_ORIGIN: api.origin, BENCH_KEY: JSON.stringify(toPrivateJwk(seeded.owner)) };
    // The probes have a process of their own: a probe notes a frame's arrival when its process gets
    // to it, which in the sinks' process would wait behind hundreds of other sockets' reads.
    const probes = role("clients", env);
    const sinks = role("clients", { ...env, BENCH_SINKS: "1" });
    const poster = role("poster", env);
    children.push(probes.child, sinks.child, poster.child);
    await Promise.all([probes.ready, sinks.ready, poster.ready]);
    pids.probes = probes.child.pid as number;
    pids.sinks = sinks.child.pid as number;
    pids.poster = poster.child.pid as number;
    note(`${availableParallelism()} cores; node ${process.version}; ${CLIENTS} clients (${PROBES} probes), ${SECONDS} s phases at ${RATE} commits/s, ${STALLED} stalled`);

    const phase = async (n: number): Promise<PhaseResult> => {
      const count = Math.round(SECONDS * RATE);
      await poster.ask({ type: "sign", phase: n, count }, "signed");
      await Promise.all([probes.ask({ type: "reset" }, "reset"), sinks.ask({ type: "reset" }, "reset")]);
      const cpuBefore = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)]));
      const posted = await poster.ask<Extract<FromPoster, { type: "posted" }>>({ type: "go", rate: RATE }, "posted");
      // The last frames are on their way.
      await new Promise((r) => setTimeout(r, 1000));
      const cpu = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, (cpuMs(pid) - (cpuBefore[k] as number)) / (posted.seconds + 1)]));
      const [got, sunk] = await Promise.all([probes, sinks].map((p) => p.ask<Extract<FromClients, { type: "collected" }>>({ type: "collect" }, "collected"))) as [Collected, Collected];
      if (posted.bad > 0) note(`phase ${n}: ${posted.bad} commands not committed; first: ${posted.firstBad}`);
      // When each commit of the phase was made: the engine's clock as it planned the batch, before its
      // fsync, in whole ms (so commit_to_frame counts the fsync and up to 1 ms more, never less).
      const committedAt = new Map<number, number>();
      const store = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
      for (const row of store.prepare("SELECT subject, committed_at AS at FROM history WHERE subject LIKE ?").iterate(`e${n}-%`) as Iterable<{ subject: string; at: number }>) {
        committedAt.set(Number(row.subject.slice(row.subject.lastIndexOf("-") + 1)), row.at);
      }
      store.close();
      const frame: number[] = [];
      const fromCommit: number[] = [];
      for (let k = 0; k < got.arrivals.length; k += 3) {
        const i = got.arrivals[k] as number;
        const sent = posted.sentAt[i];
        if (sent !== undefined && sent > 0) frame.push((got.arrivals[k + 1] as number) - sent);
        const at = committedAt.get(i);
        if (at !== undefined) fromCommit.push((got.arrivals[k + 2] as number) - at);
      }
      fromCommit.sort((a, b) => a - b);
      const receipt = posted.sentAt.map((s, i) => (posted.answeredAt[i] as number) - s).filter((d) => d > 0);
      frame.sort((a, b) => a - b);
      receipt.sort((a, b) => a - b);
      return {
        frame,
        fromCommit,
        receipt,
        rate: count / posted.seconds,
        commits: count - posted.bad,
        minFrames: got.readers + sunk.readers === 0 ? 0 : Math.min(...[got, sunk].filter((c) => c.readers > 0).map((c) => c.minFrames)),
        maxFrames: Math.max(got.maxFrames, sunk.maxFrames),
        readers: got.readers + sunk.readers,
        cpu,
      };
    };
    const printCpu = (name: string, r: PhaseResult) =>
      note(`${name}: CPU ms per s — ${Object.entries(r.cpu).map(([k, v]) => `${k} ${Math.round(v)}`).join(", ")}; commits ${r.commits} at ${Math.round(r.rate)}/s; frames per reader ${r.minFrames}–${r.maxFrames} of ${r.commits} (${r.readers} readers)`);

    const rssIdle = rssMb(gateway);
    const none = await phase(0);
    printCpu("no client", none);
    const rssNone = rssMb(gateway);
    const first = await probes.ask<Connected>({ type: "connect", readers: 1, probes: 1 }, "connected");
    if (first.open !== 1) throw new Error("bench: the first client did not connect");
    const one = await phase(1);
    printCpu("1 reader", one);
    const rssOne = rssMb(gateway);

    const [moreProbes, sunk] = await Promise.all([
      probes.ask<Connected>({ type: "connect", readers: PROBES - 1, probes: PROBES - 1 }, "connected"),
      sinks.ask<Connected>({ type: "connect", readers: CLIENTS - PROBES, probes: 0 }, "connected"),
    ]);
    note(`${moreProbes.open + sunk.open} clients connected (${moreProbes.failed + sunk.failed} failed) in ${Math.round(Math.max(moreProbes.ms, sunk.ms))} ms`);
    await new Promise((r) => setTimeout(r, 2000));
    const rssConnected = rssMb(gateway);
    const many = await phase(2);
    printCpu(`${CLIENTS} readers`, many);
    const rssAfterMany = rssMb(gateway);

    const stalled = await sinks.ask<Extract<FromClients, { type: "stalled" }>>({ type: "stall", count: STALLED }, "stalled");
    const closedBefore = closedBehind(dataDir);
    const withStalled = await phase(3);
    printCpu(`${CLIENTS} readers + ${stalled.open} stalled`, withStalled);
    const rssAfterStalled = rssMb(gateway);
    const closedStalled = closedBehind(dataDir) - closedBefore;

    const target = { p99: "< 50 ms", rss: "< 100 MB" };
    report("events.commit_to_frame_p50_ms", percentile(many.fromCommit, 50), "ms", { label: "1 client", value: percentile(one.fromCommit, 50), higherIsBetter: false });
    report("events.commit_to_frame_p99_ms", percentile(many.fromCommit, 99), "ms", { label: "1 client", value: percentile(one.fromCommit, 99), higherIsBetter: false, target: target.p99 });
    report("events.post_to_frame_p50_ms", percentile(many.frame, 50), "ms", { label: "1 client", value: percentile(one.frame, 50), higherIsBetter: false });
    report("events.post_to_frame_p99_ms", percentile(many.frame, 99), "ms", { label: "1 client", value: percentile(one.frame, 99), higherIsBetter: false });
    report("events.post_to_frame_p50_ms", percentile(many.frame, 50), "ms", { label: `post_to_receipt, ${CLIENTS} clients`, value: percentile(many.receipt, 50), higherIsBetter: false });
    report("events.post_to_frame_p99_ms", percentile(many.frame, 99), "ms", { label: `post_to_receipt, ${CLIENTS} clients`, value: percentile(many.receipt, 99), higherIsBetter: false });
    report("events.post_to_receipt_p99_ms", percentile(many.receipt, 99), "ms", { label: "1 client", value: percentile(one.receipt, 99), higherIsBetter: false });
    report("events.commits_per_s", many.rate, "commits/s", { label: "asked", value: RATE, higherIsBetter: true });
    report("events.frames_per_reader_min", many.minFrames, "frames", { label: "commits", value: many.commits, higherIsBetter: true });
    report("events.readers_commit_to_frame_p50_with_stalled_ms", percentile(withStalled.fromCommit, 50), "ms", { label: "without", value: percentile(many.fromCommit, 50), higherIsBetter: false });
    report("events.readers_commit_to_frame_p99_with_stalled_ms", percentile(withStalled.fromCommit, 99), "ms", { label: "without", value: percentile(many.fromCommit, 99), higherIsBetter: false, target: target.p99 });
    report("events.frames_per_reader_min_with_stalled", withStalled.minFrames, "frames", { label: "commits", value: withStalled.commits, higherIsBetter: true });
    report("events.stalled_closed_4008", closedStalled, "clients", { label: "stalled", value: stalled.open, higherIsBetter: true });
    const gatewayCpu = (r: PhaseResult) => r.cpu.gateway as number;
    report("events.gateway_cpu_ms_per_s_1_client", gatewayCpu(one), "ms/s", { label: "no client", value: gatewayCpu(none), higherIsBetter: false });
    report(`events.gateway_cpu_ms_per_s_${CLIENTS}_clients`, gatewayCpu(many), "ms/s", { label: "no client", value: gatewayCpu(none), higherIsBetter: false });
    report("events.gateway_rss_idle_mb", rssIdle, "MB");
    const afterNone = { label: "after the same commits without clients", value: rssNone, higherIsBetter: false };
    report("events.gateway_rss_after_commits_no_client_mb", rssNone, "MB", { label: "idle", value: rssIdle, higherIsBetter: false });
    report("events.gateway_rss_after_1_client_mb", rssOne, "MB", afterNone);
    report(`events.gateway_rss_${CLIENTS}_connected_mb`, rssConnected, "MB", afterNone);
    report("events.gateway_rss_after_load_mb", rssAfterMany, "MB", afterNone);
    report("events.gateway_rss_after_stalled_mb", rssAfterStalled, "MB", afterNone);
    report("events.gateway_rss_growth_mb", Math.max(rssAfterMany, rssAfterStalled) - rssNone, "MB", { label: "target", value: 100, higherIsBetter: false, target: target.rss });
  } finally {
    for (const c of children) c.kill("SIGKILL");
    await stopCharter(node);
    cleanup(dataDir);
  }
}

/** Sockets the node closed with 4008, from its log. */
function closedBehind(dataDir: string): number {
  return readFileSync(join(dataDir, "logs", "charter.log"), "utf8")
    .split("\n")
    .filter((line) => line.includes('"msg":"event socket closed"') && line.includes('"code":4008')).length;
}

const ROLE = option("--role");
if (ROLE === "clients") await runClients();
else if (ROLE === "poster") await runPoster();
else await main();
