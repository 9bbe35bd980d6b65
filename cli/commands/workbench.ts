/**
 * @module `charter workbench FILE --steps STEPS.json [--json] [--step-timeout MS]`: tries a contract
 * and a list of steps on a throwaway node (cli/workbench) and prints each step's new state or
 * refusal. Real data directories are never touched.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { RefusalReason } from "../../shared/identity/receipt.ts";
import type { StepReport, WorkbenchStep } from "../workbench/run-workbench.ts";
import { readContractFile } from "./contract-file.ts";

const HELP = `Usage: charter workbench FILE --steps STEPS.json [--json] [--step-timeout MS]

Compiles FILE, starts a throwaway node in a temporary directory, and runs each step in its own
process against it. STEPS.json is a list of {"action", "subject", "args"?, "signer"?}; signers are
names (default "alice"): "owner" owns the throwaway tenant, every other name is a member.
  --json              print the whole result as JSON (with each step's process id)
  --step-timeout MS   kill and report a step that has not answered after MS (default 30000)
`;

/** Checks the steps file's shape; returns the steps or a one-line reason. */
export function parseSteps(text: string): WorkbenchStep[] | string {
  let steps: unknown;
  try {
    steps = JSON.parse(text);
  } catch (error) {
    return `the steps file is not JSON (${(error as Error).message})`;
  }
  // The specification's request shape, `{"steps": [...]}`, or the list itself.
  if (steps !== null && typeof steps === "object" && !Array.isArray(steps) && "steps" in steps) steps = (steps as { steps: unknown }).steps;
  if (!Array.isArray(steps)) return 'the steps file must hold a JSON list of steps, or {"steps": [...]}';
  for (const [i, s] of steps.entries()) {
    const where = `step ${i + 1}`;
    if (s === null || typeof s !== "object" || Array.isArray(s)) return `${where} is not an object`;
    const { action, subject, args, signer, ...rest } = s as Record<string, unknown>;
    if (typeof action !== "string" || action === "") return `${where} needs "action" (a string)`;
    if (typeof subject !== "string" || subject === "") return `${where} needs "subject" (a string)`;
    if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) return `${where}: "args" must be an object`;
    if (signer !== undefined && (typeof signer !== "string" || !/^[a-z][a-z0-9_-]{0,31}$/.test(signer))) return `${where}: "signer" must be a short lower-case name`;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) return `${where} has unknown field(s): ${unknown.join(", ")}`;
  }
  return steps as WorkbenchStep[];
}

/** One step's report as the one line the Workbench prints for it. */
export function describeStep(r: StepReport): string {
  const head = `${r.step}. ${r.action} ${r.subject} by ${r.signer} (pid ${r.pid ?? "-"}): ${r.outcome}`;
  switch (r.outcome) {
    case "accepted":
      return `${head} → ${JSON.stringify(r.state)}`;
    case "refused": {
      const reason = r.reason as RefusalReason;
      return `${head} — ${reason.code}${reason.condition ? `: ${reason.condition}` : ""}${reason.line ? ` (line ${reason.line})` : ""}`;
    }
    case "rejected": {
      const p = r.problem as { detail?: string; errors?: { pointer?: string; detail?: string }[] };
      const fields = (p.errors ?? []).map((e) => `${e.pointer ?? ""} ${e.detail ?? ""}`.trim());
      return `${head} — ${p.detail ?? JSON.stringify(p)}${fields.length ? ` (${fields.join("; ")})` : ""}`;
    }
    default:
      return `${head} — ${r.error}`;
  }
}

export default async function workbench(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { steps: { type: "string" }, json: { type: "boolean" }, "step-timeout": { type: "string" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    process.stderr.write(`charter workbench: ${(error as Error).message.split("\n")[0]}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const file = positionals[0];
  if (file === undefined || positionals.length > 1 || values.steps === undefined) {
    process.stderr.write("charter workbench: usage: charter workbench FILE --steps STEPS.json [--json]\n");
    return 2;
  }
  const timeout = values["step-timeout"] === undefined ? 30_000 : Number(values["step-timeout"]);
  if (!Number.isInteger(timeout) || timeout <= 0) {
    process.stderr.write("charter workbench: --step-timeout expects a positive number of milliseconds\n");
    return 2;
  }
  const source = readContractFile(file);
  if (source === null) return 1;
  let stepsText: string;
  try {
    stepsText = readFileSync(values.steps, "utf8");
  } catch (error) {
    process.stderr.write(`charter workbench: cannot read ${values.steps}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
    return 1;
  }
  const steps = parseSteps(stepsText);
  if (typeof steps === "string") {
    process.stderr.write(`charter workbench: ${values.steps}: ${steps}\n`);
    return 2;
  }
  const { runWorkbench } = await import("../workbench/run-workbench.ts");
  const result = await runWorkbench({ source, steps, stepTimeoutMs: timeout, onStep: values.json ? undefined : (r) => process.stdout.write(`${describeStep(r)}\n`) });
  if (!result.ok) {
    for (const line of result.printed) process.stderr.write(`${file}: ${line}\n`);
    return 1;
  }
  if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return result.steps.some((s) => s.outcome === "timeout" || s.outcome === "failed") ? 1 : 0;
}
