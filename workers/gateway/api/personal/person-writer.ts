/**
 * @module The node writes as the person: an `/api` write that changes a record becomes a command
 * signed with the person's key (opened from its sealed form once, then kept in memory) and sent to
 * the engine like any command on `/v1` — the same checks, the contract's `authorize` with the
 * person as `context.signer`, history, a signed receipt. A preview is the same signed command,
 * decided by the engine and never committed. Nothing here decides: the contract does.
 */
import { ChannelError } from "../../../../shared/channel/messages.ts";
import { type KeyPair, parseCommand, signCommand } from "../../../../shared/identity/index.ts";
import { problem } from "../../../../shared/problem.ts";
import type { PreviewAnswer, SignedCommandAnswer } from "../../../../shared/protocol/engine.ts";
import { type CommandRouteDeps, submit } from "../../routes/commands.ts";
import { timeOrderedId } from "./record-id.ts";

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

const NOT_SET_UP = problem(409, "not-set-up", "the node has no account yet");

/** Signs and submits writes as the person. */
export class PersonWriter {
  readonly #deps: PersonWriterDeps;
  readonly #accepted: ((write: PersonWrite & { readonly tenant: string }) => void)[] = [];
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
    const signed = this.#sign(write, write.idempotencyKey ?? timeOrderedId("api", this.#deps.now()));
    if (signed === null) return { kind: "problem", problem: NOT_SET_UP };
    // Signed just now with the key held here: its signature is not checked again (the payload is).
    const answer = await submit(this.#deps, signed.jws, signed.tenant, write.namespace, write.action, { signedHere: true });
    if (answer.kind === "receipt" && answer.outcome === "accepted" && !answer.replayed) for (const listener of this.#accepted) listener({ ...write, tenant: signed.tenant });
    return answer;
  }

  /** Hears every write of this writer the engine accepted (not a replay), whichever route made it. */
  onAccepted(listener: (write: PersonWrite & { readonly tenant: string }) => void): void {
    this.#accepted.push(listener);
  }

  /**
   * The engine's preview of `write` signed as the person: what it would decide now (the state it
   * would leave, or the contract's refusal), or a problem; nothing is written. Its idempotency key
   * is fresh and never stored, so a preview never stands in for a later command.
   */
  async preview(write: Omit<PersonWrite, "idempotencyKey">): Promise<PreviewAnswer> {
    const signed = this.#sign(write, timeOrderedId("preview", this.#deps.now()));
    if (signed === null) return { kind: "problem", problem: NOT_SET_UP };
    const verified = parseCommand(signed.jws, { now: this.#deps.now(), path: { tenant: signed.tenant, namespace: write.namespace, action: write.action }, signedHere: true });
    if (!verified.ok) return { kind: "problem", problem: verified.error };
    const { payload, signer, digest } = verified.value;
    try {
      return await this.#deps.engine.request("preview", { jws: signed.jws, digest, signer, payload });
    } catch (error) {
      if (error instanceof ChannelError) return { kind: "problem", problem: problem(503, "engine-unavailable", "the engine is restarting; preview again") };
      throw error;
    }
  }

  /** `write` as a command signed by the person in its tenant (the personal one by default); null before set-up. */
  #sign(write: Omit<PersonWrite, "idempotencyKey">, idempotencyKey: string): { jws: string; tenant: string } | null {
    const key = this.#keyPair();
    const tenant = write.tenant ?? this.#deps.personalTenant();
    if (key === null || tenant === null) return null;
    const payload = {
      tenant,
      namespace: write.namespace,
      action: write.action,
      subject: write.subject,
      args: write.args,
      idempotencyKey,
      issuedAt: new Date(this.#deps.now()).toISOString(),
    };
    return { jws: signCommand(key, payload), tenant };
  }

  #keyPair(): KeyPair | null {
    this.#key ??= this.#deps.personKey();
    return this.#key;
  }
}
