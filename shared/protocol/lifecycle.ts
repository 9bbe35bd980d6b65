/**
 * @module The lifecycle every worker goes through, reported to the supervisor as it changes:
 * starting → running → draining → stopped, or failed from any of them.
 */

export type Lifecycle = "starting" | "running" | "draining" | "stopped" | "failed";

