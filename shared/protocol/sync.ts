/**
 * @module The sync worker's channel (`DATA/run/sync.sock`): what the gateway asks of it — the
 * person's pairing codes and devices, the node-to-node routes' messages it answers, revocations —
 * and the status it announces on every change (`/api/sync/status`, `sync` frames on `/api/events`).
 */

/** A paired device as the sync worker sees it. */
export interface PeerStatus {
  readonly did: string;
  readonly name: string;
  /** `home`: this node dials it; `device`: it dials this node. */
  readonly role: "home" | "device";
  readonly url: string | null;
  readonly pairedAt: string;
  readonly revokedAt: string | null;
  readonly lastContact: string | null;
  readonly lastError: string | null;
  /** Whether an exchange with it is under way or succeeded within the last minute. */
  readonly connected: boolean;
  /** Commands it holds that this node lacks, as of the last contact (null: never met). */
  readonly pendingIn: number | null;
  /** Commands this node holds that it lacks, as of the last contact (null: never met). */
  readonly pendingOut: number | null;
  /** Why some of its commands are held back here (a contract not installed, a gap), or null. */
  readonly held: string | null;
}

export interface SyncStatus {
  readonly node: string;
  /** The tenant that syncs (the personal one), or null before the first pairing. */
  readonly tenant: string | null;
  /** Commands of the synced tenant this node holds. */
  readonly commands: number;
  readonly peers: readonly PeerStatus[];
}

export type SyncRequests = {
  "sync-status": { request: Record<string, never>; response: SyncStatus };
  /** A new pairing code for `tenant` (the one live code; single use, 10 minutes). */
  "pair-code": { request: { tenant: string }; response: { code: string; expiresAt: string } };
  /** A device's `charter-pair+jws` checked: code, freshness, signature; the device pinned. */
  "pair-accept": { request: { jws: string }; response: { ok: true; device: string; name: string; code: string; tenant: string } | { ok: false; status: 400 | 403; code: "bad-pairing" | "bad-pairing-code" | "device-revoked"; detail: string } };
  /** This node joined a home node: pin it and dial it once the tenant syncs. */
  "join-home": { request: { home: string; url: string; name: string; tenant: string }; response: { ok: true } };
  /** Starts syncing `tenant` (a device after its set-up). */
  enable: { request: { tenant: string }; response: { ok: true } };
  /** A node-to-node exchange (`POST /sync/exchange`): the answer's status, media type and body. */
  exchange: { request: { jws: string }; response: { status: number; type: string; body: string } };
  /** A revocation signed by the person's root key (checked by the gateway): the device is refused from now on. */
  revoke: { request: { device: string; statement: string }; response: { revoked: boolean } };
};

export type SyncNotices = {
  "sync-status": { status: SyncStatus };
};
