/**
 * @module A store for the write path's unit tests: an in-memory SQLite store, migrated, with tenant
 * `acme` (an owner, members, a `shipping` delegate and a delegate of an unrelated scope) with the
 * standard library and the shipping example installed; the planner's dependencies on it, the programs running inline.
 */
import { readFileSync } from "node:fs";
import type { DatabaseSync } from "node:sqlite";
import { compileContract } from "../../contracts/compile.ts";
import { generateKeyPair } from "../../shared/identity/key-pair.ts";
import type { SubmittedCommand } from "../../shared/protocol/engine.ts";
import { migrate } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { rolesOf, tenantExists } from "../../shared/store/roles.ts";
import { ArtifactCache } from "./artifact-cache.ts";
import type { Pending, PlanDeps } from "./command-plan.ts";
import { runGroups } from "./executor/run-groups.ts";
import { installArtifact } from "./install.ts";
import { installStandardLibrary } from "./std-library.ts";
import { addRole, delegate } from "./tenants.ts";

export const NOW = Date.parse("2026-11-21T10:00:00Z");
export const NS = "acme.shipping";

/** The tenant's callers, by role. */
export const callers = {
  owner: generateKeyPair().did,
  ada: generateKeyPair().did,
  bob: generateKeyPair().did,
  carol: generateKeyPair().did,
  dave: generateKeyPair().did,
  stranger: generateKeyPair().did,
} as const;

export interface Fixture {
  readonly db: DatabaseSync;
  readonly artifacts: ArtifactCache;
  readonly deps: PlanDeps;
  readonly shipping: string;
}

/** A fresh store: `acme` owned by `owner`, with members ada and bob, carol holding `shipping`, dave `totally-unrelated`. */
export function memoryStore(): Fixture {
  const db = openDatabase(":memory:");
  migrate(db);
  db.prepare("INSERT INTO tenants (handle, did, created_at, created_by) VALUES ('acme', ?, ?, NULL)").run(generateKeyPair().did, NOW);
  installStandardLibrary(db, "acme", null, NOW);
  for (const [did, role] of [[callers.owner, "owner"], [callers.ada, "member"], [callers.bob, "member"]] as const) addRole(db, "acme", did, role, NOW);
  for (const [did, scope] of [[callers.carol, "shipping"], [callers.dave, "totally-unrelated"]]) delegate(db, { tenant: "acme", did: did as string, scope: scope as string, now: NOW });
  const source = readFileSync(new URL("../../contracts/examples/shipping.charter.md", import.meta.url), "utf8");
  const artifact = compileContract(source).artifact;
  if (artifact === undefined) throw new Error("the shipping example does not compile");
  const installed = installArtifact(db, { tenant: "acme", artifact: { id: artifact.id, schemaJson: new TextDecoder().decode(artifact.schemaBytes), wasm: artifact.wasm, source }, installedBy: callers.owner, now: NOW });
  if (!installed.ok) throw new Error(installed.error.message);
  const artifacts = new ArtifactCache(db);
  const deps: PlanDeps = {
    db,
    artifacts,
    executor: { run: async (groups) => runGroups((id) => artifacts.get(id).program, groups) },
    roles: (tenant, did, now) => (tenantExists(db, tenant) ? rolesOf(db, tenant, did, now) : null),
  };
  return { db, artifacts, deps, shipping: artifact.id };
}

let made = 0;

/** A command as the gateway hands it over (its signature already checked, so the JWS here is a stand-in). */
export function command(signer: string, action: string, subject: string, args: Record<string, unknown> = {}, options: { key?: string; namespace?: string } = {}): SubmittedCommand {
  made += 1;
  const jws = `jws-${made}`;
  return {
    jws,
    digest: `digest-${made}`,
    signer,
    payload: { tenant: "acme", namespace: options.namespace ?? NS, action, subject, args, idempotencyKey: options.key ?? `key-${made}`, issuedAt: new Date(NOW).toISOString() },
  };
}

/** Commands waiting for answers, each answer kept in `answers` at the command's index. */
export function pending(commands: readonly SubmittedCommand[]): { batch: Pending[]; answers: unknown[] } {
  const answers: unknown[] = [];
  return { batch: commands.map((c, i) => ({ command: c, resolve: (a) => (answers[i] = a) })), answers };
}

/** The arguments of a Request. */
export const order = (units = 4) => ({ customer: "Ada Ltd", destination: "Oslo", units, crates: 1, credit_terms: true });
