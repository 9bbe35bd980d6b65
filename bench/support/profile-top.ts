/**
 * @module Summarises V8 `.cpuprofile` files (from `node bench/engine.ts --profile DIR`, or any
 * `--cpu-prof` run): per profile, the functions with the most self time, and the same grouped by
 * source file. Usage: node bench/support/profile-top.ts DIR_OR_FILE… [--top N]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const args = process.argv.slice(2);
const topAt = args.indexOf("--top");
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
const inputs = args.filter((a, i) => a !== "--top" && i !== topAt + 1);
const files = inputs.flatMap((p) => (statSync(p).isDirectory() ? readdirSync(p).filter((f) => f.endsWith(".cpuprofile")).map((f) => join(p, f)) : [p]));

const short = (url: string) => url.replace(/^file:\/\/.*?\/(node_modules|workers|shared|contracts|supervisor|bench)\//, "$1/").replace(/^node:/, "node:");
for (const file of files) {
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const total = (p.endTime - p.startTime) / 1000;
  const fn = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = (byId.get(id) as Node).callFrame;
    const key = `${functionName || "(anonymous)"} ${short(url)}:${lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + us / 1000);
    const f = url === "" ? functionName : short(url);
    byFile.set(f, (byFile.get(f) ?? 0) + us / 1000);
  }
  const busy = [...fn.entries()].filter(([k]) => !k.startsWith("(idle)")).reduce((a, [, ms]) => a + ms, 0);
  process.stdout.write(`== ${basename(file)}: ${total.toFixed(0)} ms profiled, ${busy.toFixed(0)} ms busy\n`);
  for (const [k, ms] of [...fn.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${k}\n`);
  process.stdout.write(`  -- by file\n`);
  for (const [k, ms] of [...byFile.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) process.stdout.write(`  ${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${k}\n`);
}
