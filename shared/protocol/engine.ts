/**
 * @module The engine channel: what other workers (and the supervisor) ask of the engine, the only
 * writer of the store. Later issues add the command path here.
 */
import type { CommandPayload } from "../identity/index.ts";
import type { Receipt, RefusalReason } from "../identity/index.ts";
import type { FailOptions, FailResult, JournalEntry, JournalListEntry, JournalStats } from "../journal.ts";
import type { EffectDone } from "../connectors/effect-receipt.ts";
import type { Problem } from "../problem.ts";
import type { VerifiedEntry } from "../devices/entries.ts";

/** A command whose signature, freshness and path the gateway has verified. */
export interface SubmittedCommand {
  readonly jws: string;
  /** SHA-256 hex of the JWS. */
  readonly digest: string;
  readonly signer: string;
  readonly payload: CommandPayload;
}

/**
 * The engine's answer: a receipt (accepted or refused, possibly replayed), or a problem (not a
 * command). `json`, when present, is the receipt exactly as history stores it (`JSON.stringify(receipt)`).
 */
export type CommandAnswer =
  | { readonly kind: "receipt"; readonly receipt: Receipt; readonly json?: string; readonly replayed: boolean }
  | { readonly kind: "problem"; readonly problem: Problem };

/**
 * What the engine answers the gateway: a receipt as its JWS, signed by this node (the engine holds
 * the node key too), whose payload is the receipt itself (`receiptJsonOf`, `receiptOf`): the
 * receipt crosses the channel once, not also as an object. Signing in the engine rather than in
 * the gateway spreads the write path's CPU over both processes: the gateway, which also parses
 * HTTP and verifies every command's signature, is the busier of the two.
 */
export type SignedCommandAnswer =
  | { readonly kind: "receipt"; readonly jws: string; readonly outcome: Receipt["outcome"]; readonly replayed: boolean }
  | { readonly kind: "problem"; readonly problem: Problem };

/**
 * What the engine would decide for a command, planned against the current state and never
 * committed (`preview`): the public state it would leave, or the contract's refusal; or a problem,
 * as a command would get (unknown tenant, namespace or action; arguments the action does not take).
 */
export type PreviewAnswer =
  | { readonly kind: "preview"; readonly outcome: "accepted"; readonly state: Record<string, unknown> }
  | { readonly kind: "preview"; readonly outcome: "refused"; readonly reason: RefusalReason }
  | { readonly kind: "problem"; readonly problem: Problem };

/** What the engine tells each worker that asked (`watch-commits`) after each commit. */
export type EngineNotices = {
  committed: { receipts: readonly Receipt[] };
  /** A replicated voter replaced its store with a snapshot from the leader: drop what was cached from it. */
  "store-replaced": Record<string, never>;
  /** A batch queued contract-declared effects (only to channels that asked: `watch-effects`). */
  "effects-queued": Record<string, never>;
};

/** The contract-declared effects a tenant has switched on: mail through one email account, PDF documents. */
export interface TenantEffects {
  readonly email: { readonly account: string } | null;
  readonly pdf: boolean;
}

/** A voter's view of the replicated engine (`/health`'s `consensus`; null for one voter). */
export interface ConsensusStatus {
  readonly id: string;
  readonly role: "leader" | "follower" | "candidate";
  readonly term: number;
  readonly leader: string | null;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  readonly lastIndex: number;
  readonly snapshotIndex: number;
  readonly recovering: boolean;
  readonly leaderContactMs: number | null;
  readonly voters: readonly { id: string; did: string; role: string | null; address: string; connected: boolean; lastContactMs: number | null; match?: number; lag?: number }[];
}

/** A read point: `consistency` strong (linearizable) or local (this voter's state as it is). */
export type ReadPoint =
  | { readonly ok: true; readonly appliedIndex: number; readonly commitIndex: number; readonly leaderContactMs: number | null; readonly role: string }
  | { readonly ok: false; readonly problem: Problem };

/** What applying commands received from a paired device did (workers/engine/merge). */
export interface SyncApplied {
  /** Commands recorded here for the first time. */
  readonly applied: number;
  /** Commands already here whose outcome the merge changed. */
  readonly redecided: number;
  /** Commands refused as conflicts (`merge reject`). */
  readonly conflicts: number;
  /** Why an origin's commands stopped short (a gap, a contract not installed here, a revoked device), or null. */
  readonly held: { readonly origin: string; readonly oseq: number; readonly why: string } | null;
  /** The store's version vector after it. */
  readonly vv: Readonly<Record<string, number>>;
}

export type EngineRequests = {
  ping: { request: Record<string, never>; response: { pid: number } };
  /** Replicated engine: wait for a linearizable read point (`strong`) or report staleness (`local`). */
  "read-point": { request: { consistency: "strong" | "local" }; response: ReadPoint };
  "consensus-status": { request: Record<string, never>; response: ConsensusStatus | null };
  /** Why the engine cannot take writes as it should (commits failing, the disk under its reserve); empty when all is well. */
  "engine-health": { request: Record<string, never>; response: { degraded: readonly string[] } };
  command: { request: SubmittedCommand; response: SignedCommandAnswer };
  /** The engine's decision on a command without recording it: no history, no state, no idempotency key, no commit notice. */
  preview: { request: SubmittedCommand; response: PreviewAnswer };
  /** Start or stop receiving `committed` notices on this channel (none are sent until asked for). */
  "watch-commits": { request: { watch: boolean }; response: null };
  "journal-append": { request: { topic: string; payload: unknown; key?: string; delayMs?: number }; response: { id: number } };
  /** Start or stop receiving `effects-queued` notices (a batch queued contract-declared effects: the outbox claims them now). */
  "watch-effects": { request: { watch: boolean }; response: null };
  /** Which contract-declared effects a tenant has switched on (null: none). */
  "tenant-effects": { request: { tenant: string }; response: TenantEffects | null };
  /** Switches a tenant's contract-declared effects (null: all off). Refused by a replicated engine, where every voter would act. */
  "tenant-effects-set": { request: { tenant: string; effects: TenantEffects | null }; response: { ok: true } | { ok: false; problem: Problem } };
  /** Entries appended in one transaction (one commit for all); each answered with its id and whether it is new (`added: false`: its key was there already). */
  "journal-append-many": { request: { entries: { topic: string; payload: unknown; key?: string; delayMs?: number }[] }; response: { id: number; added: boolean }[] };
  /** Entries the claimant holds marked done with what each came to (`result`, kept as JSON); answers the ids completed. */
  "journal-complete": { request: { claimant: string; done: { id: number; result: unknown }[] }; response: number[] };
  "journal-claim": { request: { claimant: string; topics: string[]; limit: number; leaseMs?: number }; response: JournalEntry[] };
  "journal-ack": { request: { claimant: string; ids: number[] }; response: number[] };
  "journal-fail": { request: { claimant: string; id: number; error: string } & FailOptions; response: FailResult };
  /** Entries of one topic by state (the outbox's lists); `newestFirst` pages backwards from `after`. */
  "journal-list": { request: { topic: string; states: JournalListEntry["state"][]; after?: number; limit: number; newestFirst?: boolean }; response: JournalListEntry[] };
  "journal-get": { request: { topic: string; id: number }; response: JournalListEntry | null };
  /** A dead entry made ready again (attempts from nothing); false when it is not a dead entry of that topic. */
  "journal-revive": { request: { topic: string; id: number }; response: boolean };
  /** A dead entry removed for good; false when it is not a dead entry of that topic. */
  "journal-drop": { request: { topic: string; id: number }; response: boolean };
  /** Effects the outbox has done: each marked done with its receipt, signed here, in one transaction. */
  "effect-complete": { request: { claimant: string; done: EffectDone[] }; response: { id: number; receipt: string }[] };
  "journal-release": { request: { claimant: string }; response: number };
  /** Looks at the update state now; once writes are held, answers after every batch admitted before has committed (the switch's backup follows). */
  "update-hold": { request: Record<string, never>; response: { held: boolean } };
  "journal-stats": { request: Record<string, never>; response: JournalStats };
  /** Starts syncing a tenant with paired devices: its history so far is stamped as this node's. */
  "sync-enable": { request: { tenant: string }; response: { stamped: number } };
  /** Applies commands received from a paired device, their stamps and signatures verified. */
  "sync-apply": { request: { tenant: string; entries: VerifiedEntry[] }; response: SyncApplied };
  /** Records a device revoked by the person's root key: its commands are not applied from then on. */
  "sync-revoke": { request: { tenant: string; device: string; statement: string }; response: { revoked: boolean } };
};
