/**
 * @module The node writes as the person: an `/api` write that changes a record becomes a command
 * signed with the person's key (opened from its sealed form once, then kept in memory) and sent to
 * the engine like any command on `/v1` — the same checks, the contract's `authorize` with the
 * person as `context.signer`, history, a signed receipt. Nothing here decides: the contract does.
 */
import { randomUUID } from "node:crypto";
import { type KeyPair, signCommand } from "../../../../shared/identity/index.ts";
import { problem } from "../../../../shared/problem.ts";
import type { SignedCommandAnswer } from "../../../../shared/protocol/engine.ts";
import { type CommandRouteDeps, submit } from "../../routes/commands.ts";

/** One write, as a route asks for it; `tenant` defaults to the personal tenant. */
export interface PersonWrite {
  readonly tenant?: string;
  readonly namespace: string;
  readonly action: string;
  readonly subject: string;
  readonly args: Record<string, unknown>;
  /** Makes a retry safe: the same key answers the first receipt. A fresh one when absent. */
  readonly idempotencyKey?: string;
}

/** Where the writer finds the person: their key (null before set-up) and personal tenant. */
export interface PersonWriterDeps extends CommandRouteDeps {
  readonly personKey: () => KeyPair | null;
  readonly personalTenant: () => string | null;
}

/** Signs and submits writes as the person. */
export class PersonWriter {
  readonly #deps: PersonWriterDeps;
  #key: KeyPair | null = null;

  constructor(deps: PersonWriterDeps) {
    this.#deps = deps;
  }

  /** The person's did, or null before set-up. */
  did(): string | null {
    return this.#keyPair()?.did ?? null;
  }

  /** The engine's answer to `write` signed as the person: a receipt, or a problem. */
  async act(write: PersonWrite): Promise<SignedCommandAnswer> {
    const key = this.#keyPair();
    const tenant = write.tenant ?? this.#deps.personalTenant();
    if (key === null || tenant === null) return { kind: "problem", problem: problem(409, "not-set-up", "the node has no account yet") };
    const payload = {
      tenant,
      namespace: write.namespace,
      action: write.action,
      subject: write.subject,
      args: write.args,
      idempotencyKey: write.idempotencyKey ?? `api-${randomUUID()}`,
      issuedAt: new Date(this.#deps.now()).toISOString(),
    };
    return submit(this.#deps, signCommand(key, payload), tenant, write.namespace, write.action);
  }

  #keyPair(): KeyPair | null {
    this.#key ??= this.#deps.personKey();
    return this.#key;
  }
}
