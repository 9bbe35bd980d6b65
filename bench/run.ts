/**
 * @module `npm run bench`: runs every benchmark in bench/ in its own process, one after another (they
 * share two cores), and prints their figures. `npm run bench -- NAME…` runs only those.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && !["run.ts", "lib.ts"].includes(f) && !f.endsWith(".test.ts"))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.ts$/, "")))
  .sort();
let failed = 0;
for (const file of files) {
  process.stdout.write(`# ${file}\n`);
  const r = spawnSync(process.execPath, ["--disable-warning=ExperimentalWarning", `${here}${file}`], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
