/**
 * @module An executor thread (Piscina): runs groups of commands through contract programs. Each
 * thread instantiates each artifact's module once, reading it from the store read-only on first use.
 */
import { DatabaseSync } from "node:sqlite";
import { workerData } from "node:worker_threads";
import { type LoadedArtifact, loadArtifact } from "../../../contracts/runtime/index.ts";
import { type ExecGroup, runGroups, type StepResult } from "./run-groups.ts";

const { storePath } = workerData as { storePath: string };
let db: DatabaseSync | null = null;
const programs = new Map<string, LoadedArtifact>();

function load(id: string): LoadedArtifact {
  let program = programs.get(id);
  if (program === undefined) {
    db ??= new DatabaseSync(storePath, { readOnly: true });
    const row = db.prepare("SELECT schema, wasm FROM artifacts WHERE id = ?").get(id) as { schema: string; wasm: Uint8Array } | undefined;
    if (row === undefined) throw new Error(`artifact ${id} is not stored`);
    program = loadArtifact({ schema: row.schema, wasm: row.wasm });
    programs.set(id, program);
  }
  return program;
}

export default function execute(task: { groups: ExecGroup[] }): StepResult[][] {
  return runGroups(load, task.groups);
}
