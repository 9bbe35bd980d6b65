/**
 * @module Benchmark of the library's bytes on a real `charter node`: a file (1 GiB by default,
 * `--mib N`) uploaded to `POST /api/library` and downloaded from `/api/library/{id}/content`,
 * both to and from a file on the same disk, against a plain copy of that file with `cp` in the same
 * run (and `cp` followed by an fsync of the copy, since an upload is on disk before it is
 * answered). The gateway's resident memory is sampled every 20 ms while the bytes move: its growth
 * over the idle figure is the target's figure (it streams, never buffers). Targets (reported, not
 * asserted): throughput ≥ 0.8× `cp` each way; gateway RSS growth < 64 MB.
 *
 *   node bench/library.ts            # 1 GiB
 *   node bench/library.ts --mib 256  # a quicker run
 */
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, createReadStream, createWriteStream, fsyncSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { ApiClient, createAccount, printedSetupCode } from "../test/helpers/api-client.ts";
import { cleanup, lockOf, startCharter, stopCharter, tempDataDir, waitFor } from "../test/helpers/charter-process.ts";
import { report, rssMb } from "./lib.ts";

const MiB = 1024 * 1024;
const at = process.argv.indexOf("--mib");
const size = (at >= 0 ? Number(process.argv[at + 1]) : 1024) * MiB;

/** Samples `pid`'s RSS every 20 ms until stopped; answers the highest. */
function sampleRss(pid: number): () => number {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssMb(pid));
  };
}

async function main(): Promise<void> {
  const work = tempDataDir("charter-bench-library-");
  const source = join(work, "source.bin");
  // The file: random bytes, written once, then read from the page cache by every side alike.
  const fd = openSync(source, "w");
  const block = randomBytes(MiB);
  for (let written = 0; written < size; written += MiB) {
    block.writeUInt32LE(written / MiB, 0);
    writeSync(fd, block);
  }
  fsyncSync(fd);
  closeSync(fd);
  execFileSync("cat", [source], { stdio: ["ignore", "ignore", "inherit"], maxBuffer: 0 });

  const node = await startCharter({ edition: "node", dataDir: join(work, "data") });
  try {
    const api = new ApiClient(node);
    const { cookie } = await createAccount(api, printedSetupCode(node));
    await waitFor("std.library installed", async () => ((await api.call("GET", "/api/library", { cookie })).status === 200 ? true : undefined), 30_000);
    const gateway = lockOf(node.dataDir).workers.gateway as number;
    const idle = rssMb(gateway);

    // cp, twice: the second is the one timed (the first warms what cp itself needs).
    const copy = join(work, "copy.bin");
    execFileSync("cp", [source, copy]);
    rmSync(copy);
    let t0 = performance.now();
    execFileSync("cp", [source, copy]);
    const cpMs = performance.now() - t0;
    rmSync(copy);
    t0 = performance.now();
    execFileSync("cp", [source, copy]);
    const copied = openSync(copy, "r");
    fsyncSync(copied);
    closeSync(copied);
    const cpSyncMs = performance.now() - t0;
    rmSync(copy);

    // Upload.
    let peak = sampleRss(gateway);
    t0 = performance.now();
    const uploaded = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(new URL(`${node.url}/api/library?name=bench.bin`), { method: "POST", headers: { cookie, origin: api.origin, "content-length": String(size), "content-type": "application/octet-stream" } }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      createReadStream(source, { highWaterMark: MiB }).pipe(req);
    });
    const upMs = performance.now() - t0;
    const upPeak = peak();
    if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${uploaded.body}`);
    const file = JSON.parse(uploaded.body) as { id: string; sha256: string };

    // Download, to a file on the same disk.
    const target = join(work, "download.bin");
    peak = sampleRss(gateway);
    t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = request(new URL(`${node.url}/api/library/${file.id}/content`), { headers: { cookie } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`download: ${res.statusCode}`));
        pipeline(res, createWriteStream(target, { highWaterMark: MiB })).then(resolve, reject);
      });
      req.on("error", reject);
      req.end();
    });
    const downMs = performance.now() - t0;
    const downPeak = peak();
    // Checked after the clock stopped: the client's own hashing is not the node's time.
    const hash = createHash("sha256");
    await pipeline(createReadStream(target, { highWaterMark: MiB }), hash);
    if (statSync(target).size !== size || hash.digest("hex") !== file.sha256) throw new Error("the download is not the file");

    const mbps = (ms: number) => size / MiB / (ms / 1000);
    process.stdout.write(`# ${process.env.CHARTER_BENCH_NOTE ?? ""}${size / MiB} MiB; cp ${cpMs.toFixed(0)} ms, cp + fsync ${cpSyncMs.toFixed(0)} ms; upload ${upMs.toFixed(0)} ms, download ${downMs.toFixed(0)} ms\n`);
    report("library.upload_mib_per_s", mbps(upMs), "MiB/s", { label: "cp", value: mbps(cpMs), higherIsBetter: true, target: "≥ 0.8x" });
    report("library.upload_mib_per_s", mbps(upMs), "MiB/s", { label: "cp + fsync", value: mbps(cpSyncMs), higherIsBetter: true });
    report("library.download_mib_per_s", mbps(downMs), "MiB/s", { label: "cp", value: mbps(cpMs), higherIsBetter: true, target: "≥ 0.8x" });
    report("library.gateway_rss_growth_upload_mb", upPeak - idle, "MB", { label: "target", value: 64, higherIsBetter: false, target: "< 64 MB" });
    report("library.gateway_rss_growth_download_mb", downPeak - idle, "MB", { label: "target", value: 64, higherIsBetter: false, target: "< 64 MB" });
  } finally {
    await stopCharter(node);
    cleanup(work);
  }
}

await main();
