/**
 * @module A voter's static configuration: who it is, who votes (1, 3 or any odd number), timing in
 * ticks, and — for the simulation only — deliberately injected bugs that prove the invariant
 * checker can fail.
 */

/** Bugs the simulation can switch on to show that its checks catch them. Never set in production. */
export interface InjectedBugs {
  /** A candidate counts granted votes whose term is older than its own. */
  readonly countStaleVotes?: boolean;
  /** A leader commits an entry of an earlier term by counting replicas (Figure 8 of the paper). */
  readonly commitPreviousTerm?: boolean;
  /** Replies go out before the write they depend on is durable. */
  readonly replyBeforePersist?: boolean;
}

/** Static configuration of one voter. */
export interface RaftConfig {
  readonly id: string;
  /** Every voter's id, this one included; never changes while running. */
  readonly voters: readonly string[];
  /** Election timeout is drawn uniformly from [min, 2·min) ticks. */
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  /** Most entries in one append-entries message. */
  readonly maxEntriesPerMessage: number;
  readonly preVote: boolean;
  readonly checkQuorum: boolean;
  readonly bugs?: InjectedBugs;
}

/** Sensible defaults: with a 50 ms tick, elections after 0.5–1 s of silence, heartbeats every 100 ms. */
export function raftConfig(id: string, voters: readonly string[], overrides: Partial<RaftConfig> = {}): RaftConfig {
  if (!voters.includes(id)) throw new Error(`voter ${id} is not among the voters ${voters.join(",")}`);
  if (new Set(voters).size !== voters.length) throw new Error("voter ids must be distinct");
  return { id, voters: [...voters], electionTicks: 10, heartbeatTicks: 2, maxEntriesPerMessage: 64, preVote: true, checkQuorum: true, ...overrides };
}

/** How many voters make a majority. */
export function quorum(config: RaftConfig): number {
  return Math.floor(config.voters.length / 2) + 1;
}

/** The other voters. */
export function peersOf(config: RaftConfig): string[] {
  return config.voters.filter((v) => v !== config.id);
}
