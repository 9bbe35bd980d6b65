/**
 * @module Writes held while a switch or a trial is under way (update-state.ts): the engine refuses
 * commands and journal appends, the gateway refuses state-changing `/api` requests, each with `503
 * updating` and a Retry-After, so that the backup taken before a switch holds every acknowledged
 * write and a rollback loses none. The state file is looked at every 250 ms (a stat; it is read
 * only when it changed), at once when asked (`refresh`), and at every write while writes are held.
 */
import { statSync } from "node:fs";
import { type Problem, problem } from "../problem.ts";
import { readUpdateState, type UpdatePaths, writesHeld } from "./update-state.ts";

const POLL_MS = 250;

export class WriteHold {
  readonly #paths: UpdatePaths;
  #stamp = "";
  #held = false;
  #phase = "idle";
  readonly #timer: NodeJS.Timeout;

  constructor(paths: UpdatePaths) {
    this.#paths = paths;
    this.refresh();
    this.#timer = setInterval(() => this.refresh(), POLL_MS);
    this.#timer.unref();
  }

  /** Looks at the state file now. */
  refresh(): boolean {
    let stamp: string;
    try {
      const st = statSync(this.#paths.state);
      stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      stamp = "none";
    }
    if (stamp !== this.#stamp) {
      this.#stamp = stamp;
      const state = readUpdateState(this.#paths);
      this.#held = writesHeld(state);
      this.#phase = state.phase.phase;
    }
    return this.#held;
  }

  get held(): boolean {
    return this.#held;
  }

  /** `503 updating` while writes are held, else null. */
  problem(): Problem | null {
    // While held, every write looks again (a stat): the hold ends the moment the launcher records
    // the new release installed, not up to a poll later.
    if (!this.#held || !this.refresh()) return null;
    const during = this.#phase === "trial" ? "a new release is starting" : "the node is switching to a new release";
    return { ...problem(503, "updating", `${during}: writes wait until it answers; try again in a few seconds`), retryAfter: 5 };
  }

  close(): void {
    clearInterval(this.#timer);
  }
}
