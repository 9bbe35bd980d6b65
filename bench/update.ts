/**
 * @module `npm run bench -- update`: self-update on a real node. Builds two releases of this
 * checkout (one good, one that migrates the store and then fails to start), then measures:
 * - install: from `POST /api/settings/updates/install` to the new version answering `/health`
 *   (target < 30 s), split into the updater's part (download, check, unpack, backup, switch: until
 *   the install answers) and the restart into the new release; then the next release, whose
 *   dependencies are unchanged (only its own files are written);
 * - rollback: from the launcher's decision (the third failed start) to the previous version
 *   answering `/health` again (target < 10 s);
 * baseline: a plain restart of the same node on the same data (SIGTERM, start, `/health` 200), same run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readManifest, type ReleaseManifest } from "../shared/release/manifest.ts";
import { cleanup, spawnCharter, waitFor } from "../test/helpers/charter-process.ts";
import { baseVersion, call, configureUpdates, FAILS_AFTER_MIGRATING, healthVersion, laterVersion, ReleaseBuilder, startUpdateNode, stopUpdateNode } from "../test/helpers/releases.ts";
import { report } from "./lib.ts";

const note = (text: string) => process.stderr.write(`# ${text}\n`);
const GOOD = laterVersion(1);
const FAILS = laterVersion(2);
const NEXT = laterVersion(3);

const releases = new ReleaseBuilder();
try {
  await releases.init();
  let t = performance.now();
  await releases.build(GOOD);
  const size = (readManifest(readFileSync(join(releases.builds, GOOD, "manifest.jws"), "utf8"), releases.did) as { ok: true; value: ReleaseManifest }).value.files.reduce((n, f) => n + f.size, 0);
  note(`built ${GOOD} in ${((performance.now() - t) / 1000).toFixed(1)} s (dependencies installed): ${(size / 1048576).toFixed(1)} MiB`);
  t = performance.now();
  await releases.build(FAILS, FAILS_AFTER_MIGRATING);
  note(`built ${FAILS} in ${((performance.now() - t) / 1000).toFixed(1)} s (dependencies of ${GOOD} taken)`);
  await releases.build(NEXT);

  // Baseline: the same node stopped and started again on its data.
  const node = await startUpdateNode();
  node.charter.child.kill("SIGTERM");
  await node.charter.exited;
  const port = new URL(node.charter.url).port;
  t = performance.now();
  const again = spawnCharter(["node", "--data", node.charter.dataDir, "--listen", `127.0.0.1:${port}`, "--hooks-port", "0"]);
  await healthVersion({ ...node, charter: { ...node.charter, url: node.charter.url } }, baseVersion, 60_000);
  const restartMs = performance.now() - t;
  again.child.kill("SIGTERM");
  await again.exited;
  cleanup(node.charter.dataDir);

  // Install.
  const up = await startUpdateNode();
  await configureUpdates(up, { mode: "ask", channel: releases.channel("good", GOOD), releaseKey: releases.did });
  t = performance.now();
  const install = await call(up, "POST", "/api/settings/updates/install", { version: GOOD });
  if (install.status !== 202) throw new Error(`install answered ${install.status}: ${JSON.stringify(install.body)}`);
  const switchedMs = performance.now() - t;
  await healthVersion(up, GOOD, 120_000);
  const installMs = performance.now() - t;
  // The next release, whose dependencies are those of the one running: only its own files are written.
  await configureUpdates(up, { mode: "ask", channel: releases.channel("next", NEXT), releaseKey: releases.did });
  t = performance.now();
  const next = await call(up, "POST", "/api/settings/updates/install", { version: NEXT });
  if (next.status !== 202) throw new Error(`install answered ${next.status}: ${JSON.stringify(next.body)}`);
  await healthVersion(up, NEXT, 120_000);
  const sharedMs = performance.now() - t;
  await stopUpdateNode(up);

  // Rollback.
  const down = await startUpdateNode();
  await configureUpdates(down, { mode: "ask", channel: releases.channel("fails", FAILS), releaseKey: releases.did });
  const failing = await call(down, "POST", "/api/settings/updates/install", { version: FAILS });
  if (failing.status !== 202) throw new Error(`install answered ${failing.status}: ${JSON.stringify(failing.body)}`);
  const decided = await waitFor("the rollback", () => (/rolled back release/.test(down.charter.stderr) ? performance.now() : undefined), 180_000);
  await healthVersion(down, baseVersion, 60_000);
  const rollbackMs = performance.now() - decided;
  const restore = /rolled back release .* in (\d+) ms/.exec(down.charter.stderr)?.[1];
  await stopUpdateNode(down);

  note(`install: ${(switchedMs / 1000).toFixed(1)} s until the switch (check, download, digests, unpack, backup, link), then ${((installMs - switchedMs) / 1000).toFixed(1)} s to restart into ${GOOD}`);
  note(`rollback: databases and link put back in ${restore ?? "?"} ms`);
  report("install to /health", installMs / 1000, "s", { label: "a plain restart", value: restartMs / 1000, higherIsBetter: false, target: "< 30 s" });
  report("install to /health, dependencies unchanged", sharedMs / 1000, "s", { label: "a plain restart", value: restartMs / 1000, higherIsBetter: false, target: "< 30 s" });
  report("rollback decision to /health", rollbackMs / 1000, "s", { label: "a plain restart", value: restartMs / 1000, higherIsBetter: false, target: "< 10 s" });
} finally {
  releases.close();
}
