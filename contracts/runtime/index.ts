/** @module The contract runtime's public surface (WebAssembly only; safe to load in executor threads). */
export { loadArtifact } from "./load-artifact.ts";
export type { EncodedInput, EncodedOutcome, ExecuteInput, LoadedArtifact, Outcome, State } from "./load-artifact.ts";
export { ArgumentError } from "./errors.ts";
export type { FieldProblem } from "./errors.ts";
