/**
 * @module `npm run bench -- sync`: paired devices.
 *
 * 1. Catch-up after a partition: one device made 100,000 commands while apart; the other receives
 *    them as the sync worker does (read in exchange-sized pages, each stamp and command signature
 *    verified, applied by the engine in chunks) — against the engine's own command rate on the same
 *    machine in the same run (each command's signature verified, then the write path), both on
 *    file-backed stores. Target: at least 0.5x.
 * 2. Steady state: two real `charter node`s on loopback, paired; a memory note written on the
 *    device is seen on the home node's `/api/events` — p50/p99 from the write's request to the
 *    home's commit frame, beside the same write's own commit frame on the device. Target p99 < 200 ms.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { keyPairFromSeed, parseCommand, signCommand } from "../shared/identity/index.ts";
import { parseEntry, verifyEntry, type VerifiedEntry } from "../shared/devices/entries.ts";
import { MAX_EXCHANGE_BYTES, MAX_EXCHANGE_ENTRIES } from "../shared/devices/peer-protocol.ts";
import { Device, NS, seedBytes, TENANT } from "../test/sync/simulation.ts";
import { ApiClient, createAccount, printedSetupCode, stepUp } from "../test/helpers/api-client.ts";
import { FrameLog } from "../test/helpers/assistant-node.ts";
import { type Charter, cleanup, startCharter, stopCharter, tempDataDir, waitFor } from "../test/helpers/charter-process.ts";
import { freePort } from "../test/helpers/ports.ts";
import { report } from "./lib.ts";

const N = Number(process.env.CHARTER_BENCH_SYNC_COMMANDS ?? 100_000);

async function catchUp(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "charter-bench-sync-"));
  try {
    const person = keyPairFromSeed(seedBytes(42));
    const a = new Device("a", 1, person, join(dir, "a.db"));
    const b = new Device("b", 2, person, join(dir, "b.db"));
    const issuedAt = new Date().toISOString();
    const commands = Array.from({ length: N }, (_, i) => {
      const payload = { tenant: TENANT, namespace: NS, action: i % 3 === 0 ? "Hit" : "Add", subject: `box-${i % 1000}`, args: i % 3 === 0 ? {} : { k: 1 }, idempotencyKey: `k-${i}`, issuedAt };
      return signCommand(person, payload);
    });
    // The engine's own rate: each command's signature verified (the gateway's part), then the write path.
    let t0 = performance.now();
    for (let i = 0; i < N; i += 2000) {
      await Promise.all(
        commands.slice(i, i + 2000).map((jws) => {
          const action = (JSON.parse(Buffer.from(jws.split(".")[1] as string, "base64url").toString()) as { action: string }).action;
          const v = parseCommand(jws, { now: Date.now(), path: { tenant: TENANT, namespace: NS, action } });
          if (!v.ok) throw new Error(v.error.detail);
          return a.commands.submit({ jws, digest: v.value.digest, signer: v.value.signer, payload: v.value.payload });
        }),
      );
    }
    const own = N / ((performance.now() - t0) / 1000);
    // Catch-up: what the device lacks, page by page, verified, applied.
    t0 = performance.now();
    let applied = 0;
    for (;;) {
      const page = a.reader.missing(TENANT, b.reader.versionVector(TENANT), MAX_EXCHANGE_ENTRIES, MAX_EXCHANGE_BYTES);
      if (page.entries.length === 0) break;
      const verified: VerifiedEntry[] = page.entries.map((raw) => {
        const parsed = parseEntry(JSON.parse(JSON.stringify(raw)));
        if (!parsed.ok) throw new Error(parsed.error);
        const v = verifyEntry(TENANT, parsed.value);
        if (!v.ok) throw new Error(v.error);
        return v.value;
      });
      applied += (await b.sync.apply(TENANT, verified)).applied;
    }
    const catchUpRate = N / ((performance.now() - t0) / 1000);
    if (applied !== N) throw new Error(`applied ${applied} of ${N}`);
    report(`sync catch-up (${N} commands)`, catchUpRate, "commands/s", { label: "the engine's own command rate", value: own, higherIsBetter: true, target: "≥ 0.5x" });
    a.db.close();
    b.db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function steadyState(): Promise<void> {
  const sides: Charter[] = [];
  const dirs = [tempDataDir("charter-bench-home-"), tempDataDir("charter-bench-device-")];
  try {
    const homePort = await freePort();
    const home = await startCharter({ edition: "node", dataDir: dirs[0] as string, args: ["--listen", `127.0.0.1:${homePort}`], env: { CHARTER_LOG_REQUESTS: "off" } });
    sides.push(home);
    const homeApi = new ApiClient(home);
    const h = await createAccount(homeApi, printedSetupCode(home));
    const contracts = async (api: ApiClient, cookie: string) => ((await api.call("GET", "/api/bootstrap", { cookie })).body.tenant?.contracts ?? []) as { namespace: string }[];
    await waitFor("home contracts", async () => ((await contracts(homeApi, h.cookie)).some((c) => c.namespace === "std.sync") ? true : undefined), 30_000);
    await stepUp(homeApi, h.auth, h.cookie);
    const code = (await homeApi.call("POST", "/api/sync/pair", { cookie: h.cookie })).body.code as string;
    const device = await startCharter({ edition: "node", dataDir: dirs[1] as string, env: { CHARTER_LOG_REQUESTS: "off" } });
    sides.push(device);
    const deviceApi = new ApiClient(device);
    const setupCode = printedSetupCode(device);
    const joined = await deviceApi.call("POST", "/api/sync/join", { body: { url: home.url, code, setupCode } });
    if (joined.status !== 201) throw new Error(JSON.stringify(joined.body));
    const d = await createAccount(deviceApi, setupCode);
    await waitFor("device contracts", async () => ((await contracts(deviceApi, d.cookie)).some((c) => c.namespace === "std.sync") ? true : undefined), 30_000);
    const homeEvents = await FrameLog.open(home, homeApi, h.cookie);
    const deviceEvents = await FrameLog.open(device, deviceApi, d.cookie);
    const remote: number[] = [];
    const local: number[] = [];
    const frameOf = (log: FrameLog, subject: string) => log.frames.find((f) => f.kind === "commit" && f.subject === subject);
    for (let i = 0; i < 220; i++) {
      const t0 = performance.now();
      const made = await deviceApi.call("POST", "/api/memory", { cookie: d.cookie, body: { text: `note ${i}` } });
      const subject = made.body.id as string;
      let seenLocal = 0;
      await waitFor("the commit on both", () => {
        if (seenLocal === 0 && frameOf(deviceEvents, subject) !== undefined) seenLocal = performance.now() - t0;
        return frameOf(homeEvents, subject) !== undefined ? true : undefined;
      }, 10_000);
      if (i >= 20) {
        remote.push(performance.now() - t0);
        local.push(seenLocal || performance.now() - t0);
      }
      homeEvents.frames.length = 0;
      deviceEvents.frames.length = 0;
    }
    homeEvents.close();
    deviceEvents.close();
    const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] as number;
    report("sync steady state: a command on the device seen on the home node, p50", pct(remote, 50), "ms", { label: "the same commit seen on the device itself", value: pct(local, 50), higherIsBetter: false });
    report("sync steady state: a command on the device seen on the home node, p99", pct(remote, 99), "ms", { label: "the same commit seen on the device itself", value: pct(local, 99), higherIsBetter: false, target: "p99 < 200 ms" });
  } finally {
    for (const s of sides) await stopCharter(s);
    for (const dir of dirs) cleanup(dir);
  }
}

// `--part catch-up|steady` runs one of the two.
const part = process.argv.includes("--part") ? process.argv[process.argv.indexOf("--part") + 1] : null;
if (part !== "steady") await catchUp();
if (part !== "catch-up") await steadyState();
