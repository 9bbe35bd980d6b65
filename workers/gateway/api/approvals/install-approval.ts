/**
 * @module Installing a contract from the Workbench, as an approval. Asking compiles the source (in
 * a child process) and, when it compiles, records a waiting `install` approval that keeps the whole
 * source and the artifact id it compiles to. Approving compiles the kept source again — nothing is
 * decided when it no longer compiles, or no longer to the approved artifact — then the route
 * records the decision and the engine installs the artifact in the personal tenant, by the person,
 * through its admin channel: hot, as any install. The engine may still refuse (an upgrade of
 * another version, records that cannot migrate): the approval stays approved, and the answer says
 * why nothing was installed. Either way what came of it is recorded in the approval (`CarriedOut`);
 * an approval approved but never carried out (the node stopped in between) is carried out when the
 * node starts again (`finishApproved`).
 */
import { createHash } from "node:crypto";
import type { ArtifactWire } from "../../../../contracts/artifact-wire.ts";
import { HttpProblem, type Problem, problem } from "../../../../shared/problem.ts";
import type { Logger } from "../../../../shared/log.ts";
import type { Installed } from "../../../../shared/protocol/admin.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { type Admin, askAdmin, type Compile, compileErrors, compileForInstall } from "../workbench/install-compile.ts";
import { APPROVALS, approvalId, type ApprovalView, approvalView, readApproval, type Signed, signApproval } from "./approval-records.ts";

/** The kind of an install approval. */
export const INSTALL = "install";

/** The longest source an install approval keeps, in characters: the contract's `payload: Text(len=65536)`. */
export const MAX_INSTALL_SOURCE = 65_536;

/** What asking for and carrying out installs needs. */
export interface InstallDeps {
  readonly admin: Admin;
  readonly writer: PersonWriter;
  readonly reader: PersonReader;
  readonly now: () => number;
  /** The compiler, in a child process (contracts/compile-in-child.ts unless a test says otherwise). */
  readonly compile?: Compile;
}

/**
 * Compiles `source` for the personal tenant and records a waiting approval to install it; a source
 * that does not compile is `422 compile-errors` and nothing is recorded. A source longer than an
 * approval keeps is `413` before anything is compiled.
 */
export async function requestInstall(deps: InstallDeps, source: string): Promise<{ approval: Pick<ApprovalView, "id" | "kind" | "summary" | "status">; signed: Signed }> {
  if (codePoints(source, MAX_INSTALL_SOURCE) > MAX_INSTALL_SOURCE) {
    throw new HttpProblem(problem(413, "body-too-large", `the contract's source is over ${MAX_INSTALL_SOURCE} characters, the most an install approval keeps`));
  }
  const compiled = await compileForInstall(deps.admin, deps.reader.personalTenant(), source, deps.compile);
  if (!compiled.ok) throw compileErrors(compiled.errors);
  const { artifact } = compiled;
  const summary = summaryOf(artifact);
  const id = approvalId(deps.now());
  const args = { kind: INSTALL, summary, payload: source, digest: createHash("sha256").update(source, "utf8").digest("hex"), target: artifact.id, sensitive: true };
  const signed = await signApproval(deps.writer, { action: "Request", subject: id, args });
  return { approval: { id, kind: INSTALL, summary, status: "waiting" }, signed };
}

/**
 * The artifact an approved install would put in place: the kept source compiled again, now. Its
 * errors are `422 compile-errors`; an artifact other than the approved one is `409 approval-stale`.
 */
export async function artifactToInstall(deps: InstallDeps, approval: Pick<ApprovalView, "id" | "payload" | "target">): Promise<ArtifactWire> {
  const compiled = await compileForInstall(deps.admin, deps.reader.personalTenant(), approval.payload ?? "", deps.compile);
  if (!compiled.ok) throw compileErrors(compiled.errors);
  if (compiled.artifact.id !== approval.target) {
    throw new HttpProblem(problem(409, "approval-stale", `approval ${approval.id} is for ${approval.target}, but its source now compiles to ${compiled.artifact.id}; ask again`));
  }
  return compiled.artifact;
}

/** Installs `artifact` in the personal tenant by the person (an owner): the engine's result, or the problem of its refusal. */
export async function install(deps: InstallDeps, artifact: ArtifactWire): Promise<{ ok: true; value: Installed } | { ok: false; problem: Problem }> {
  const tenant = deps.reader.personalTenant();
  const by = deps.reader.did();
  try {
    const { value } = await askAdmin(deps.admin, "install", { tenant, artifact, by, requireOwner: true });
    return { ok: true, value };
  } catch (error) {
    // A refusal (4xx) is the caller's to report beside the approval's receipt; a 503 or a bug is thrown on.
    if (error instanceof HttpProblem && error.problem.status < 500) return { ok: false, problem: error.problem };
    throw error;
  }
}

/** The longest outcome an approval keeps: the contract's `outcome: Text(len=500)`. */
const MAX_OUTCOME = 500;

/**
 * Installs the artifact of approved install `id` and records what came of it in the approval
 * (`CarriedOut`: installed, or why the engine refused): the engine's result, or its refusal.
 */
export async function carryOut(deps: InstallDeps, id: string, artifact: ArtifactWire): Promise<{ ok: true; value: Installed } | { ok: false; problem: Problem }> {
  const installed = await install(deps, artifact);
  const outcome = installed.ok
    ? `installed ${installed.value.namespace} ${installed.value.version}${installed.value.unchanged ? " (it was already)" : ""}`
    : `not installed: ${installed.problem.code ?? installed.problem.title}: ${installed.problem.detail ?? ""}`;
  await recordOutcome(deps, id, outcome);
  return installed;
}

/**
 * Carries out the install approvals that were approved but not carried out (the node stopped
 * between the decision and the install): each kept source compiled again and installed, or the
 * reason it was not recorded. Answers how many it finished; the engine being away is thrown, to be
 * tried again.
 */
export async function finishApproved(deps: InstallDeps, log: Logger): Promise<number> {
  const { rows } = deps.reader.query(undefined, APPROVALS, "Unfinished", { limit: 50 });
  let finished = 0;
  for (const row of rows) {
    const id = String(row.id);
    if (approvalView(id, row).kind !== INSTALL) continue;
    let outcome: string | null = null;
    try {
      const artifact = await artifactToInstall(deps, readApproval(deps.reader, id));
      const installed = await carryOut(deps, id, artifact);
      log.info("carried out an approved install", { approval: id, installed: installed.ok, ...(installed.ok ? { namespace: installed.value.namespace } : { code: installed.problem.code }) });
    } catch (error) {
      // A source that no longer compiles to the approved artifact is recorded as such; anything else is thrown.
      if (!(error instanceof HttpProblem) || error.problem.status >= 500) throw error;
      outcome = `not installed: ${error.problem.code ?? error.problem.title}: ${error.problem.detail ?? ""}`;
    }
    if (outcome !== null) {
      await recordOutcome(deps, id, outcome);
      log.info("an approved install could not be carried out", { approval: id, outcome });
    }
    finished++;
  }
  return finished;
}

/** Records `outcome` as what came of approval `id`; one recorded already (by another start) is left as it is. */
async function recordOutcome(deps: InstallDeps, id: string, outcome: string): Promise<void> {
  const answer = await deps.writer.act({ namespace: APPROVALS, action: "CarriedOut", subject: id, args: { outcome: clip(outcome, MAX_OUTCOME) } });
  if (answer.kind === "problem") throw new HttpProblem(answer.problem);
}

/** `text` cut to at most `max` code points. */
function clip(text: string, max: number): string {
  return codePoints(text, max) <= max ? text : `${[...text].slice(0, max - 1).join("")}…`;
}

/** One line for the person: what would be installed. */
function summaryOf(artifact: ArtifactWire): string {
  const schema = JSON.parse(artifact.schemaJson) as { namespace: string; version: string; upgrades: string | null };
  const upgrade = schema.upgrades === null ? "" : `, upgrading ${schema.upgrades.slice(0, 16)}…`;
  return `Install ${schema.namespace} ${schema.version} (${artifact.id.slice(0, 16)}…${upgrade})`;
}

/** The number of code points of `text`, counted up to a little past `limit`. */
function codePoints(text: string, limit: number): number {
  // UTF-16 units are never fewer than code points: a short string needs no count.
  if (text.length <= limit) return text.length;
  let n = 0;
  for (const _ of text) if (++n > limit) break;
  return n;
}
