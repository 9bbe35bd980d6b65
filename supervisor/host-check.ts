/**
 * @module The minimum host (specification §8: 2 cores, 2 GB free memory; 4 GB comfortable): what a
 * starting tree warns about on a smaller machine. Never a refusal — a node runs on less, slower.
 */
import { availableParallelism, freemem } from "node:os";

/** The least the node is specified for. */
export const MINIMUM_HOST = { cores: 2, freeBytes: 2 * 1000 ** 3 } as const;

/** What the machine has: cores this process may use, and memory free for it (the cgroup's limit counted). */
export interface HostFacts {
  readonly cores: number;
  readonly freeBytes: number;
}

/** The machine this process runs on. */
export function hostFacts(): HostFacts {
  // freemem() is the kernel's MemAvailable; availableMemory() also counts a cgroup's limit (a container, a systemd MemoryMax).
  const constrained = process.availableMemory();
  return { cores: availableParallelism(), freeBytes: Math.min(freemem(), constrained > 0 ? constrained : Infinity) };
}

/** The warnings for a host below the minimum (none when it meets it). */
export function hostWarnings(facts: HostFacts): string[] {
  const warnings: string[] = [];
  if (facts.cores < MINIMUM_HOST.cores) warnings.push(`this machine has ${facts.cores} core${facts.cores === 1 ? "" : "s"}; the node is made for at least ${MINIMUM_HOST.cores}: expect it to be slow`);
  if (facts.freeBytes < MINIMUM_HOST.freeBytes) {
    warnings.push(`this machine has ${(facts.freeBytes / 1000 ** 3).toFixed(1)} GB of memory free; the node is made for at least 2 GB free (4 GB comfortable): expect it to be slow, or workers to be stopped for want of memory`);
  }
  return warnings;
}
