/**
 * @module A prepared data directory for the console's tests: tenant `acme` with an owner, two
 * members and two delegations (one expired), the shipping contract upgraded to v2 (v1 replaced),
 * the counter installed then retired, a history of accepted and refused commands with the reasons
 * the engine records, and a log with info, warning and error lines. The store is closed cleanly,
 * so no WAL is left: exactly what a stopped node leaves behind.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compileContract } from "../../contracts/compile.ts";
import { refusals } from "../../contracts/refusals.ts";
import type { KeyPair } from "../../shared/identity/index.ts";
import { loadOrCreateNodeKey } from "../../shared/identity/key-file.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { installArtifact } from "../../workers/engine/install.ts";
import { retireNamespace } from "../../workers/engine/retire.ts";
import { delegate } from "../../workers/engine/tenants.ts";
import { example, seed } from "./seed.ts";

export interface ConsoleData {
  readonly owner: KeyPair;
  readonly members: KeyPair[];
  /** Artifact ids by namespace (the active or last one) and of the replaced shipping v1. */
  readonly artifacts: Record<string, string>;
  readonly shippingV1: string;
  /** When the history's first command committed (ms); each next one is a second later. */
  readonly start: number;
  /** The node's own did:key (its key file exists, as after a first run). */
  readonly nodeDid: string;
}

/** The refused commands' reasons, as the history holds them. */
export const reasons = {
  units: refusals.conditionFailed("units > 0", 31),
  label: refusals.conditionFailed("len(label) > 0", 19),
  reset: { code: "unauthorized", condition: null, line: null, message: "only a holder of a delegation with scope tally or an owner may do this" },
};

export async function prepareConsoleData(dataDir: string): Promise<ConsoleData> {
  const s = await seed(dataDir, { contracts: [example("shipping.charter.md"), example("counter.charter.md")] });
  const [ada, bob] = s.members as [KeyPair, KeyPair];
  const db = openDatabase(join(dataDir, "charter.db"));
  const shippingV1 = s.artifacts["acme.shipping"] as string;
  // The example upgrades the shipping example's artifact: the v1 just installed.
  const v2Source = example("shipping-v2.charter.md");
  const v2 = compileContract(v2Source).artifact;
  if (v2 === undefined) throw new Error("shipping-v2 does not compile");
  const upgraded = installArtifact(db, {
    tenant: "acme",
    artifact: { id: v2.id, schemaJson: new TextDecoder().decode(v2.schemaBytes), wasm: v2.wasm, source: v2Source },
    installedBy: s.owner.did,
    now: Date.now(),
  });
  if (!upgraded.ok) throw new Error(upgraded.error.message);
  const granted = delegate(db, { tenant: "acme", did: bob.did, scope: "tally", until: "2999-01-01", now: Date.now() });
  const lapsed = delegate(db, { tenant: "acme", did: ada.did, scope: "shipping.dispatch", until: "2020-06-01", now: Date.parse("2020-01-01") });
  if (!granted.ok || !lapsed.ok) throw new Error("could not delegate");

  const start = Date.parse("2026-03-01T09:00:00Z");
  const insert = db.prepare(
    "INSERT INTO history (seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, reason, args, command, before_digest, after_digest, receipt, committed_at) VALUES (?, 'acme', ?, ?, ?, ?, ?, ?, ?, ?, '{}', 'jws', 'b', 'a', 'r', ?)",
  );
  const counter = s.artifacts["acme.counter"] as string;
  const rows: [string, string, string, string, KeyPair, string, object | null][] = [
    ["acme.counter", "Tally", "t-1", "Start", ada, counter, null],
    ["acme.counter", "Tally", "t-1", "Increment", ada, counter, null],
    ["acme.counter", "Tally", "t-1", "Reset", ada, counter, reasons.reset],
    ["acme.shipping", "Order", "o-1", "Request", bob, shippingV1, reasons.units],
    ["acme.shipping", "Order", "o-2", "Request", bob, shippingV1, null],
    ["acme.counter", "Tally", "t-2", "Start", bob, counter, reasons.label],
  ];
  rows.forEach(([namespace, aggregate, subject, action, signer, artifact, reason], i) =>
    insert.run(i + 1, namespace, aggregate, subject, action, signer.did, artifact, reason === null ? "accepted" : "refused", reason === null ? null : JSON.stringify(reason), start + i * 1000),
  );
  const retired = retireNamespace(db, "acme", "acme.counter");
  if (!retired.ok) throw new Error(retired.error.message);
  db.close();

  const key = await loadOrCreateNodeKey(dataDir);
  if (!key.ok) throw new Error(key.error.message);
  mkdirSync(join(dataDir, "logs"), { recursive: true });
  const log = [
    { t: "2026-03-01T08:59:58.000Z", level: "info", component: "supervisor", msg: "worker started", worker: "engine", pid: 4001 },
    { t: "2026-03-01T08:59:58.500Z", level: "info", component: "gateway", msg: "listening", url: "http://127.0.0.1:1" },
    { t: "2026-03-01T08:59:59.000Z", level: "debug", component: "engine", msg: "batch committed", commands: 3 },
    { t: "2026-03-01T09:00:03.000Z", level: "warn", component: "supervisor", msg: "worker exited", worker: "gateway", code: 1 },
    { t: "2026-03-01T09:00:04.000Z", level: "error", component: "gateway", msg: "could not bind", error: "EADDRINUSE" },
    { t: "2026-03-01T09:00:05.000Z", level: "info", component: "engine", msg: "running", pid: 4001 },
  ];
  writeFileSync(join(dataDir, "logs", "charter.log"), log.map((r) => `${JSON.stringify(r)}\n`).join(""));
  return { owner: s.owner, members: s.members, artifacts: { ...s.artifacts, "acme.shipping": v2.id }, shippingV1, start, nodeDid: key.value.did };
}
