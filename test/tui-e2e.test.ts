/**
 * Issue 9, end to end under tmux: a real node, `charter tui` in a tmux pane, accepted and refused
 * commands appearing in Activity with their reasons, every view reached with send-keys, a resize,
 * `q` to quit — then, with the node stopped, a whole console session that leaves every file of
 * the data directory byte for byte as it was.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, describe, test } from "node:test";
import type { KeyPair } from "../shared/identity/index.ts";
import { type Charter, charterBin, cleanup, sleep, startCharter, stopCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";
import { act } from "./helpers/client.ts";
import { example, seed } from "./helpers/seed.ts";

const tmuxMissing = spawnSync("tmux", ["-V"]).error !== undefined;
const skip = tmuxMissing ? "tmux is not installed (apt-get install tmux; .ci/run installs it)" : false;

/** tmux on a server of this test's own, so no other session is touched. */
const socket = `charter-tui-${process.pid}`;
const statusFile = join(tmpdir(), `charter-tui-status-${process.pid}`);
function tmux(...args: string[]): string {
  const r = spawnSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}
const screen = () => tmux("capture-pane", "-p", "-t", "tui").split("\n");
async function shows(pattern: RegExp, timeoutMs = 10_000): Promise<string[]> {
  try {
    return await waitFor(String(pattern), () => (screen().some((l) => pattern.test(l)) ? screen() : undefined), timeoutMs);
  } catch (error) {
    throw new Error(`${(error as Error).message}; the screen:\n${screen().join("\n")}`, { cause: error });
  }
}
async function keys(...k: string[]): Promise<void> {
  for (const key of k) {
    tmux("send-keys", "-t", "tui", key);
    await sleep(30);
  }
}
/** Sends `k` in one send-keys, so the console reads them together, as a fast typist's keys. */
function burst(...k: string[]): void {
  tmux("send-keys", "-t", "tui", ...k);
}
/** Starts `charter tui --data DIR` in an 80×24 pane that stays after the console exits. */
function startConsole(dataDir: string): void {
  spawnSync("tmux", ["-L", socket, "kill-session", "-t", "tui"]);
  rmSync(statusFile, { force: true });
  // The shell records the console's exit status: tmux does not always reap a pane's process promptly.
  tmux("new-session", "-d", "-s", "tui", "-x", "80", "-y", "24", "-e", "LANG=C.UTF-8", `'${process.execPath}' '${charterBin}' tui --data '${dataDir}'; echo $? > '${statusFile}'`);
  tmux("set-option", "-t", "tui", "remain-on-exit", "on");
}
/** Quits with `q` and returns the console's exit status. */
async function quit(): Promise<number> {
  await keys("q");
  const status = await waitFor("the console to exit", () => {
    const text = existsSync(statusFile) ? readFileSync(statusFile, "utf8").trim() : "";
    return text === "" ? undefined : Number(text);
  });
  tmux("kill-session", "-t", "tui");
  return status;
}

/** Every file under `dir` with its SHA-256. */
function checksums(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const s = statSync(path);
      if (s.isDirectory()) walk(path);
      else if (s.isFile()) out[relative(dir, path)] = createHash("sha256").update(readFileSync(path)).digest("hex");
      else out[relative(dir, path)] = "(not a regular file)";
    }
  };
  walk(dir);
  return out;
}

const counter = example("counter.charter.md");
const lineOf = (text: string) => counter.split("\n").findIndex((l) => l.trim() === text) + 1;
const titles: [string, RegExp][] = [
  ["1", /^Node {6}/],
  ["2", /^Installed contracts: \d+ shown, \d+ active/],
  ["3", /^Tenants: 1 shown/],
  ["4", /^Activity: \d+ commands?/],
  ["5", /^Logs: \d+ of the last/],
  ["6", /^Connect: 1 node/],
];

describe("charter tui under tmux", { skip }, () => {
  let dataDir: string;
  let c: Charter | null = null;
  let ada: KeyPair;
  before(async () => {
    dataDir = tempDataDir("charter-tui-e2e-");
    const s = await seed(dataDir, { contracts: [counter] });
    ada = s.members[0] as KeyPair;
    c = await startCharter({ dataDir });
  });
  after(async () => {
    spawnSync("tmux", ["-L", socket, "kill-server"]);
    if (c !== null) await stopCharter(c);
    cleanup(dataDir);
  });

  test("commands show in Activity live with the reasons of refusals; every view; resize; q quits", async () => {
    const node = c as Charter;
    startConsole(dataDir);
    await shows(/^Node {6}running, pid \d+/);
    await shows(new RegExp(`^Address {3}${node.url.replace(/\./g, "\\.")} {2}answers in \\d+ ms`));
    // `charter serve`'s two workers, one line each, in start order, with the state /health gives.
    const workers = await shows(/^ {10}gateway +\d+ +running/);
    assert.equal(workers.findIndex((l) => /^ {10}gateway +\d+ +running/.test(l)) - 1, workers.findIndex((l) => /^Workers {3}engine +\d+ +running/.test(l)));
    await keys("4");
    await shows(/^Activity: 0 commands/);

    const go = (action: string, subject: string, args: Record<string, unknown> = {}) => act(node.url, ada, { namespace: "acme.counter", action, subject, args });
    assert.equal((await go("Start", "t-1", { label: "first" })).status, 200);
    assert.equal((await go("Reset", "t-1")).status, 422, "a member without the tally delegation may not reset");
    assert.equal((await go("Start", "t-2", { label: "" })).status, 422);
    const lines = await shows(/^Activity: 3 commands, 2 refused/);
    const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
    assert.ok(at(/^ +3 \d\d:\d\d:\d\d\.\d{3} ✗ refused +acme +acme\.counter +Start +t-2$/) < at(/^ +1 .* ✓ accepted +acme +acme\.counter +Start +t-1$/), "newest first");
    assert.equal(lines[at(/^ +3 /) + 1]?.trim(), `└ condition_failed at line ${lineOf("len(label) > 0")}: len(label) > 0`);
    assert.match(lines[at(/^ +2 .* ✗ refused .* Reset +t-1$/) + 1] ?? "", /└ unauthorized: only a holder of a delegation with scope/);

    await keys("/", ..."outcome:refused".split(""), "Enter");
    await shows(/^Activity: 2 commands, 2 refused, newest first; history to #3 \(filtered\)$/);
    await keys("Escape");
    await shows(/^Activity: 3 commands, 2 refused, newest first; history to #3$/);

    burst("3", "4", "5");
    await shows(titles[4]![1]);
    burst("4", "/", "outcome:refused", "Enter");
    await shows(/^Activity: 2 commands, 2 refused, newest first; history to #3 \(filtered\)$/);
    assert.ok(screen().some((l) => /· filter: outcome:refused ·/.test(l)), "the status line names the filter");
    await keys("Escape");
    await shows(/^Activity: 3 commands, 2 refused, newest first; history to #3$/);

    for (const [key, title] of titles) {
      await keys(key);
      await shows(title);
    }
    await keys("Tab");
    await shows(titles[0]![1]);
    await keys("BTab");
    await shows(titles[5]![1]);
    await keys("5");
    await shows(/INFO {2}gateway +listening {2}url=http/);

    tmux("resize-window", "-t", "tui", "-x", "100", "-y", "30");
    await shows(/^1-6\/Tab views/);
    await waitFor("a 30-line frame", () => (screen().findIndex((l) => l.startsWith("1-6/Tab views")) === 29 ? true : undefined));
    tmux("resize-window", "-t", "tui", "-x", "80", "-y", "24");
    await waitFor("a 24-line frame", () => (screen().findIndex((l) => l.startsWith("1-6/Tab views")) === 23 ? true : undefined));

    assert.equal(await quit(), 0);
  });

  test("with the node stopped, a console session changes no file of the data directory", async () => {
    assert.deepEqual(await stopCharter(c as Charter), { code: 0, signal: null });
    c = null;
    const before = checksums(dataDir);
    assert.ok(before["charter.db"] !== undefined && before["logs/charter.log"] !== undefined);
    startConsole(dataDir);
    await shows(/^Node {6}stopped$/);
    await shows(/^Store {5}stopped, read as it is; 1 tenant, \d+ active contracts?, history to #3$/);
    for (const [key, title] of [...titles, ["4", /^Activity: 3 commands, 2 refused/] as [string, RegExp]]) {
      await keys(key);
      await shows(title);
    }
    burst("/", "outcome:refused", "Enter", "Down", "PageDown", "Home");
    await shows(/^Activity: 2 commands, 2 refused, newest first; history to #3 \(filtered\)$/);
    assert.ok(screen().some((l) => /· filter: outcome:refused ·/.test(l)), "the status line names the filter");
    assert.equal(await quit(), 0);
    assert.deepEqual(checksums(dataDir), before);
  });
});
