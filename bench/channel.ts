/**
 * @module Benchmark: request/reply round trips per second on the engine channel with 64 requests in
 * flight — this process plays the gateway against a real engine worker of a running `charter serve`.
 * Baseline in the same run: the same number of requests over a bare node:http loopback server (in
 * its own process) with 64 in flight on keep-alive connections.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectChannel } from "../shared/channel/socket.ts";
import type { EngineRequests } from "../shared/protocol/engine.ts";
import { report } from "./lib.ts";

const N = 100_000;
const IN_FLIGHT = 64;

async function closedLoop(count: number, inFlight: number, one: () => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        next++;
        await one();
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

const dir = mkdtempSync(join(tmpdir(), "charter-bench-channel-"));
const bin = fileURLToPath(new URL("../bin/charter.js", import.meta.url));
const tree = spawn(process.execPath, [bin, "serve", "--data", dir, "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "ignore"] });
await new Promise<void>((resolve) => tree.stdout?.on("data", (d: Buffer) => d.toString().includes("listening") && resolve()));
const engine = await connectChannel<EngineRequests, Record<string, never>>(join(dir, "run", "engine.sock"));
await closedLoop(5000, IN_FLIGHT, () => engine.request("ping", {}));
const channelPerS = await closedLoop(N, IN_FLIGHT, () => engine.request("ping", {}));
engine.close();
tree.kill("SIGTERM");
await new Promise((r) => tree.on("exit", r));
rmSync(dir, { recursive: true, force: true });

const server = spawn(process.execPath, ["-e", `const s=require("node:http").createServer((q,r)=>r.end('{"pid":1}')).listen(0,"127.0.0.1",()=>console.log(s.address().port))`], { stdio: ["ignore", "pipe", "ignore"] });
const port = await new Promise<number>((resolve) => server.stdout?.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
const get = () =>
  new Promise<void>((resolve, reject) => {
    const r = request({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
      res.resume();
      res.on("end", () => resolve());
    });
    r.on("error", reject);
    r.end();
  });
await closedLoop(2000, IN_FLIGHT, get);
const httpPerS = await closedLoop(N / 4, IN_FLIGHT, get);
agent.destroy();
server.kill();
report("channel.engine_round_trips_per_s", channelPerS, "req/s", { label: "bare node:http loopback", value: httpPerS, higherIsBetter: true, target: ">= 30000/s" });
