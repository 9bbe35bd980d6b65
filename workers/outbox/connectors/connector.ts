/**
 * @module What a connector is to the outbox: for each effect it performs, a function that does it
 * once and says what the provider called it. A connector never decides whether to retry: it throws
 * `PermanentEffectError` for what no retry can mend (the provider refused the message for good, a
 * host not declared), anything else is retried with back-off.
 */
import type { ConnectorAccountConfig } from "../../../shared/protocol/outbox.ts";

/** One effect to do, as the outbox hands it to its connector. */
export interface EffectJob {
  /** The journal entry's id (the receipt's `effect-<id>`). */
  readonly id: number;
  /** The idempotency key it was queued with: the same effect queued twice has one key. */
  readonly key: string;
  /** 1 on the first attempt; more means an earlier attempt may have reached the provider. */
  readonly attempts: number;
  readonly args: Readonly<Record<string, unknown>>;
  readonly account: ConnectorAccountConfig | null;
  readonly signal: AbortSignal;
}

export interface EffectOutcome {
  /** The provider's own id for what was done, where it gives one. */
  readonly providerId: string | null;
}

export interface Connector {
  /** Whether its effects need an account (the effect names which). */
  readonly needsAccount: boolean;
  perform(effect: string, job: EffectJob): Promise<EffectOutcome>;
  /** Drops what it keeps for an account (an open connection pool) after the account changed. */
  forget?(account: string): void;
  close?(): Promise<void>;
}

/** A failure no retry can mend: the effect is dead-lettered at once with this reason. */
export class PermanentEffectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PermanentEffectError";
  }
}
