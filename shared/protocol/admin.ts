/**
 * @module The admin channel: what an operator (the `charter tenant|install|contracts` commands, over
 * `DATA/admin.sock`, mode 0600) and the gateway (for `GET /v1/{tenant}` and `_install`) ask of the
 * engine. Every reply is a value: `{ok: true, value}` or `{ok: false, error: {code, message}}` with a
 * stable code — the same value the commands compute themselves when no node runs (offline mode).
 */
import type { Result } from "../result.ts";
import type { Roles } from "../store/roles.ts";

export type { Roles };
import type { ArtifactWire } from "../../contracts/artifact-wire.ts";
import type { CollectionInfo } from "../../contracts/check/check-contract.ts";

export type { ArtifactWire };

/** A failure the caller caused, with a stable machine-readable code. */
export interface AdminError {
  readonly code: string;
  readonly message: string;
}

/** What every admin request answers. */
export type AdminResult<T> = Result<T, AdminError>;

export interface Delegation {
  readonly did: string;
  readonly scope: string;
  /** ISO 8601 instant after which it no longer holds, or null for no end. */
  readonly until: string | null;
}

/** One install of a namespace for a tenant; `status` is `active` for the one in force. */
export interface NamespaceInstall {
  readonly namespace: string;
  readonly version: string;
  readonly artifact: string;
  readonly status: "active" | "replaced" | "retired";
  readonly installedAt: string;
  readonly installedBy: string | null;
}

/** A did a tenant had until a key rotation replaced it. */
export interface RetiredDid {
  readonly did: string;
  /** ISO 8601 instant of the rotation. */
  readonly retiredAt: string;
}

export interface TenantDescription {
  readonly handle: string;
  readonly did: string;
  readonly createdAt: string;
  readonly owners: readonly string[];
  readonly members: readonly string[];
  readonly delegations: readonly Delegation[];
  readonly namespaces: readonly NamespaceInstall[];
  /** The dids key rotations replaced, newest first: the last 20 at most. */
  readonly retiredDids: readonly RetiredDid[];
}

/** What a key rotation answers: the tenant's new did, and the one it replaced. */
export interface TenantKeyRotated {
  readonly handle: string;
  readonly did: string;
  readonly previous: RetiredDid;
}

export interface TenantSummary {
  readonly handle: string;
  readonly did: string;
  readonly owners: number;
  readonly members: number;
  readonly namespaces: number;
}

export interface Installed {
  readonly artifact: string;
  readonly namespace: string;
  readonly version: string;
  /** True when this very artifact was already the active one (nothing changed). */
  readonly unchanged: boolean;
  /** An upgrade: how many records moved to this version, and the artifact it replaced. */
  readonly migrated?: number;
  readonly replaced?: string | null;
}

/** One row of `contracts list`: an install joined with its tenant. */
export interface ContractRow extends NamespaceInstall {
  readonly tenant: string;
}

type Req<Q, R> = { request: Q; response: AdminResult<R> };

export type AdminRequests = {
  "tenant-create": Req<{ handle: string; owners: string[]; by: string | null }, { handle: string; did: string }>;
  "tenant-member-add": Req<{ tenant: string; did: string }, { added: boolean }>;
  "tenant-member-remove": Req<{ tenant: string; did: string }, { removed: boolean }>;
  "tenant-owner-add": Req<{ tenant: string; did: string }, { added: boolean }>;
  "tenant-owner-remove": Req<{ tenant: string; did: string }, { removed: boolean }>;
  /** `until`: `YYYY-MM-DD` (midnight UTC) or an RFC 3339 date-time; absent for no end. */
  "tenant-delegate": Req<{ tenant: string; did: string; scope: string; until?: string }, Delegation>;
  /** Takes one delegation back; `removed` is false when the did did not hold that scope. */
  "tenant-undelegate": Req<{ tenant: string; did: string; scope: string }, { removed: boolean }>;
  /** Makes `scopes` exactly the delegations the did holds (the others revoked), in one transaction; answers them. */
  "tenant-delegations-set": Req<{ tenant: string; did: string; scopes: string[]; until?: string }, Delegation[]>;
  /** Gives the tenant a new key pair (and so a new did); the old key is kept as a retired key file. */
  "tenant-key-rotate": Req<{ tenant: string; by: string | null }, TenantKeyRotated>;
  "tenant-describe": Req<{ tenant: string }, TenantDescription>;
  "tenant-list": Req<Record<string, never>, TenantSummary[]>;
  "tenant-roles": Req<{ tenant: string; did: string }, Roles>;
  /**
   * `requireOwner`: refuse with `not_owner` unless `by` owns the tenant (checked in the same turn as the install).
   * `signed`: the install JWS's single-use id and issuedAt; a second use is refused with `install_replayed`.
   */
  install: Req<{ tenant: string; artifact: ArtifactWire; by: string | null; requireOwner?: boolean; signed?: { id: string; issuedAt: string } }, Installed>;
  "contracts-list": Req<{ tenant?: string }, ContractRow[]>;
  /** Stop serving a namespace (records stay readable to owners), and serve it again. */
  "contract-retire": Req<{ tenant: string; namespace: string }, { artifact: string }>;
  "contract-restore": Req<{ tenant: string; namespace: string }, { artifact: string }>;
  /** Every collection the tenant's queries may read (another contract's aggregate, `std.*`), with its columns and indexes. */
  collections: Req<{ tenant: string }, Record<string, CollectionInfo>>;
  /** A stored artifact's canonical schema (to check an upgrade against the version it replaces). */
  "artifact-schema": Req<{ id: string }, { schemaJson: string }>;
};

/** The request types, for dispatch tables that must name every one. */
export type AdminRequestType = keyof AdminRequests & string;
