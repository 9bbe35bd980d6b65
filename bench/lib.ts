/**
 * @module Shared pieces of the benchmarks: printing a figure with its baseline and ratio, and
 * measuring a process tree's memory. Benchmarks print; they never assert.
 */
import { readFileSync } from "node:fs";

/** Prints `name value unit (baseline label value, ratio Nx)`; `higherIsBetter` picks the ratio's direction. */
export function report(name: string, value: number, unit: string, baseline?: { label: string; value: number; higherIsBetter: boolean; target?: string }): void {
  const fmt = (n: number) => (n >= 100 ? Math.round(n).toString() : n.toFixed(2));
  let line = `${name} ${fmt(value)} ${unit}`;
  if (baseline !== undefined) {
    const ratio = baseline.higherIsBetter ? value / baseline.value : baseline.value / value;
    line += ` (${baseline.label} ${fmt(baseline.value)} ${unit}, ratio ${ratio.toFixed(2)}x${baseline.target ? `; target ${baseline.target}` : ""})`;
  }
  process.stdout.write(`${line}\n`);
}

/** Resident memory of a process in MB (Linux /proc), 0 when unknown. */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

/**
 * Proportional memory of a process in MB (Linux /proc smaps_rollup): its private pages plus its
 * share of pages shared with others. Summed over a process tree it counts shared code once, which
 * RSS summed over the same tree does not.
 */
export function pssMb(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    return Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** The nearest-rank percentile of sorted samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}
