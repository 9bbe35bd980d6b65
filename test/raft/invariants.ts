/**
 * @module The safety properties of Raft (Figure 3 of the paper), checked by the simulation after
 * every step: election safety, log matching, leader completeness and state-machine safety, plus
 * that a voter's commit index never moves back while it runs. A broken property throws
 * `InvariantViolation`.
 */
import type { LogEntry, NodeState } from "../../workers/engine/raft/index.ts";
import { entryAt, lastIndex, sameEntry, termAt } from "../../workers/engine/raft/index.ts";

/** A safety property failed. */
export class InvariantViolation extends Error {
  readonly invariant: string;
  constructor(invariant: string, detail: string) {
    super(`${invariant}: ${detail}`);
    this.invariant = invariant;
  }
}

interface Committed {
  readonly entry: LogEntry;
  /** Earliest term in which some voter saw this entry committed. */
  readonly term: number;
}

/** Global knowledge gathered across all voters during one run. */
export class InvariantChecker {
  readonly leaders = new Map<number, string>();
  readonly committed = new Map<number, Committed>();
  readonly applied = new Map<number, LogEntry>();
  readonly digests = new Map<number, string>();
  checks = 0;

  /** Checks a voter's new state against its previous one and the other running voters. */
  afterStep(before: NodeState | null, after: NodeState, others: readonly NodeState[]): void {
    this.checks += 1;
    const id = after.config.id;
    if (after.role === "leader") {
      const known = this.leaders.get(after.term);
      if (known !== undefined && known !== id) throw new InvariantViolation("election safety", `${known} and ${id} both lead term ${after.term}`);
      if (known === undefined) {
        this.leaders.set(after.term, id);
        for (const [index, c] of this.committed) this.#leaderHas(after, index, c);
      }
    }
    if (before && after.commit < before.commit) throw new InvariantViolation("commit monotonic", `${id} commit ${before.commit} → ${after.commit}`);
    const from = before ? before.commit + 1 : after.snapshot.lastIndex + 1;
    for (let i = Math.max(from, after.snapshot.lastIndex + 1); i <= after.commit; i++) this.#committedAt(after, i);
    if (after.snapshot !== before?.snapshot) this.#snapshotAgrees(after);
    if (!before || after.log !== before.log || after.snapshot !== before.snapshot) {
      for (const o of others) logMatching(after, o);
    }
  }

  /** A voter applied an entry; the state digest after it must match every other voter's at that index. */
  afterApply(node: string, entry: LogEntry, digest: string): void {
    const seen = this.applied.get(entry.index);
    if (seen && !sameEntry(seen, entry)) throw new InvariantViolation("state machine safety", `${node} applied ${show(entry)} where another applied ${show(seen)}`);
    if (!seen) this.applied.set(entry.index, entry);
    this.#digest(node, entry.index, digest);
  }

  /** A voter installed a snapshot; its state must equal what others had at that index. */
  afterInstall(node: string, index: number, digest: string): void {
    this.#digest(node, index, digest);
  }

  #digest(node: string, index: number, digest: string): void {
    const known = this.digests.get(index);
    if (known !== undefined && known !== digest) throw new InvariantViolation("state machine safety", `${node} state at ${index} is ${digest}, another's was ${known}`);
    this.digests.set(index, digest);
  }

  #committedAt(s: NodeState, index: number): void {
    const entry = entryAt(s, index);
    if (!entry) throw new InvariantViolation("commit", `${s.config.id} committed ${index} beyond its log (last ${lastIndex(s)})`);
    const known = this.committed.get(index);
    if (known) {
      if (!sameEntry(known.entry, entry)) throw new InvariantViolation("state machine safety", `${s.config.id} committed ${show(entry)} at ${index}, earlier ${show(known.entry)}`);
      return;
    }
    this.committed.set(index, { entry, term: s.term });
  }

  /** Leader completeness, checked when a later leader appears and for every current leader by `leadersHold`. */
  #leaderHas(leader: NodeState, index: number, c: Committed): void {
    if (c.term >= leader.term || index <= leader.snapshot.lastIndex) return;
    const mine = entryAt(leader, index);
    if (!mine || !sameEntry(mine, c.entry)) throw new InvariantViolation("leader completeness", `leader ${leader.config.id} of term ${leader.term} lacks ${show(c.entry)} committed in term ${c.term}`);
  }

  /** Every running leader holds every entry committed in an earlier term. */
  leadersHold(nodes: readonly NodeState[], sinceSize: number): void {
    if (this.committed.size === sinceSize) return;
    for (const n of nodes) if (n.role === "leader") for (const [index, c] of this.committed) this.#leaderHas(n, index, c);
  }

  #snapshotAgrees(s: NodeState): void {
    const snap = s.snapshot;
    const known = this.committed.get(snap.lastIndex);
    if (snap.lastIndex > 0 && known && known.entry.term !== snap.lastTerm) throw new InvariantViolation("state machine safety", `${s.config.id} snapshot at ${snap.lastIndex} has term ${snap.lastTerm}, committed entry has ${known.entry.term}`);
  }
}

/** Log matching (§5.3): if two logs hold an entry with the same index and term, they agree up to it. */
export function logMatching(a: NodeState, b: NodeState): void {
  const lo = Math.max(a.snapshot.lastIndex, b.snapshot.lastIndex) + 1;
  let i = Math.min(lastIndex(a), lastIndex(b));
  while (i >= lo && termAt(a, i) !== termAt(b, i)) i--;
  for (; i >= lo; i--) {
    const x = entryAt(a, i)!;
    const y = entryAt(b, i)!;
    if (!sameEntry(x, y)) throw new InvariantViolation("log matching", `${a.config.id} has ${show(x)}, ${b.config.id} has ${show(y)} below a common entry`);
  }
}

function show(e: LogEntry): string {
  return `${e.index}@${e.term}:${e.type === "command" ? e.data : "no-op"}`;
}
