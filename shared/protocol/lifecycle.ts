/**
 * @module The lifecycle every worker goes through, reported to the supervisor as it changes:
 * starting → running → draining → stopped, or failed from any of them.
 */

export type Lifecycle = "starting" | "running" | "draining" | "stopped" | "failed";

/** Which transitions are legal; anything else is a bug in the worker runtime. */
export const lifecycleNext: Record<Lifecycle, readonly Lifecycle[]> = {
  starting: ["running", "draining", "failed"],
  running: ["draining", "failed"],
  draining: ["stopped", "failed"],
  stopped: [],
  failed: [],
};
