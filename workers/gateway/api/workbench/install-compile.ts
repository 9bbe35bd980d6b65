/**
 * @module Compiling a contract the person wants installed in their personal tenant, as `/v1`'s
 * install does (routes/tenants.ts): in a short-lived child process (contracts/compile-in-child.ts,
 * never in the gateway), checked against the collections the tenant's queries may read and, for an
 * upgrade, against the version it replaces. Installing is the engine's, through its admin channel.
 */
import type { CompileOutcome } from "../../../../contracts/artifact-wire.ts";
import type { CheckOptions, CollectionInfo } from "../../../../contracts/check/check-contract.ts";
import { CompileChildError, compileInChild } from "../../../../contracts/compile-in-child.ts";
import { previousFromSchema, upgradesOf } from "../../../../contracts/previous-schema.ts";
import type { Schema } from "../../../../contracts/schema.ts";
import { ChannelError } from "../../../../shared/channel/messages.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { AdminRequests, AdminRequestType } from "../../../../shared/protocol/admin.ts";
import type { SocketLink } from "../../../../shared/worker/socket-link.ts";
import { adminProblem } from "../../routes/tenants.ts";

/** The engine's admin channel, as the install needs it. */
export type Admin = Pick<SocketLink<AdminRequests>, "request">;

/** The compiler, in a child process; a test may put another in its place. */
export type Compile = (source: string, context: { previous?: CheckOptions["previous"]; collections?: Record<string, CollectionInfo> }) => Promise<CompileOutcome>;

/** Asks the engine; a refusal becomes its problem (routes/tenants.ts's table), an engine that went away a 503. */
export async function askAdmin<K extends AdminRequestType>(admin: Admin, type: K, body: AdminRequests[K]["request"]): Promise<AdminRequests[K]["response"] & { ok: true }> {
  let result: AdminRequests[K]["response"];
  try {
    result = await admin.request(type, body);
  } catch (error) {
    if (error instanceof ChannelError) throw new HttpProblem(problem(503, "engine-unavailable", "the engine is restarting; try again"));
    throw error;
  }
  if (!result.ok) throw adminProblem(result.error);
  return result as AdminRequests[K]["response"] & { ok: true };
}

/** `source` compiled for `tenant`: the artifact, or its located errors. A compiler that fails or runs out of time is a 503. */
export async function compileForInstall(admin: Admin, tenant: string, source: string, compile: Compile = compileInChild): Promise<CompileOutcome> {
  const { value: collections } = await askAdmin(admin, "collections", { tenant });
  const compiled = await compileOnce(compile, source, { collections });
  const upgrades = compiled.ok ? upgradesOf(compiled.artifact.schemaJson) : null;
  if (upgrades === null) return compiled;
  // An upgrade is checked again against the version it replaces (missing `migrate` lines, old.FIELD).
  const replaced = await admin.request("artifact-schema", { id: upgrades }).catch(() => null);
  if (replaced?.ok !== true) return compiled;
  return compileOnce(compile, source, { collections, previous: previousFromSchema(JSON.parse(replaced.value.schemaJson) as Schema) });
}

async function compileOnce(compile: Compile, source: string, context: Parameters<Compile>[1]): Promise<CompileOutcome> {
  try {
    return await compile(source, context);
  } catch (error) {
    if (error instanceof CompileChildError && error.timedOut) throw new HttpProblem(problem(503, "compile-timeout", error.message));
    if (error instanceof CompileChildError) throw new HttpProblem(problem(503, "compile-failed", `the compiler's process failed (${error.message}); nothing was installed`));
    throw error;
  }
}

/** The problem of a source that does not compile: `422 compile-errors` with each error's message, line and column. */
export function compileErrors(errors: readonly object[]): HttpProblem {
  const count = errors.length;
  return new HttpProblem(problem(422, "compile-errors", `the contract has ${count} error${count === 1 ? "" : "s"}`, errors));
}
