/**
 * @module The Workbench: try a contract and a list of steps without touching real records. It
 * compiles the contract, starts a throwaway node in a temporary directory, installs the contract
 * for a throwaway tenant whose identities it creates, runs each step in a separate process against
 * that node, and reports each step's new state or refusal. The node and its directory are removed
 * afterwards, also when interrupted. A step that hangs is killed after a limit and reported so.
 *
 * Signers are named in the steps (default `alice`): the one named `owner` owns the tenant, every
 * other name is a member.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runAdmin } from "../../cli/admin-client.ts";
import { artifactWire, type LocatedError, locatedErrors } from "../../contracts/artifact-wire.ts";
import { compileContract } from "../../contracts/compile.ts";
import { generateKeyPair, type KeyPair, saveKeyFile } from "../../shared/identity/index.ts";
import { makeDirsSync } from "../../shared/make-dirs.ts";

export interface WorkbenchStep {
  readonly action: string;
  readonly subject: string;
  readonly args?: Record<string, unknown>;
  readonly signer?: string;
}

export interface StepReport {
  readonly step: number;
  readonly action: string;
  readonly subject: string;
  readonly signer: string;
  readonly pid: number | null;
  readonly outcome: "accepted" | "refused" | "rejected" | "timeout" | "failed";
  /** The subject's public state after the step (accepted or refused). */
  readonly state?: Record<string, unknown>;
  /** Why a command was refused (the receipt's reason). */
  readonly reason?: unknown;
  /** A command that was not accepted as a command at all: its problem document. */
  readonly problem?: unknown;
  readonly error?: string;
}

export type WorkbenchResult =
  | { readonly ok: true; readonly artifact: string; readonly namespace: string; readonly steps: readonly StepReport[] }
  | { readonly ok: false; readonly errors: readonly LocatedError[]; readonly printed: readonly string[] };

const TENANT = "workbench";
const bin = fileURLToPath(new URL("../../bin/charter.js", import.meta.url));
const stepScript = fileURLToPath(new URL("./step.ts", import.meta.url));

export async function runWorkbench(options: { source: string; steps: readonly WorkbenchStep[]; stepTimeoutMs?: number; onStep?: (r: StepReport) => void }): Promise<WorkbenchResult> {
  const compiled = compileContract(options.source);
  if (compiled.artifact === undefined) return locatedErrors(options.source, compiled.diagnostics);
  const artifact = compiled.artifact;
  const dir = mkdtempSync(join(tmpdir(), "charter-workbench-"));
  let node: ChildProcess | null = null;
  const children = new Set<ChildProcess>();
  const cleanup = () => {
    for (const c of children) c.kill("SIGKILL");
    node?.kill("SIGTERM");
  };
  const onSignal = () => {
    cleanup();
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
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
    await admin(runAdmin(data, "tenant-create", { handle: TENANT, owners: [owner.did], by: null }));
    for (const [name, key] of keys) if (name !== "owner") await admin(runAdmin(data, "tenant-member-add", { tenant: TENANT, did: key.did }));
    await admin(runAdmin(data, "install", { tenant: TENANT, artifact: artifactWire(artifact, options.source), by: owner.did }));

    node = spawn(process.execPath, [bin, "serve", "--data", data, "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "pipe"] });
    const url = await urlOf(node);
    const reports: StepReport[] = [];
    for (const [i, step] of options.steps.entries()) {
      const report = await runStep(i + 1, step, { url, dir, namespace: artifact.schema.namespace, timeoutMs: options.stepTimeoutMs ?? 30_000, children });
      reports.push(report);
      options.onStep?.(report);
    }
    return { ok: true, artifact: artifact.id, namespace: artifact.schema.namespace, steps: reports };
  } finally {
    cleanup();
    if (node !== null && node.exitCode === null) await new Promise((r) => node?.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

async function admin<T>(answer: Promise<{ ok: true; value: T } | { ok: false; error: { code: string; message: string } }>): Promise<T> {
  const r = await answer;
  if (!r.ok) throw new Error(`${r.error.message} (${r.error.code})`);
  return r.value;
}

function urlOf(node: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    node.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    node.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    node.once("exit", (code) => reject(new Error(`the throwaway node exited (${code}) before it served:\n${err}`)));
  });
}

function runStep(
  index: number,
  step: WorkbenchStep,
  ctx: { url: string; dir: string; namespace: string; timeoutMs: number; children: Set<ChildProcess> },
): Promise<StepReport> {
  const signer = step.signer ?? "alice";
  const base = { step: index, action: step.action, subject: step.subject, signer };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", stepScript], { stdio: ["pipe", "pipe", "pipe"] });
    ctx.children.add(child);
    let out = "";
    let err = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, ctx.timeoutMs);
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => {
      clearTimeout(timer);
      ctx.children.delete(child);
      const pid = child.pid ?? null;
      if (timedOut) return resolve({ ...base, pid, outcome: "timeout", error: `no answer within ${ctx.timeoutMs} ms; the step was killed` });
      if (code !== 0) return resolve({ ...base, pid, outcome: "failed", error: err.trim().split("\n").at(-1) ?? `exit ${code}` });
      const { status, body } = JSON.parse(out) as { status: number; body: { receipt?: { outcome: "accepted" | "refused"; state: Record<string, unknown>; reason: unknown } } };
      const receipt = body.receipt;
      if (receipt === undefined) return resolve({ ...base, pid, outcome: "rejected", problem: body });
      resolve({ ...base, pid, outcome: receipt.outcome, state: receipt.state, ...(status === 422 ? { reason: receipt.reason } : {}) });
    });
    child.stdin.end(
      JSON.stringify({
        url: ctx.url,
        keyFile: join(ctx.dir, "signers", `${signer}.jwk`),
        command: { tenant: TENANT, namespace: ctx.namespace, action: step.action, subject: step.subject, args: step.args ?? {} },
      }),
    );
  });
}
