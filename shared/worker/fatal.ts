/**
 * @module A worker error that no restart can fix (a port in use, a store written by a newer
 * version): the supervisor shuts the whole tree down with its message instead of retrying.
 */
export class FatalError extends Error {
  override readonly name = "FatalError";
}
