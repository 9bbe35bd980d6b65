/**
 * @module The one catalogue of problem codes: every `code` a problem document (shared/problem.ts)
 * can carry, in one spelling (kebab-case), with the HTTP status and the title that go with it. A
 * problem's `type` is derived from its code (`urn:charter:problem:<code>`), so code, type, status and
 * title never disagree. Codes are stable: a client may branch on them; they are never reused for
 * another meaning. Refusal reasons (`condition_failed`, …) are another vocabulary: they live inside
 * signed receipts (contracts/refusals.ts), not here.
 */

interface Entry {
  readonly status: number;
  readonly title: string;
  /** Kept for a meaning no code path produces any more (its code is never given to another). */
  readonly reserved?: true;
}

/** Every problem Charter answers with, by code. */
export const problemCatalog = {
  // A signed request that is not one (shared/identity: the JWS, its payload, its freshness, its path).
  "malformed-jws": { status: 400, title: "Malformed JWS" },
  "unsupported-alg": { status: 400, title: "Unsupported signature algorithm" },
  "unsupported-crit": { status: 400, title: "Unsupported critical header" },
  "bad-kid": { status: 400, title: "Invalid signer key id" },
  "bad-typ": { status: 400, title: "Wrong JWS type" },
  "bad-signature": { status: 400, title: "Bad signature" },
  "malformed-payload": { status: 400, title: "Malformed payload" },
  stale: { status: 400, title: "Stale request" },
  "path-mismatch": { status: 400, title: "Payload does not match the request path" },

  // A request body or parameters the gateway cannot use.
  "json-over-limit": { status: 400, title: "JSON over the limits" },
  "malformed-json": { status: 400, title: "Malformed JSON" },
  "malformed-body": { status: 400, title: "Malformed body" },
  "malformed-message": { status: 400, title: "Malformed gRPC message" },
  "missing-tenant": { status: 400, title: "No tenant named" },
  "bad-parameters": { status: 400, title: "Bad query parameters" },
  "unknown-operation": { status: 400, title: "Unknown operation" },
  "bad-consistency": { status: 400, title: "Unknown read consistency" },
  "bad-arguments": { status: 400, title: "Arguments do not match the action's parameters" },
  "bad-panel": { status: 400, title: "A dashboard panel is not a query of the tenant" },
  "body-too-large": { status: 413, title: "Content Too Large" },
  "unsupported-media-type": { status: 415, title: "Unsupported Media Type" },
  "misdirected-request": { status: 421, title: "Misdirected Request" },

  // Who the caller is, and what they may see.
  unauthenticated: { status: 401, title: "Unauthenticated" },
  forbidden: { status: 403, title: "Forbidden" },
  "not-member": { status: 403, title: "Not a member of the tenant" },
  "not-owner": { status: 403, title: "Not an owner of the tenant" },
  "unknown-caller": { status: 403, title: "Caller not known to the tenant" },
  "not-found": { status: 404, title: "Not Found" },
  "unknown-tenant": { status: 404, title: "Unknown tenant" },
  "bad-handle": { status: 404, title: "Not a tenant handle" },
  "unknown-namespace": { status: 404, title: "Unknown namespace" },
  "unknown-action": { status: 404, title: "Unknown action" },

  // The personal node's account (`/api/account`, `/api/pair`): its ceremonies, sessions and the gate.
  "bad-first-name": { status: 400, title: "Not a usable first name" },
  "bad-response": { status: 400, title: "Not a WebAuthn response" },
  "bad-challenge": { status: 400, title: "Challenge unknown, used or expired" },
  "bad-authorization-state": { status: 400, title: "Authorization state unknown, used or expired" },
  "bad-settings": { status: 400, title: "Settings out of range" },
  "bad-origin": { status: 403, title: "Wrong or missing Origin" },
  "bad-setup-code": { status: 403, title: "Wrong set-up code" },
  "bad-recovery-code": { status: 403, title: "Unknown or used recovery code" },
  "bad-pairing-code": { status: 403, title: "Unknown, used or expired pairing code" },
  "step-up-required": { status: 403, title: "Step-up required" },
  "dedicated-route": { status: 403, title: "Signed only by its own route" },
  "limited-session": { status: 403, title: "A recovery sign-in may only add a passkey" },
  "already-set-up": { status: 409, title: "Already set up" },
  "not-set-up": { status: 409, title: "Not set up" },
  "no-model": { status: 409, title: "No model configured" },
  "turn-over": { status: 409, title: "The turn has ended" },
  "run-in-progress": { status: 409, title: "An autonomy run is under way" },
  "goal-closed": { status: 409, title: "The goal is achieved or dropped already" },
  "no-active-goal": { status: 409, title: "No active goal to work on" },
  "ask-closed": { status: 409, title: "The ask no longer waits for an answer" },
  "branch-not-open": { status: 409, title: "The branch is not open" },
  "branch-empty": { status: 409, title: "The branch has no messages" },
  "stale-revision": { status: 409, title: "The note changed since that revision" },
  "note-exists": { status: 409, title: "A note is there already" },
  "last-passkey": { status: 409, title: "The last passkey cannot be removed" },
  "too-many-passkeys": { status: 409, title: "Too many passkeys" },
  "too-many-connections": { status: 409, title: "Too many model connections" },
  "too-many-tool-servers": { status: 409, title: "Too many tool servers" },
  "tool-server-exists": { status: 409, title: "A tool server has that id already" },
  "tool-server-unauthorized": { status: 409, title: "The tool server needs authorizing first" },
  "too-many-accounts": { status: 409, title: "Too many accounts of one connector" },
  "not-dead": { status: 409, title: "The effect is not dead-lettered" },

  // The person's identities (`/api/identities`, `/api/scopes`): the engine's rules for tenants and their roles.
  "handle-taken": { status: 409, title: "Handle already taken" },
  "last-owner": { status: 409, title: "The last owner cannot be removed" },
  "personal-owner": { status: 409, title: "The person stays an owner of the personal tenant" },

  // Commands and installs that conflict with what is stored.
  "idempotency-conflict": { status: 409, title: "Idempotency key already used" },
  "bad-artifact": { status: 400, title: "Malformed artifact" },
  "artifact-mismatch": { status: 400, title: "Artifact does not match its id" },
  "bad-install": { status: 400, title: "Malformed signed install" },
  "install-stale": { status: 400, title: "Stale install" },
  "install-replayed": { status: 409, title: "Install already used" },
  "upgrade-required": { status: 409, title: "Upgrade required" },
  "upgrade-mismatch": { status: 409, title: "Upgrade of another version" },
  "migration-failed": { status: 409, title: "Records cannot migrate" },
  "compile-errors": { status: 422, title: "The contract does not compile" },
  "approval-stale": { status: 409, title: "What was approved is no longer what would be done" },
  refused: { status: 422, title: "Refused by the contract" },

  // Reads.
  "query-failed": { status: 422, title: "The query cannot be answered" },
  "query-not-supported": { status: 501, title: "Query not supported" },
  "not-replicated": { status: 409, title: "Not a replicated engine" },
  "effects-replicated": { status: 409, title: "Effects are not queued by a replicated engine" },

  // Limits.
  "rate-limited": { status: 429, title: "Too Many Requests" },
  "quota-exceeded": { status: 507, title: "Tenant quota exceeded" },
  "insufficient-storage": { status: 507, title: "Insufficient Storage" },
  "library-full": { status: 507, title: "No room for the file" },
  "range-not-satisfiable": { status: 416, title: "Range Not Satisfiable" },
  "request-timeout": { status: 408, title: "Request Timeout" },

  // The webhook listener (`127.0.0.1`, `/hooks/*`).
  "bad-hook-signature": { status: 401, title: "Webhook signature missing or wrong" },
  "hook-not-configured": { status: 503, title: "No webhook secret set for this source" },
  "delivery-not-failed": { status: 409, title: "The webhook delivery has not failed" },

  // The exchange with other persons' nodes (`/api/exchange`, `/exchange/inbox`).
  "unknown-sender": { status: 403, title: "The sender is not a relationship of this person" },
  "wrong-recipient": { status: 403, title: "The document is for another person" },
  "bad-receipt": { status: 400, title: "The document's receipt does not verify" },
  "relationship-exists": { status: 409, title: "That did is pinned already" },
  "too-many-relationships": { status: 409, title: "Too many relationships" },
  "document-not-failed": { status: 409, title: "The document's delivery has not failed" },

  // The node itself: try again.
  internal: { status: 500, title: "Internal Server Error" },
  unavailable: { status: 503, title: "Service Unavailable" },
  "engine-unavailable": { status: 503, title: "Engine unavailable" },
  "store-unavailable": { status: 503, title: "Store unavailable" },
  "compile-timeout": { status: 503, title: "Compilation timed out" },
  "compile-failed": { status: 503, title: "Compiler failed" },
  "workbench-busy": { status: 503, title: "The Workbench is busy" },
  "workbench-failed": { status: 503, title: "The Workbench failed" },
  "no-leader": { status: 503, title: "No leader" },
  "not-committed": { status: 503, title: "Not committed" },
  "commit-timeout": { status: 503, title: "Commit timed out" },
  "leader-stepped-down": { status: 503, title: "Leader stepped down" },
  "model-failed": { status: 502, title: "The model provider failed" },
  "no-translation-model": { status: 503, title: "No model configured to translate with" },
  "tool-server-failed": { status: 502, title: "The tool server failed" },
  "forward-failed": { status: 503, title: "Leader did not answer" },
  behind: { status: 503, title: "Voter behind the leader" },
  draining: { status: 503, title: "Voter stopping" },
  updating: { status: 503, title: "Switching to a new release" },

  // Self-update (`/api/settings/updates`).
  "update-refused": { status: 409, title: "The release was refused" },
  "no-update": { status: 409, title: "No newer release to install" },
  "update-in-progress": { status: 409, title: "An update is under way" },
  "updates-not-configured": { status: 409, title: "No release channel or key is set" },
  "channel-unreachable": { status: 502, title: "The release channel could not be read" },
  // Paired devices (workers/sync): node-to-node messages, and the home node a device joins.
  "home-unreachable": { status: 502, title: "The home node could not be paired with" },
  "bad-pairing": { status: 400, title: "Not a pairing request" },
  "bad-exchange": { status: 400, title: "Not a sync exchange this node takes" },
  "bad-entry": { status: 400, title: "A synced command does not verify" },
  "unknown-device": { status: 401, title: "Not a paired device" },
  "device-revoked": { status: 403, title: "The device was revoked" },
  "update-failed": { status: 500, title: "The update failed" },
} as const satisfies Record<string, Entry>;

/** A problem code: a key of the catalogue (a code not in it does not type-check). */
export type ProblemCode = keyof typeof problemCatalog;

/** The HTTP status the catalogue gives `C`. */
export type ProblemStatus<C extends ProblemCode> = (typeof problemCatalog)[C]["status"];

/** A problem document's `type`: a URN derived from its code. */
export type ProblemType = `urn:charter:problem:${ProblemCode}`;

/** The `type` of a problem with code `code`. */
export function problemType(code: ProblemCode): ProblemType {
  return `urn:charter:problem:${code}`;
}
