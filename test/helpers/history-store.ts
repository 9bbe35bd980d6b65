/**
 * @module Filling a seeded store with history quickly, for the backup's tests and benchmark: each
 * `Increment` of acme.counter is run through the contract program and recorded as the engine
 * records it — a history entry with its state digests, and the subject's state in its table — in
 * large transactions without fsync. Not signed commands: what a backup copies and replays, at a
 * million entries in seconds rather than the minutes the HTTP path takes.
 */
import { join } from "node:path";
import { loadArtifact, type State } from "../../contracts/runtime/index.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { stateDigest } from "../../shared/store/state-digest.ts";
import { StateTable } from "../../workers/engine/state-table.ts";

/** Records `count` Increments of `subjects` subjects (`tally-N`) by `signer` in tenant acme; answers the last seq. */
export function writeIncrements(dataDir: string, options: { artifact: string; signer: string; count: number; subjects: number; batch?: number }): number {
  const db = openDatabase(join(dataDir, "charter.db"), { synchronous: "OFF" });
  try {
    const row = db.prepare("SELECT schema, wasm FROM artifacts WHERE id = ?").get(options.artifact) as { schema: string; wasm: Uint8Array };
    const program = loadArtifact({ schema: row.schema, wasm: row.wasm });
    const table = new StateTable(db, program.schema, "Tally");
    const fields = table.fields;
    const insert = db.prepare(
      "INSERT INTO history (seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, reason, args, command, before_digest, after_digest, receipt, committed_at) " +
        "VALUES (?, 'acme', 'acme.counter', 'Tally', ?, 'Increment', ?, ?, 'accepted', NULL, '{}', 'written-by-test', ?, ?, ?, ?)",
    );
    let seq = Number((db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM history").get() as { seq: number }).seq);
    const states = new Map<string, State>();
    const lastSeq = new Map<string, number>();
    const batch = options.batch ?? 50_000;
    for (let done = 0; done < options.count; ) {
      const n = Math.min(batch, options.count - done);
      db.exec("BEGIN");
      const touched = new Set<string>();
      for (let i = 0; i < n; i++) {
        const subject = `tally-${(done + i) % options.subjects}`;
        const before = states.get(subject) ?? table.read("acme", subject)?.state ?? program.defaultState("Tally");
        const now = Date.now();
        const outcome = program.execute("Tally.Increment", { state: before, args: {}, context: { signer: options.signer, time: now } });
        if (outcome.outcome !== "accepted") throw new Error(`Increment refused: ${outcome.reason.message}`);
        seq++;
        insert.run(seq, subject, options.signer, options.artifact, stateDigest(fields, before), stateDigest(fields, outcome.state), JSON.stringify({ seq, subject }), now);
        states.set(subject, outcome.state);
        lastSeq.set(subject, seq);
        touched.add(subject);
      }
      for (const subject of touched) table.write("acme", subject, options.artifact, lastSeq.get(subject) as number, states.get(subject) as State);
      db.exec("COMMIT");
      done += n;
    }
    return seq;
  } finally {
    db.close();
  }
}
