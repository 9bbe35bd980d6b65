/**
 * @module Benchmark of the person's tasks on a real `charter node`, with bench/engine.ts's load
 * generator (raw HTTP/1.1 on keep-alive sockets):
 *
 * (b) `GET /api/agenda` for the 30 days from today with 10,000 tasks in the personal tenant (loaded
 *     first, signed through `/v1`): 90% with a due date spread over the year from 30 days ago (a
 *     quarter of them with a time of day), 2% repeating weekly, 5% done; the zone in the settings
 *     is Europe/Paris. One client, one request at a time: p50 and p99 (target p50 < 5 ms). Baseline
 *     in the same run, alternating in blocks: the bare declared query the agenda starts from —
 *     `std.tasks`'s `Due` for the same days — through `POST /v1/{tenant}/std.tasks/queries/Due`
 *     with a bearer token.
 * (a) Tasks created through `POST /api/tasks` (the route checks the body, signs `Create` as the
 *     person, the engine decides) per second against the same `Create` pre-signed and posted to
 *     `/v1` (by a member of the tenant), 32 keep-alive clients each, rounds alternating, median
 *     round (target ≥ 0.8x).
 *
 *   node bench/tasks.ts                 # default: ~1 minute
 *   node bench/tasks.ts --seconds 3     # shorter create runs (default 6 s each)
 *   node bench/tasks.ts --rounds 5      # rounds of each (default 3)
 *   node bench/tasks.ts --only create   # one part: agenda or create (the tasks are loaded either way)
 *
 * Both sides of each figure run on the same node in the same run; the machine's other load shows
 * in both. Benchmarks print; they never assert (a failed request is printed and exits non-zero).
 */
import { join } from "node:path";
import type { AdminRequests } from "../shared/protocol/admin.ts";
import { connectChannel } from "../shared/channel/socket.ts";
import { generateKeyPair, type KeyPair, signBearer, signCommand } from "../shared/identity/index.ts";
import { seededRandom } from "../shared/random.ts";
import { ApiClient, createAccount, printedSetupCode } from "../test/helpers/api-client.ts";
import { cleanup, lockOf, startCharter, stopCharter, tempDataDir, waitFor } from "../test/helpers/charter-process.ts";
import { percentile, report } from "./lib.ts";
import { Client, drive, type Req, req, type RunResult } from "./support/http-load.ts";

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const RUN_SECONDS = Number(option("--seconds") ?? 6);
const ROUNDS = Math.max(1, Number(option("--rounds") ?? 3));
const ONLY = option("--only");
if (ONLY !== undefined && ONLY !== "agenda" && ONLY !== "create") throw new Error("--only is agenda or create");
const IN_FLIGHT = 32;
const TASKS = 10_000;
const ZONE = "Europe/Paris";
const AGENDA_DAYS = 30;
const AGENDA_SAMPLES = 600;
const BLOCK = 100;
const note = (text: string) => process.stderr.write(`# ${text}\n`);
const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a day number (days since 1970-01-01). */
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** Today's day number in ZONE. */
const todayIn = (zone: string) => Math.floor(Date.parse(`${new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(Date.now())}T00:00:00Z`) / DAY_MS);

/** A request with the session cookie and the node's Origin (a browser's). */
function apiRequest(method: "GET" | "POST", path: string, session: { cookie: string; origin: string; host: string }, body?: string): Req {
  const length = body === undefined ? "" : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  return { bytes: Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: ${session.host}\r\nCookie: ${session.cookie}\r\nOrigin: ${session.origin}\r\n${length}\r\n${body ?? ""}`, "utf8") };
}

/** `Create`'s arguments for the bench's task `i` (a due date from `today - 30` over a year). */
function taskArgs(i: number, today: number, random: () => number): Record<string, unknown> {
  const hasDue = i % 10 !== 0;
  const day = today - 30 + Math.floor(random() * 365);
  const timed = hasDue && i % 4 === 1;
  const weekly = hasDue && i % 50 === 3;
  return {
    title: `bench task ${i}`,
    notes: i % 3 === 0 ? "some notes about it" : "",
    has_due: hasDue,
    due_on: hasDue ? dateOf(day) : "1970-01-01",
    // 08:00 UTC is 09:00 or 10:00 in Paris: the same day.
    due_at: timed ? day * DAY_MS + 8 * 3_600_000 : 0,
    repeat: weekly ? "Weekly" : "None",
    interval: weekly ? 1 : 0,
    repeat_rule: weekly ? "FREQ=WEEKLY;INTERVAL=1" : "",
    priority: i % 4,
    tags: i % 2 === 0 ? ["bench"] : [],
    links: [],
  };
}

/** Signed `/v1` commands, made now (a command's `issuedAt` must be fresh). */
function signed(member: KeyPair, tenant: string, action: string, items: readonly { subject: string; args: Record<string, unknown> }[]): Req[] {
  const issuedAt = new Date().toISOString();
  return items.map(({ subject, args }) => req(`/v1/${tenant}/std.tasks/actions/${action}`, signCommand(member, { tenant, namespace: "std.tasks", action, subject, args, idempotencyKey: `${action}-${subject}`, issuedAt })));
}

/** Sends each request in turn on one keep-alive connection; answers the latencies (ms) of the 200s, and the failures. */
async function sequential(client: Client, request: Req, count: number): Promise<{ latencies: number[]; bad: string[] }> {
  const latencies: number[] = [];
  const bad: string[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const { status, head } = await client.send(request.bytes);
    const ms = performance.now() - t0;
    if (status === 200) latencies.push(ms);
    else bad.push(`HTTP ${status}: ${head.toString("utf8")}`);
  }
  return { latencies, bad };
}

const medianRun = (runs: readonly RunResult[]) => [...runs].sort((a, b) => a.perS - b.perS)[Math.floor((runs.length - 1) / 2)] as RunResult;
const failures: string[] = [];
const check = (name: string, r: RunResult) => {
  if (r.bad > 0) failures.push(`${name}: ${r.bad} of ${r.count} failed; first: ${r.firstBad}`);
};

/** Thrown to end the run early (`--only agenda`). */
class Done extends Error {}

const dataDir = tempDataDir("charter-bench-tasks-");
const node = await startCharter({ edition: "node", dataDir, timeoutMs: 30_000 });
try {
  const port = Number(new URL(node.url).port);
  const api = new ApiClient(node);
  const { cookie } = await createAccount(api, printedSetupCode(node));
  const session = { cookie, origin: api.origin, host: `127.0.0.1:${port}` };
  const tenant = await waitFor("std.tasks in the personal tenant", async () => {
    const boot = (await api.call("GET", "/api/bootstrap", { cookie })).body;
    return (boot.tenant?.contracts as { namespace: string }[] | undefined)?.some((c) => c.namespace === "std.tasks") ? (boot.tenant.handle as string) : undefined;
  }, 30_000);
  if ((await api.call("PUT", "/api/account/settings", { cookie, body: { timeZone: ZONE } })).status !== 200) throw new Error("bench setup: time zone");
  // A member of the personal tenant signs the /v1 side (the person's own key stays sealed in the node).
  const member = generateKeyPair();
  const admin = await connectChannel<AdminRequests, Record<string, never>>(join(dataDir, "admin.sock"));
  if (!(await admin.request("tenant-member-add", { tenant, did: member.did })).ok) throw new Error("bench setup: member-add");
  admin.close();
  const { pid: supervisor, workers } = lockOf(dataDir);
  const pids: Record<string, number> = { ...workers, supervisor };

  // ---- (b) the agenda of a month over 10,000 tasks --------------------------------------------
  const today = todayIn(ZONE);
  const random = seededRandom(7);
  const loadStarted = performance.now();
  for (let from = 0; from < TASKS; from += 2000) {
    const items = Array.from({ length: Math.min(2000, TASKS - from) }, (_, k) => ({ subject: `task-bench-${String(from + k).padStart(5, "0")}`, args: taskArgs(from + k, today, random) }));
    check("load", await drive(port, signed(member, tenant, "Create", items), { receipts: true, inFlight: IN_FLIGHT }));
  }
  const done = Array.from({ length: TASKS / 20 }, (_, k) => ({ subject: `task-bench-${String(k * 20 + 5).padStart(5, "0")}`, args: { on: dateOf(today) } }));
  check("complete", await drive(port, signed(member, tenant, "Complete", done), { receipts: true, inFlight: IN_FLIGHT }));
  note(`loaded ${TASKS} tasks (${done.length} done) in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);

  const from = dateOf(today);
  const to = dateOf(today + AGENDA_DAYS - 1);
  const agenda = (await api.call("GET", `/api/agenda?from=${from}&to=${to}`, { cookie })).body;
  const items = (agenda.days as { items: { occurrence: boolean }[] }[]).flatMap((d) => d.items);
  const agendaReq = apiRequest("GET", `/api/agenda?from=${from}&to=${to}`, session);
  const bearer = signBearer(member, { tenant, namespace: "std.tasks", now: Date.now() });
  const queryBody = JSON.stringify({ params: { from, to, limit: 2001 } });
  const queryReq: Req = {
    bytes: Buffer.from(
      `POST /v1/${tenant}/std.tasks/queries/Due HTTP/1.1\r\nHost: ${session.host}\r\nAuthorization: Bearer ${bearer}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(queryBody)}\r\n\r\n${queryBody}`,
    ),
  };
  if (ONLY !== "create") {
    const client = new Client(port);
    await sequential(client, agendaReq, 50);
    await sequential(client, queryReq, 50);
    const agendaMs: number[] = [];
    const queryMs: number[] = [];
    for (let k = 0; k < AGENDA_SAMPLES / BLOCK; k++) {
      for (const [request, into, name] of [
        [agendaReq, agendaMs, "agenda"],
        [queryReq, queryMs, "/v1 Due query"],
      ] as const) {
        const r = await sequential(client, request, BLOCK);
        into.push(...r.latencies);
        if (r.bad.length > 0) failures.push(`${name}: ${r.bad.length} failed; first: ${r.bad[0]}`);
      }
    }
    client.close();
    agendaMs.sort((a, b) => a - b);
    queryMs.sort((a, b) => a - b);
    process.stdout.write(
      `# agenda of ${AGENDA_DAYS} days over ${TASKS} tasks (zone ${ZONE}): ${items.length} entries (${items.filter((i) => i.occurrence).length} repeating occurrences), ${agenda.overdue.length} overdue, ${Buffer.byteLength(JSON.stringify(agenda))} bytes; one client, ${agendaMs.length} requests, alternating in blocks of ${BLOCK} with the baseline\n`,
    );
    report("tasks.agenda.p50_ms", percentile(agendaMs, 50), "ms", { label: "/v1 Due query, same days", value: percentile(queryMs, 50), higherIsBetter: false, target: "p50 < 5 ms" });
    report("tasks.agenda.p99_ms", percentile(agendaMs, 99), "ms", { label: "/v1 Due query, same days", value: percentile(queryMs, 99), higherIsBetter: false });
  }
  if (ONLY === "agenda") throw new Done();

  // ---- (a) creating tasks: /api against signed /v1 --------------------------------------------
  const body = (tag: string, i: number) => JSON.stringify({ title: `created ${tag} ${i}`, due: dateOf(today + (i % 365)), priority: 1, tags: ["bench"] });
  const apiReqs = (tag: string, count: number) => Array.from({ length: count }, (_, i) => apiRequest("POST", "/api/tasks", session, body(tag, i)));
  const v1Reqs = (tag: string, count: number) =>
    signed(
      member,
      tenant,
      "Create",
      // What the route makes of body(tag, i): the same command, but for its subject and signer.
      Array.from({ length: count }, (_, i) => ({
        subject: `task-v1-${tag}-${i}`,
        args: { title: `created ${tag} ${i}`, notes: "", has_due: true, due_on: dateOf(today + (i % 365)), due_at: 0, repeat: "None", interval: 0, repeat_rule: "", priority: 1, tags: ["bench"], links: [] },
      })),
    );
  const warmApi = await drive(port, apiReqs("warm", 1000), { receipts: false, inFlight: IN_FLIGHT });
  const warmV1 = await drive(port, v1Reqs("warm", 1000), { receipts: true, inFlight: IN_FLIGHT });
  check("warm /api", warmApi);
  check("warm /v1", warmV1);
  const count = Math.min(30_000, Math.max(2000, Math.round(Math.min(warmApi.perS, warmV1.perS) * RUN_SECONDS)));
  note(`warm-up /api ${Math.round(warmApi.perS)}, /v1 ${Math.round(warmV1.perS)} creates/s; ${count} per run`);
  const apiRuns: RunResult[] = [];
  const v1Runs: RunResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = apiReqs(`r${round}`, count);
    const v = v1Reqs(`r${round}`, count);
    const runApi = async () => apiRuns.push(await drive(port, a, { receipts: false, pids, inFlight: IN_FLIGHT }));
    const runV1 = async () => v1Runs.push(await drive(port, v, { receipts: true, pids, inFlight: IN_FLIGHT }));
    if (round % 2 === 0) {
      await runApi();
      await runV1();
    } else {
      await runV1();
      await runApi();
    }
    check("create /api", apiRuns[round] as RunResult);
    check("create /v1", v1Runs[round] as RunResult);
    note(`round ${round + 1}/${ROUNDS}: /api ${Math.round((apiRuns[round] as RunResult).perS)}, /v1 ${Math.round((v1Runs[round] as RunResult).perS)} creates/s`);
  }
  const viaApi = medianRun(apiRuns);
  const viaV1 = medianRun(v1Runs);
  const cpu = (r: RunResult) =>
    Object.entries(r.cpuUsPerReq)
      .map(([name, us]) => `${name} ${Math.round(us)}`)
      .join(", ");
  process.stdout.write(`# ${IN_FLIGHT} keep-alive clients, ${count} creates per run, median of ${ROUNDS} rounds; /v1 commands signed before the run, /api signs each as the person\n`);
  report("tasks.create.per_s", viaApi.perS, "tasks/s", { label: "signed /v1 Create", value: viaV1.perS, higherIsBetter: true, target: ">= 0.8x" });
  report("tasks.create.p50_ms", percentile(viaApi.latencies, 50), "ms", { label: "signed /v1 Create", value: percentile(viaV1.latencies, 50), higherIsBetter: false });
  report("tasks.create.p99_ms", percentile(viaApi.latencies, 99), "ms", { label: "signed /v1 Create", value: percentile(viaV1.latencies, 99), higherIsBetter: false });
  process.stdout.write(`tasks.create.cpu_us_per_task /api: ${cpu(viaApi)}; /v1: ${cpu(viaV1)}\n`);
  process.stdout.write(`tasks.create.rounds (tasks/s per round) /api ${apiRuns.map((r) => Math.round(r.perS)).join(", ")}; /v1 ${v1Runs.map((r) => Math.round(r.perS)).join(", ")}\n`);
} catch (error) {
  if (!(error instanceof Done)) throw error;
} finally {
  await stopCharter(node);
  cleanup(dataDir);
}

if (failures.length > 0) {
  for (const f of failures) process.stderr.write(`FAIL ${f}\n`);
  process.exit(1);
}
