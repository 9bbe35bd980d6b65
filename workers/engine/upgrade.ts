/**
 * @module Migrating a tenant's records to a new version of a contract (`upgrades art_…` +
 * `migrate`), inside the install's transaction: every record of every aggregate the two versions
 * share is read from the old version's table, rebuilt field by field — a `migrate` line if there is
 * one, else the old value when the field kept its name and type, else the field's default — checked
 * against the new types (text lengths, list capacities), written to the new version's table with a
 * history entry bound to the new artifact that names the old one, and removed from the old table.
 * One record that cannot migrate refuses the whole upgrade, naming the record and the line.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Expr, Type } from "../../contracts/ast.ts";
import { evaluate, fits, Refusal } from "../../contracts/interpreter/evaluate.ts";
import { fromJson, isProblem, toJson, type Value } from "../../contracts/interpreter/values.ts";
import type { Schema, SchemaField } from "../../contracts/schema.ts";
import { columnName, fromColumn, quote, tableName } from "../../contracts/storage/columns.ts";
import { stateDigest } from "./commands.ts";
import { dropTenantFulltext } from "./read-indexes.ts";
import { StateTable } from "./state-table.ts";

export type MigrationResult = { readonly ok: true; readonly migrated: number } | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

interface Version {
  readonly id: string;
  readonly schema: Schema;
}

/** Thrown inside the migration to abandon it; the install's transaction rolls back. */
class MigrationRefused extends Error {}

const sameType = (a: Type, b: Type) => JSON.stringify(a) === JSON.stringify(b);

/** Moves every record of `tenant` from `from`'s tables to `to`'s. Runs inside the caller's transaction. */
export function migrateRecords(db: DatabaseSync, input: { tenant: string; from: Version; to: Version; by: string; now: number }): MigrationResult {
  const { tenant, from, to, by, now } = input;
  const insertHistory = db.prepare(
    "INSERT INTO history (seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, reason, args, command, before_digest, after_digest, receipt, committed_at) " +
      "VALUES (?, ?, ?, ?, ?, 'migrate', ?, ?, 'accepted', NULL, ?, '', ?, ?, ?, ?)",
  );
  let seq = Number((db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM history").get() as { seq: number }).seq);
  let migrated = 0;
  try {
    for (const [aggregate, { fields }] of Object.entries(to.schema.aggregates)) {
      const oldFields = from.schema.aggregates[aggregate]?.fields;
      if (oldFields === undefined) continue;
      const lines = new Map((to.schema.migrations[aggregate] ?? []).map((m) => [m.field, m]));
      const target = new StateTable(db, to.schema, aggregate);
      const source = quote(tableName(from.schema, aggregate));
      const rows = db.prepare(`SELECT * FROM ${source} WHERE tenant = ? ORDER BY subject`);
      rows.setReadBigInts(true);
      for (const row of rows.iterate(tenant) as Iterable<Record<string, unknown>>) {
        const subject = row.subject as string;
        const old = new Map<string, Value>();
        const oldJson: Record<string, unknown> = {};
        for (const f of oldFields) {
          oldJson[f.name] = fromColumn(f.type, row[columnName(f.name)]);
          const v = fromJson(f.type, oldJson[f.name]);
          old.set(f.name, isProblem(v) ? null : v);
        }
        const state = rebuild({ fields, oldFields, old, oldJson, lines, aggregate, subject });
        seq++;
        // `state` (the public state after) as in a command's receipt: `asof` reads states from history.
        const publicState = Object.fromEntries(fields.filter((f) => f.visibility === "public").map((f) => [f.name, state[f.name] ?? null]));
        const receipt = { kind: "migration", seq, tenant, namespace: to.schema.namespace, aggregate, subject, from: from.id, to: to.id, state: publicState, committedAt: new Date(now).toISOString() };
        insertHistory.run(
          seq,
          tenant,
          to.schema.namespace,
          aggregate,
          subject,
          by,
          to.id,
          JSON.stringify({ from: from.id }),
          stateDigest(oldFields, oldJson),
          stateDigest(fields, state),
          JSON.stringify(receipt),
          now,
        );
        target.write(tenant, subject, to.id, seq, state);
        migrated++;
      }
      db.prepare(`DELETE FROM ${source} WHERE tenant = ?`).run(tenant);
      dropTenantFulltext(db, from.schema, aggregate, tenant);
    }
  } catch (error) {
    if (error instanceof MigrationRefused) return { ok: false, error: { code: "migration_failed", message: error.message } };
    throw error;
  }
  return { ok: true, migrated };
}

function rebuild(r: {
  fields: readonly SchemaField[];
  oldFields: readonly SchemaField[];
  old: ReadonlyMap<string, Value>;
  oldJson: Record<string, unknown>;
  lines: ReadonlyMap<string, { readonly field: string; readonly text: string; readonly line: number; readonly value: unknown }>;
  aggregate: string;
  subject: string;
}): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const f of r.fields) {
    const line = r.lines.get(f.name);
    if (line !== undefined) {
      const site = { condition: null, text: line.text, line: line.line };
      try {
        const value = evaluate(line.value as Expr, { state: new Map(), args: new Map(), old: r.old, signer: null, time: 0n, site });
        fits(f.type, value, site);
        state[f.name] = toJson(f.type, value);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        throw new MigrationRefused(`record ${r.aggregate} '${r.subject}' cannot migrate: ${error.reason.message} (line ${line.line})`);
      }
      continue;
    }
    const before = r.oldFields.find((o) => o.name === f.name);
    state[f.name] = before !== undefined && sameType(before.type, f.type) ? r.oldJson[f.name] : structuredClone(f.default);
  }
  return state;
}

