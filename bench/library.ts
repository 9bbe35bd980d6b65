/**
 * @module Benchmark of the library's bytes on a real `charter node`: a file (1 GiB by default,
 * `--mib N`) uploaded to `POST /api/library` by `curl -T` and downloaded from
 * `/api/library/{id}/content`, both from and to a file on the same disk. The download is timed with
 * support/http-download.ts, a client that writes 1 MiB at a time (`curl -o` writes 8 KiB at a time
 * and spends more of the 2 cores on those writes than the node spends sending: its figure is
 * printed beside). The gateway's resident memory is sampled every 20 ms while the bytes move: its
 * growth over the idle figure is the target's figure (it streams, never buffers). Targets
 * (reported, not asserted): throughput ≥ 0.8× `cp` each way; gateway RSS growth < 64 MB.
 *
 * Baselines, all in the same run, on the same file read from the page cache:
 * - `cp`: the target's row. It copies inside the kernel (`copy_file_range`), page cache to page
 *   cache, no byte ever in user space: no stream between two processes can match it.
 * - `cp` + fsync: a copy that is on disk, as an upload is before it is answered.
 * - `dd` with 128 KiB blocks: one process reading and writing through user space.
 * - `cat | cat`: two processes and a pipe between them, the shape of any stream from one process to
 *   another (a download is that, through loopback TCP, plus HTTP).
 * - SHA-256 alone (node:crypto, 1 MiB at a time, in memory): an upload hashes every byte.
 * - SHA-256 + write + fsync, no network: the upload's own work done in one thread, 256 KiB at a time.
 *
 * Every timed step starts right after a copy of the file was made and removed, so each writes into
 * pages freed a moment before. On the VM these figures come from (2 cores, virtio-balloon with free
 * page reporting), pages left free for a while go back to the host and cost a fault on their first
 * write: the same copy took 1 to 5 times as long depending on what ran before it.
 *
 * What bounds the node there (1 GiB): an upload is received through loopback TCP and the HTTP
 * parser in the event loop (about 0.35 s of CPU), hashed (0.6 s: SHA-256 runs at 1.7 GB/s) and
 * written into the page cache (0.3 s at best, 2 s when the pages come back from the host) on the
 * upload thread, fdatasynced every 64 MiB along the way, while curl takes 0.3 s of CPU reading and
 * sending: at least 1.5 s of CPU for 2 cores. Hashing alone is below 0.8× `cp` (1,650 against
 * 2,800–3,600 MiB/s), so that target is out of reach for any upload that hashes. A download is read
 * into user space, sent through loopback TCP and written again by the client: four copies where
 * `cp` makes one, about 0.5 s of CPU on each side; it runs at about the speed of `cat | cat`.
 *
 *   node bench/library.ts            # 1 GiB
 *   node bench/library.ts --mib 256  # a quicker run
 */
import { execFile as execFileCallback, execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, createReadStream, fsyncSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { ApiClient, createAccount, printedSetupCode } from "../test/helpers/api-client.ts";
import { cleanup, lockOf, startCharter, stopCharter, tempDataDir, waitFor } from "../test/helpers/charter-process.ts";
import { report, rssMb } from "./lib.ts";

const execFile = promisify(execFileCallback);
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

/** How long `run` takes, in ms. */
async function timed(run: () => unknown): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

function fsyncFile(path: string): void {
  const fd = openSync(path, "r");
  fsyncSync(fd);
  closeSync(fd);
}

/** How long SHA-256 of the file at `path` takes, in ms: the hashing alone, each 1 MiB read into memory first. */
function hashOnly(path: string): number {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(MiB);
  const fd = openSync(path, "r");
  let ms = 0;
  for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) {
    const t0 = performance.now();
    hash.update(buffer.subarray(0, n));
    ms += performance.now() - t0;
  }
  closeSync(fd);
  hash.digest();
  return ms;
}

/**
 * The upload's work without the network, in one thread: `path` read 256 KiB at a time (from the
 * page cache), each piece hashed and written to `to`, then fsynced.
 */
function hashAndWrite(path: string, to: string): void {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(256 * 1024);
  const from = openSync(path, "r");
  const fd = openSync(to, "w");
  for (let n = readSync(from, buffer); n > 0; n = readSync(from, buffer)) {
    hash.update(buffer.subarray(0, n));
    writeSync(fd, buffer, 0, n);
  }
  fsyncSync(fd);
  closeSync(fd);
  closeSync(from);
  hash.digest();
}

/** Checked after the clock stopped: the client's own hashing is not the node's time. */
async function checkDownload(path: string, sha256: string): Promise<void> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path, { highWaterMark: MiB }), hash);
  if (statSync(path).size !== size || hash.digest("hex") !== sha256) throw new Error("the download is not the file");
}

async function main(): Promise<void> {
  execFileSync("curl", ["--version"], { stdio: "ignore" });
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

    // The baselines, each timed from a freshly freed page cache (see `primed`), its copy removed after.
    const copy = join(work, "copy.bin");
    const scratch = join(work, "scratch.bin");
    const primed = async (run: () => Promise<unknown>): Promise<number> => {
      await execFile("cp", [source, scratch]);
      rmSync(scratch);
      const ms = await timed(run);
      rmSync(copy, { force: true });
      return ms;
    };
    const cpMs = await primed(() => execFile("cp", [source, copy]));
    const cpSyncMs = await primed(async () => {
      await execFile("cp", [source, copy]);
      fsyncFile(copy);
    });
    const ddMs = await primed(() => execFile("dd", [`if=${source}`, `of=${copy}`, "bs=128K", "status=none"]));
    const pipeMs = await primed(() => execFile("sh", ["-c", 'cat "$1" | cat > "$2"', "sh", source, copy]));
    const hashMs = hashOnly(source);
    const hashWriteMs = await primed(async () => hashAndWrite(source, copy));

    // Upload. `Expect:` off: curl would otherwise wait for a `100 Continue` before a large body.
    const idle = rssMb(gateway);
    let peak = sampleRss(gateway);
    const answer = join(work, "answer.json");
    let status = "";
    const upMs = await primed(async () => {
      const { stdout } = await execFile("curl", ["-sS", "-T", source, "-X", "POST", "-H", "Expect:", "-H", `cookie: ${cookie}`, "-H", `origin: ${api.origin}`, "-H", "content-type: application/octet-stream", "-o", answer, "-w", "%{http_code}", `${node.url}/api/library?name=bench.bin`]);
      status = stdout;
    });
    const upPeak = peak();
    if (status !== "201") throw new Error(`upload: ${status} ${readFileSync(answer, "utf8").slice(0, 500)}`);
    const file = JSON.parse(readFileSync(answer, "utf8")) as { id: string; sha256: string };

    // Download, to a file on the same disk: by a client that writes 1 MiB at a time, then by curl.
    const target = join(work, "download.bin");
    const content = `${node.url}/api/library/${file.id}/content`;
    const afterUp = rssMb(gateway);
    peak = sampleRss(gateway);
    let downMs = 0;
    await primed(async () => {
      const { stdout } = await execFile(process.execPath, [join(import.meta.dirname, "support", "http-download.ts"), content, target, `cookie: ${cookie}`]);
      downMs = Number(stdout.split(" ")[1]);
    });
    await checkDownload(target, file.sha256);
    rmSync(target);
    let curlStatus = "";
    const curlMs = await primed(async () => {
      ({ stdout: curlStatus } = await execFile("curl", ["-sS", "-H", `cookie: ${cookie}`, "-o", target, "-w", "%{http_code}", content]));
    });
    const downPeak = peak();
    if (curlStatus !== "200") throw new Error(`download: ${curlStatus}`);
    await checkDownload(target, file.sha256);

    const mbps = (ms: number) => size / MiB / (ms / 1000);
    const ms = (n: number) => `${n.toFixed(0)} ms`;
    process.stdout.write(`# ${process.env.CHARTER_BENCH_NOTE ?? ""}${size / MiB} MiB; cp ${ms(cpMs)}, cp + fsync ${ms(cpSyncMs)}, dd 128 KiB ${ms(ddMs)}, cat | cat ${ms(pipeMs)}, sha256 ${ms(hashMs)}, sha256 + write + fsync ${ms(hashWriteMs)}; upload ${ms(upMs)}, download ${ms(downMs)} (curl -o ${ms(curlMs)}); gateway RSS idle ${idle.toFixed(0)} MB, after the upload ${afterUp.toFixed(0)} MB\n`);
    const up = mbps(upMs);
    const down = mbps(downMs);
    report("library.upload_mib_per_s", up, "MiB/s", { label: "cp", value: mbps(cpMs), higherIsBetter: true, target: "≥ 0.8x" });
    report("library.upload_mib_per_s", up, "MiB/s", { label: "cp + fsync", value: mbps(cpSyncMs), higherIsBetter: true });
    report("library.upload_mib_per_s", up, "MiB/s", { label: "sha256 alone", value: mbps(hashMs), higherIsBetter: true });
    report("library.upload_mib_per_s", up, "MiB/s", { label: "sha256 + write + fsync, no network", value: mbps(hashWriteMs), higherIsBetter: true });
    report("library.download_mib_per_s", down, "MiB/s", { label: "cp", value: mbps(cpMs), higherIsBetter: true, target: "≥ 0.8x" });
    report("library.download_mib_per_s", down, "MiB/s", { label: "dd 128 KiB", value: mbps(ddMs), higherIsBetter: true });
    report("library.download_mib_per_s", down, "MiB/s", { label: "cat | cat", value: mbps(pipeMs), higherIsBetter: true });
    report("library.download_curl_mib_per_s", mbps(curlMs), "MiB/s", { label: "cp", value: mbps(cpMs), higherIsBetter: true });
    report("library.gateway_rss_growth_upload_mb", upPeak - idle, "MB", { label: "target", value: 64, higherIsBetter: false, target: "< 64 MB" });
    report("library.gateway_rss_growth_download_mb", downPeak - idle, "MB", { label: "target", value: 64, higherIsBetter: false, target: "< 64 MB" });
  } finally {
    await stopCharter(node);
    cleanup(work);
  }
}

await main();
