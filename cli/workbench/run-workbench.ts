/**
 * @module The Workbench: try a contract and a list of steps without touching real records. It
 * compiles the contract, starts a throwaway node in a temporary directory, installs the contract
 * for a throwaway tenant whose identities it creates, runs each step in a separate process against
 * that node, and reports each step's new state or refusal. The node and its directory are removed
 * afterwards, also when interrupted. A step that hangs is stopped after a limit (and killed if it
 * lingers) and reported so; one whose process fails is reported in one line.
 *
 * Signers are named in the steps (default `alice`): the one named `owner` owns the tenant, every
 * other name is a member.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execaNode, type ResultPromise } from "execa";
import { runAdmin } from "../admin-client.ts";
import { artifactWire, type LocatedError, locatedErrors } from "../../contracts/artifact-wire.ts";
import { compileContract } from "../../contracts/compile.ts";
import { generateKeyPair, type KeyPair, saveKeyFile } from "../../shared/identity/index.ts";
import { makeDirsSync } from "../../shared/make-dirs.ts";
import { runNodeChild } from "../../shared/node-child.ts";
import { type StepReport, stepReport } from "./step-report.ts";

export type { StepReport } from "./step-report.ts";

export interface WorkbenchStep {
  readonly action: string;
  readonly subject: string;
  readonly args?: Record<string, unknown>;
  readonly signer?: string;
}

export type WorkbenchResult =
  | { readonly ok: true; readonly artifact: string; readonly namespace: string; readonly steps: readonly StepReport[] }
  | { readonly ok: false; readonly errors: readonly LocatedError[]; readonly printed: readonly string[] };

const TENANT = "workbench";
const bin = fileURLToPath(new URL("../../bin/charter.js", import.meta.url));
const stepScript = fileURLToPath(new URL("./step.ts", import.meta.url));
/** A step told to stop at its limit is killed if it is still running this much later. */
const STEP_KILL_AFTER_MS = 2_000;
/** The throwaway node gets this long to shut down on SIGTERM before it is killed. */
const NODE_KILL_AFTER_MS = 10_000;
/**
 * Interrupted, the Workbench gives the throwaway node this long to stop before it kills it: it must
 * be gone before its directory is removed (a node still stopping writes into it), and the whole
 * clean-up must end well within the time a parent gives it (the gateway's KILL_AFTER_MS).
 */
export const INTERRUPTED_NODE_STOP_MS = 3_000;

type NodeProcess = ResultPromise<{ stdin: "ignore"; buffer: false; reject: false }>;

/**
 * Runs the Workbench. `dir`, when given, is an empty directory it works in (its caller made it and
 * removes it too, whatever becomes of this process); by default it makes one under the system's
 * temporary directory.
 */
export async function runWorkbench(options: { source: string; steps: readonly WorkbenchStep[]; stepTimeoutMs?: number; onStep?: (r: StepReport) => void; dir?: string }): Promise<WorkbenchResult> {
  const compiled = compileContract(options.source);
  if (compiled.artifact === undefined) return locatedErrors(options.source, compiled.diagnostics);
  const artifact = compiled.artifact;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "charter-workbench-"));
  let node: NodeProcess | null = null;
  // Stops a running step; the node is told to stop at the same time.
  const stop = new AbortController();
  const cleanup = () => {
    stop.abort();
    node?.kill();
  };
  // Interrupted: the step and the node are stopped, the node awaited (killed if it lingers), and only
  // then is the directory removed, so that nothing writes into it afterwards.
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) return;
    interrupted = true;
    stop.abort();
    void stopNode(node).finally(() => {
      removeDir(dir);
      process.exit(130);
    });
  };
  // `on`, not `once`: execa's exit handler re-raises a signal that no other listener is left to take.
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const names = [...new Set(options.steps.map((s) => s.signer ?? "alice"))];
    const keys = new Map<string, KeyPair>(names.map((n) => [n, generateKeyPair()]));
    if (!keys.has("owner")) keys.set("owner", generateKeyPair());
    makeDirsSync(join(dir, "signers"));
    for (const [name, key] of keys) {
      const saved = await saveKeyFile(join(dir, "signers", `${name}.jwk`), key);
      if (!saved.ok) throw new Error(saved.error.message);
    }
    const owner = keys.get("owner") as KeyPair;
    const data = join(dir, "data");
    await admin(runAdmin(data, "tenant-create", { handle: TENANT, owners: [owner.did], by: null }, { create: true }));
    for (const [name, key] of keys) if (name !== "owner") await admin(runAdmin(data, "tenant-member-add", { tenant: TENANT, did: key.did }));
    await admin(runAdmin(data, "install", { tenant: TENANT, artifact: artifactWire(artifact, options.source), by: owner.did }));

    node = execaNode(bin, ["serve", "--data", data, "--listen", "127.0.0.1:0"], {
      nodePath: process.execPath, nodeOptions: [], ipc: false, stdin: "ignore", buffer: false, reject: false, forceKillAfterDelay: NODE_KILL_AFTER_MS,
    });
    const url = await urlOf(node);
    const reports: StepReport[] = [];
    for (const [i, step] of options.steps.entries()) {
      const report = await runStep(i + 1, step, { url, dir, namespace: artifact.schema.namespace, timeoutMs: options.stepTimeoutMs ?? 30_000, stop: stop.signal });
      reports.push(report);
      options.onStep?.(report);
    }
    return { ok: true, artifact: artifact.id, namespace: artifact.schema.namespace, steps: reports };
  } finally {
    cleanup();
    if (node !== null) await node;
    if (!interrupted) removeDir(dir);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** Stops the throwaway node: SIGTERM, then SIGKILL if it has not exited within INTERRUPTED_NODE_STOP_MS. */
async function stopNode(node: NodeProcess | null): Promise<void> {
  if (node === null) return;
  node.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const lingering = new Promise<"lingering">((resolve) => (timer = setTimeout(() => resolve("lingering"), INTERRUPTED_NODE_STOP_MS)));
  const ended = await Promise.race([node.then(() => "ended" as const), lingering]);
  clearTimeout(timer);
  if (ended === "lingering") {
    node.kill("SIGKILL");
    await node;
  }
}

/** Removes the Workbench's directory; a process that has just stopped may still be closing files in it. */
function removeDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  } catch (error) {
    process.stderr.write(`charter: could not remove the Workbench's directory ${dir}: ${(error as Error).message}\n`);
  }
}

async function admin<T>(answer: Promise<{ ok: true; value: T } | { ok: false; error: { code: string; message: string } }>): Promise<T> {
  const r = await answer;
  if (!r.ok) throw new Error(`${r.error.message} (${r.error.code})`);
  return r.value;
}

/** The node's URL, from the line it prints once it serves. */
function urlOf(node: NodeProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    node.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    node.stderr.on("data", (d: Buffer) => (err += d.toString()));
    void node.then((ended) => reject(new Error(`the throwaway node exited (${ended.signal ?? ended.exitCode}) before it served:\n${err}`)));
  });
}

async function runStep(
  index: number,
  step: WorkbenchStep,
  ctx: { url: string; dir: string; namespace: string; timeoutMs: number; stop: AbortSignal },
): Promise<StepReport> {
  const signer = step.signer ?? "alice";
  const input = JSON.stringify({
    url: ctx.url,
    keyFile: join(ctx.dir, "signers", `${signer}.jwk`),
    command: { tenant: TENANT, namespace: ctx.namespace, action: step.action, subject: step.subject, args: step.args ?? {} },
  });
  const outcome = await runNodeChild(stepScript, {
    input, timeoutMs: ctx.timeoutMs, killAfterMs: STEP_KILL_AFTER_MS, nodeOptions: ["--disable-warning=ExperimentalWarning"], cancelSignal: ctx.stop,
  });
  return stepReport({ step: index, action: step.action, subject: step.subject, signer }, outcome, ctx.timeoutMs);
}
