/**
 * @module What the read routes need: the gateway's read-only view of the store and a clock (for
 * bearer token lifetimes and delegation expiry).
 */
import type { StoreView } from "./store-view.ts";

export interface ReadRouteDeps {
  readonly store: StoreView;
  readonly now: () => number;
}
