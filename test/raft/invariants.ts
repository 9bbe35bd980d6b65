/**
 * @module The safety properties of Raft (Figure 3 of the paper), checked by the simulation after
 * every step: election safety, log matching, leader completeness and state-machine safety, plus
 * that a voter's commit index never moves back while it runs. A broken property throws
 * `InvariantViolation` — unless the checker was told to let it pass, to see what it leads to.
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

/** The names of the properties checked (the `invariant` of a violation). */
export type InvariantName = "election safety" | "leader completeness" | "log matching" | "state machine safety" | "commit" | "commit monotonic";

/** Global knowledge gathered across all voters during one run. */
export class InvariantChecker {
  readonly leaders = new Map<number, string>();
  /** The latest state of each term's leader while it led (a leader's log only grows). */
  readonly leaderStates = new Map<number, NodeState>();
  readonly committed = new Map<number, Committed>();
  readonly applied = new Map<number, LogEntry>();
  readonly digests = new Map<number, string>();
  /** Violations of the properties let pass, first of each kind. */
  readonly passed = new Map<string, string>();
  readonly #letPass: ReadonlySet<string>;
  checks = 0;

  /** `letPass` names properties whose violations are recorded in `passed` instead of thrown. */
  constructor(letPass: Iterable<InvariantName> = []) {
    this.#letPass = new Set(letPass);
  }

  #violation(invariant: InvariantName, detail: string): void {
    if (!this.#letPass.has(invariant)) throw new InvariantViolation(invariant, detail);
    if (!this.passed.has(invariant)) this.passed.set(invariant, detail);
  }

  /** Checks a voter's new state against its previous one and the other running voters. */
  afterStep(before: NodeState | null, after: NodeState, others: readonly NodeState[]): void {
    this.checks += 1;
    const id = after.config.id;
    if (after.role === "leader") {
      const known = this.leaders.get(after.term);
      if (known !== undefined && known !== id) this.#violation("election safety", `${known} and ${id} both lead term ${after.term}`);
      if (known === undefined) {
        this.leaders.set(after.term, id);
        for (const [index, c] of this.committed) this.#leaderHas(after, index, c);
      }
      if (known === undefined || known === id) this.leaderStates.set(after.term, after);
    }
    if (before && after.commit < before.commit) this.#violation("commit monotonic", `${id} commit ${before.commit} → ${after.commit}`);
    const from = before ? before.commit + 1 : after.snapshot.lastIndex + 1;
    for (let i = Math.max(from, after.snapshot.lastIndex + 1); i <= after.commit; i++) this.#committedAt(after, i);
    if (after.snapshot !== before?.snapshot) this.#snapshotAgrees(after);
    if (!before || after.log !== before.log || after.snapshot !== before.snapshot) {
      for (const o of others) {
        const mismatch = logMismatch(after, o);
        if (mismatch) this.#violation("log matching", mismatch);
      }
    }
  }

  /** A voter applied an entry; the state digest after it must match every other voter's at that index. */
  afterApply(node: string, entry: LogEntry, digest: string): void {
    const seen = this.applied.get(entry.index);
    if (seen && !sameEntry(seen, entry)) this.#violation("state machine safety", `${node} applied ${show(entry)} where another applied ${show(seen)}`);
    if (!seen) this.applied.set(entry.index, entry);
    this.#digest(node, entry.index, digest);
  }

  /** A voter installed a snapshot; its state must equal what others had at that index. */
  afterInstall(node: string, index: number, digest: string): void {
    this.#digest(node, index, digest);
  }

  #digest(node: string, index: number, digest: string): void {
    const known = this.digests.get(index);
    if (known !== undefined && known !== digest) this.#violation("state machine safety", `${node} state at ${index} is ${digest}, another's was ${known}`);
    if (known === undefined) this.digests.set(index, digest);
  }

  #committedAt(s: NodeState, index: number): void {
    const entry = entryAt(s, index);
    if (!entry) return this.#violation("commit", `${s.config.id} committed ${index} beyond its log (last ${lastIndex(s)})`);
    const known = this.committed.get(index);
    if (known) {
      if (!sameEntry(known.entry, entry)) this.#violation("state machine safety", `${s.config.id} committed ${show(entry)} at ${index}, earlier ${show(known.entry)}`);
      return;
    }
    const c = { entry, term: s.term };
    this.committed.set(index, c);
    // The leaders of every later term — even one elected before this commit, or no longer leading — must hold it.
    for (const [term, leader] of this.leaderStates) if (term > c.term) this.#leaderHas(leader, index, c);
  }

  /**
   * Leader completeness (§5.4): an entry committed in term T is in the log of every leader of a
   * term after T. Checked when a leader appears (against everything committed so far) and when
   * an entry is first committed (against every leader of a later term seen so far). A leader
   * only appends entries of its own term, so its latest log tells what it held when elected.
   */
  #leaderHas(leader: NodeState, index: number, c: Committed): void {
    if (c.term >= leader.term || index <= leader.snapshot.lastIndex) return;
    const mine = entryAt(leader, index);
    if (!mine || !sameEntry(mine, c.entry)) this.#violation("leader completeness", `leader ${leader.config.id} of term ${leader.term} lacks ${show(c.entry)} committed in term ${c.term}`);
  }

  #snapshotAgrees(s: NodeState): void {
    const snap = s.snapshot;
    const known = this.committed.get(snap.lastIndex);
    if (snap.lastIndex > 0 && known && known.entry.term !== snap.lastTerm) this.#violation("state machine safety", `${s.config.id} snapshot at ${snap.lastIndex} has term ${snap.lastTerm}, committed entry has ${known.entry.term}`);
  }
}

/** Log matching (§5.3): if two logs hold an entry with the same index and term, they agree up to it. Returns how they do not, or null. */
export function logMismatch(a: NodeState, b: NodeState): string | null {
  const lo = Math.max(a.snapshot.lastIndex, b.snapshot.lastIndex) + 1;
  let i = Math.min(lastIndex(a), lastIndex(b));
  while (i >= lo && termAt(a, i) !== termAt(b, i)) i--;
  for (; i >= lo; i--) {
    const x = entryAt(a, i)!;
    const y = entryAt(b, i)!;
    if (!sameEntry(x, y)) return `${a.config.id} has ${show(x)}, ${b.config.id} has ${show(y)} below a common entry`;
  }
  return null;
}

function show(e: LogEntry): string {
  return `${e.index}@${e.term}:${e.type === "command" ? e.data : "no-op"}`;
}
