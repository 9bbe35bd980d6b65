/**
 * @module The read side of `/v1`: queries, records and their history, served from the gateway's
 * own read-only connection to the store — reads never wait for, or go through, the engine.
 */
import type { Hono } from "hono";
import { mountQueryRoute } from "../routes/queries.ts";
import { mountRecordRoutes } from "../routes/records.ts";
import { StoreView } from "./store-view.ts";

export type { ReadRouteDeps } from "./read-deps.ts";

/** Mounts the read routes over the store at `storePath` (`DATA/charter.db`); answers the view. */
export function mountReadRoutes(app: Hono, deps: { readonly storePath: string; readonly now: () => number }): StoreView {
  const store = new StoreView(deps.storePath);
  mountQueryRoute(app, { store, now: deps.now });
  mountRecordRoutes(app, { store, now: deps.now });
  return store;
}
