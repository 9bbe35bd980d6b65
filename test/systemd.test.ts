/**
 * Running as a systemd service: `charter install-service` writes a unit that `systemd-analyze
 * verify` accepts without a word, sandboxed as `systemd-analyze security` scores it; the committed
 * ops/systemd/charter.service is the same unit for /opt/charter; a tree started with a
 * NOTIFY_SOCKET sends READY=1 once it serves; a host below the minimum gets a warning, not a refusal.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { serviceUnit, UNIT_DEFAULTS } from "../ops/systemd/service-unit.ts";
import { charterBin, cleanup, startCharter, stopCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";
import { runCharter } from "./helpers/run-charter.ts";

const has = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;
const NO_ANALYZE = has("systemd-analyze") ? false : "systemd-analyze is missing (Debian package `systemd`; .ci/run installs it as root)";
const dirs: string[] = [];
after(() => dirs.forEach(cleanup));
const temp = () => {
  const d = tempDataDir("charter-systemd-");
  dirs.push(d);
  return d;
};
const projectDir = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

test("install-service writes a unit with this checkout's paths that systemd-analyze verify accepts", { skip: NO_ANALYZE }, async () => {
  const out = join(temp(), "charter.service");
  const r = await runCharter(["install-service", "--user", "charter", "--data", "/var/lib/charter", "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^wrote ${out}\n`));
  const unit = readFileSync(out, "utf8");
  assert.match(unit, new RegExp(`^ExecStart=${projectDir}/node_modules/node/bin/node ${projectDir}/bin/charter.js node --data /var/lib/charter --listen 127.0.0.1:8787$`, "m"));
  for (const line of ["Type=notify", "NotifyAccess=all", "User=charter", "StateDirectory=charter", "ReadWritePaths=/var/lib/charter", "Restart=on-failure", "NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes", "CapabilityBoundingSet=", "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6"]) {
    assert.match(unit, new RegExp(`^${line.replace(/[[\]]/g, "\\$&")}$`, "m"), line);
  }
  // verify checks every directive and that ExecStart's program exists and runs; it warns (exit 0)
  // about a directive it cannot parse, so its silence is asserted too. It does not look the user up:
  // the unit's `charter` need not exist on this machine.
  const verify = spawnSync("systemd-analyze", ["verify", "--man=no", out], { encoding: "utf8" });
  assert.equal(verify.status, 0, verify.stderr);
  assert.equal(`${verify.stdout}${verify.stderr}`.trim(), "");
  const security = spawnSync("systemd-analyze", ["security", "--offline=yes", out], { encoding: "utf8" });
  const score = Number(/Overall exposure level for charter\.service: ([\d.]+)/.exec(security.stdout)?.[1]);
  assert.ok(score <= 2, `exposure ${score} (README: 1.3)`);

  // A broken unit is not accepted: a Node that is not there.
  const broken = join(temp(), "charter.service");
  const written = unit.replace(/^ExecStart=\S+/m, "ExecStart=/nonexistent/node");
  writeFileSync(broken, written);
  assert.notEqual(spawnSync("systemd-analyze", ["verify", "--man=no", broken], { encoding: "utf8" }).status, 0);
});

test("the committed ops/systemd/charter.service is the unit for a checkout in /opt/charter; bad options are usage errors", async () => {
  const committed = readFileSync(new URL("../ops/systemd/charter.service", import.meta.url), "utf8");
  const d = UNIT_DEFAULTS;
  assert.equal(committed, serviceUnit({ projectDir: d.projectDir, nodePath: `${d.projectDir}/node_modules/node/bin/node`, user: d.user, dataDir: d.dataDir, listen: d.listen }));
  const printed = await runCharter(["install-service", "--out", "-", "--data", "/srv/charter", "--origin", "https://node.example"]);
  assert.equal(printed.code, 0);
  assert.doesNotMatch(printed.stdout, /StateDirectory/, "a data directory outside /var/lib is not systemd's to create");
  assert.match(printed.stdout, /^ReadWritePaths=\/srv\/charter$/m);
  assert.match(printed.stdout, /--origin https:\/\/node\.example$/m);
  for (const [args, message] of [
    [["--data", "relative/dir"], /--data must be an absolute path/],
    [["--data", "/var/lib/my charter"], /has a character the unit cannot carry/],
    [["--user", "Root;rm"], /is not a user name/],
    [["--listen", "nowhere"], /--listen expects HOST:PORT/],
  ] as const) {
    const r = await runCharter(["install-service", "--out", "-", ...args]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, message);
  }
});

test("a node run with a NOTIFY_SOCKET sends READY=1 once, after every listener is bound", { skip: has("python3") && has("systemd-notify") ? false : "python3 or systemd-notify is missing" }, async () => {
  const dir = temp();
  const socket = join(dir, "notify.sock");
  // Node has no datagram Unix sockets: a small Python listener plays systemd's part.
  const listener = spawn("python3", ["-u", "-c", `import socket,sys\ns=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\ns.bind(sys.argv[1])\nprint("bound", flush=True)\nwhile True:\n    print(s.recv(4096).decode().replace("\\n", " "), flush=True)`, socket], { stdio: ["ignore", "pipe", "inherit"] });
  let heard = "";
  listener.stdout.on("data", (d: Buffer) => (heard += d.toString()));
  try {
    await waitFor("the listener", () => (heard.includes("bound") ? true : undefined));
    // charter node: READY waits for the webhook listener too.
    const c = await startCharter({ edition: "node", dataDir: join(dir, "data"), env: { NOTIFY_SOCKET: socket } });
    try {
      await waitFor("READY=1", () => (heard.includes("READY=1") ? true : undefined), 10_000);
      assert.equal(heard.match(/READY=1/g)?.length, 1);
      assert.match(c.stdout, /webhooks on http:\/\/127\.0\.0\.1:\d+\/hooks\//, "the webhook listener was bound before");
      assert.ok((await fetch(`${c.url}/health`)).ok);
      await waitFor("the log line", () => (readFileSync(join(dir, "data", "logs", "charter.log"), "utf8").includes("told systemd the node is ready") ? true : undefined));
    } finally {
      await stopCharter(c);
    }
  } finally {
    listener.kill();
  }
});

test("on one core the node warns, in its log and on stderr, and starts all the same", { skip: has("taskset") ? false : "taskset is missing" }, async () => {
  const dataDir = join(temp(), "data");
  // taskset pins the tree to one CPU: Node's availableParallelism() reads the affinity.
  const pinned = spawn("taskset", ["-c", "0", process.execPath, charterBin, "serve", "--data", dataDir, "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  pinned.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  pinned.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  try {
    const url = await waitFor("the URL", () => /listening on (http:\/\/\S+)/.exec(stdout)?.[1], 15_000);
    assert.ok((await fetch(`${url}/health`)).ok);
    assert.match(stderr, /this machine has 1 core; the node is made for at least 2: expect it to be slow/);
    const log = readFileSync(join(dataDir, "logs", "charter.log"), "utf8");
    assert.match(log, /"level":"warn".*this machine has 1 core/);
  } finally {
    pinned.kill("SIGTERM");
    await new Promise((r) => pinned.once("exit", r));
  }
  // Unpinned on a machine of two cores or more, no such warning.
  const normal = await startCharter({ dataDir });
  await stopCharter(normal);
  if (availableParallelism() >= 2) assert.doesNotMatch(normal.stderr, /core; the node is made for/);
});
