/**
 * @module The executor pool: contract programs run on Piscina threads, a batch at a time. A batch's
 * subject groups are split across the threads (a subject's commands stay together, in order);
 * with no threads configured, groups run inline on the engine's own thread.
 */
import { Piscina } from "piscina";
import type { LoadedArtifact } from "../../../contracts/runtime/index.ts";
import { type ExecGroup, runGroups, type StepResult } from "./run-groups.ts";

export class ExecutorPool {
  readonly #pool: Piscina | null;
  readonly #threads: number;
  readonly #inline: (id: string) => LoadedArtifact;

  constructor(options: { threads: number; storePath: string; inline: (id: string) => LoadedArtifact }) {
    this.#threads = options.threads;
    this.#inline = options.inline;
    this.#pool =
      options.threads > 0
        ? new Piscina({
            filename: new URL("./thread.ts", import.meta.url).href,
            minThreads: options.threads,
            maxThreads: options.threads,
            workerData: { storePath: options.storePath },
            execArgv: ["--disable-warning=ExperimentalWarning"],
          })
        : null;
  }

  /** Runs every group; results are in the order of `groups`. */
  async run(groups: readonly ExecGroup[]): Promise<StepResult[][]> {
    if (this.#pool === null || groups.length === 0) return runGroups(this.#inline, groups);
    const parts = Math.min(this.#threads, groups.length);
    const chunks: ExecGroup[][] = Array.from({ length: parts }, () => []);
    groups.forEach((g, i) => chunks[i % parts]?.push(g));
    const results = await Promise.all(chunks.map((chunk) => this.#pool?.run({ groups: chunk }) as Promise<StepResult[][]>));
    const ordered: StepResult[][] = new Array(groups.length);
    results.forEach((chunk, c) => chunk.forEach((r, k) => (ordered[k * parts + c] = r)));
    return ordered;
  }

  async close(): Promise<void> {
    await this.#pool?.destroy();
  }
}
