/**
 * @module The simulated network between voters: per-message loss, duplication and random delay
 * (so messages reorder), and partitions as a set of cut directed links — a symmetric partition
 * cuts both directions, an asymmetric one only one.
 */
import type { Message } from "../../workers/engine/raft/index.ts";
import type { Random } from "../../workers/engine/raft/index.ts";

/** How unreliable the network is. */
export interface NetworkProfile {
  loss: number;
  duplicate: number;
  minDelay: number;
  maxDelay: number;
}

/** Decides the fate of each message; the simulation schedules the deliveries. */
export class SimNetwork {
  readonly profile: NetworkProfile;
  readonly #cut = new Set<string>();
  readonly #random: Random;
  sent = 0;
  dropped = 0;

  constructor(random: Random, profile: NetworkProfile) {
    this.#random = random;
    this.profile = profile;
  }

  /** True when messages from `from` currently reach `to`. */
  connected(from: string, to: string): boolean {
    return !this.#cut.has(`${from}>${to}`);
  }

  /** Delays for each copy delivered (empty when the message is lost). */
  transmit(m: Message): number[] {
    this.sent += 1;
    const p = this.profile;
    if (!this.connected(m.from, m.to) || this.#random.chance(p.loss)) {
      this.dropped += 1;
      return [];
    }
    const copies = this.#random.chance(p.duplicate) ? 2 : 1;
    return Array.from({ length: copies }, () => p.minDelay + this.#random.int(p.maxDelay - p.minDelay + 1));
  }

  /** Cuts traffic from `from` to `to` (one direction). */
  cut(from: string, to: string): void {
    this.#cut.add(`${from}>${to}`);
  }

  /** Separates `group` from everyone else in both directions. */
  partition(group: readonly string[], all: readonly string[]): void {
    for (const a of group) for (const b of all) if (!group.includes(b)) {
      this.cut(a, b);
      this.cut(b, a);
    }
  }

  /** Restores every link to and from `node` (other cuts stay). */
  reconnect(node: string): void {
    for (const link of [...this.#cut]) if (link.startsWith(`${node}>`) || link.endsWith(`>${node}`)) this.#cut.delete(link);
  }

  /** Restores every link. */
  heal(): void {
    this.#cut.clear();
  }

  /** A description of the cut links, for traces. */
  describe(): string {
    return [...this.#cut].sort().join(" ") || "none";
  }
}
