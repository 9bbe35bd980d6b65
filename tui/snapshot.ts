/**
 * @module Everything the six views show at one moment, as plain values: the console's one view
 * model, produced by the live source (or by a test) and rendered by the views.
 */
import type { Cluster, ConnectTarget } from "./cluster.ts";
import type { Filter } from "./filter.ts";
import type { LogEntry } from "./log-tail.ts";
import type { NodeState } from "./node-state.ts";
import type { Probe } from "./node-probe.ts";
import type { StoreMode } from "./open-store.ts";
import type { Activity } from "./read-activity.ts";
import type { InstalledContract } from "./read-contracts.ts";
import type { DiskUse } from "./read-disk.ts";
import type { TenantDetail } from "./read-tenants.ts";

export interface Snapshot {
  readonly dataDir: string;
  /** When this snapshot was read (ms). */
  readonly at: number;
  readonly node: NodeState;
  readonly nodeDid: string | null;
  /** The node's HTTP address: `--url`, else where its gateway last said it listens. */
  readonly nodeUrl: string | null;
  readonly store: { readonly mode: StoreMode; readonly ready: boolean; readonly error: string | null };
  readonly contracts: readonly InstalledContract[];
  readonly tenants: readonly TenantDetail[];
  readonly activity: Activity;
  /** The filter the activity was read with. */
  readonly activityFilter: Filter;
  readonly logs: readonly LogEntry[];
  readonly disk: DiskUse;
  readonly cluster: Cluster;
  readonly connect: readonly { readonly target: ConnectTarget; readonly probe: Probe | null }[];
}

/** What the app needs from a source of snapshots. */
export interface SnapshotSource {
  current(): Snapshot;
  subscribe(listener: (snapshot: Snapshot) => void): () => void;
  /** Re-reads the activity with another filter (filtering happens in SQL). */
  setActivityFilter(filter: Filter): void;
}
