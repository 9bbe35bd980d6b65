/**
 * @module The webhook settings, as the node keeps them (node settings in `DATA/accounts.db`, not
 * the person's records): each source's secret, sealed (XChaCha20-Poly1305 under the key-encryption
 * key `DATA/keys/account-kek`, bound to its source, as connection keys are) — no answer, log or
 * journal entry ever holds one — and the mappings (the defaults until the person sets them).
 */
import { HOOK_SOURCES, type HookSource } from "../../../../shared/protocol/outbox.ts";
import type { NodeSettings } from "../assistant-host/node-settings.ts";
import { openSecret, sealSecret } from "../identity/aead.ts";
import { DEFAULT_MAPPINGS, type HookMapping } from "./hook-mapping.ts";

/** The settings' names. */
const SECRETS = "webhook-secrets";
const MAPPINGS = "webhook-mappings";

/** The longest secret, in bytes (GitHub's and Mastodon's are far shorter). */
export const MAX_SECRET_BYTES = 256;

interface StoredSecret {
  readonly nonce: string;
  readonly sealed: string;
  readonly updatedAt: number;
}

/** A source as settings show it: never its secret. */
export interface SourceView {
  readonly source: HookSource;
  readonly path: string;
  readonly hasSecret: boolean;
  readonly updatedAt: number | null;
}

export class HookSettings {
  readonly #settings: NodeSettings;
  readonly #kek: () => Buffer;
  readonly #now: () => number;
  readonly #changed: () => void;

  /** `changed` hears every change of a secret (the listener asks for them again). */
  constructor(options: { settings: NodeSettings; kek: () => Buffer; now: () => number; changed: () => void }) {
    this.#settings = options.settings;
    this.#kek = options.kek;
    this.#now = options.now;
    this.#changed = options.changed;
  }

  /** Every source, with whether it has a secret. */
  sources(): SourceView[] {
    const stored = this.#stored();
    return HOOK_SOURCES.map((source) => ({ source, path: `/hooks/${source}`, hasSecret: stored[source] !== undefined, updatedAt: stored[source]?.updatedAt ?? null }));
  }

  /** The secrets opened, by source (for the listener, over the outbox's socket only). */
  secrets(): Partial<Record<HookSource, string>> {
    const stored = this.#stored();
    const out: Partial<Record<HookSource, string>> = {};
    for (const source of HOOK_SOURCES) {
      const s = stored[source];
      if (s === undefined) continue;
      const opened = openSecret({ nonce: Buffer.from(s.nonce, "base64"), ciphertext: Buffer.from(s.sealed, "base64") }, this.#kek(), boundTo(source));
      if (opened === null) throw new Error(`the ${source} webhook secret cannot be opened with DATA/keys/account-kek (another key, or an altered setting)`);
      out[source] = opened.toString("utf8");
    }
    return out;
  }

  /** Sets `source`'s secret (the caller checked it: a non-empty string of at most MAX_SECRET_BYTES). */
  setSecret(source: HookSource, secret: string): SourceView {
    const sealed = sealSecret(Buffer.from(secret, "utf8"), this.#kek(), boundTo(source));
    const stored = { ...this.#stored(), [source]: { nonce: Buffer.from(sealed.nonce).toString("base64"), sealed: Buffer.from(sealed.ciphertext).toString("base64"), updatedAt: this.#now() } };
    this.#settings.put(SECRETS, stored);
    this.#changed();
    return this.sources().find((s) => s.source === source) as SourceView;
  }

  /** Removes `source`'s secret; false when it had none. */
  deleteSecret(source: HookSource): boolean {
    const stored = { ...this.#stored() };
    if (stored[source] === undefined) return false;
    delete stored[source];
    this.#settings.put(SECRETS, stored);
    this.#changed();
    return true;
  }

  /** The mappings: the person's, or the defaults. */
  mappings(): readonly HookMapping[] {
    return this.#settings.get<readonly HookMapping[] | null>(MAPPINGS, null) ?? DEFAULT_MAPPINGS;
  }

  /** Replaces the mappings (checked by the caller, hook-mapping.ts). */
  setMappings(mappings: readonly HookMapping[]): void {
    this.#settings.put(MAPPINGS, mappings);
  }

  #stored(): Partial<Record<HookSource, StoredSecret>> {
    return this.#settings.get<Partial<Record<HookSource, StoredSecret>>>(SECRETS, {});
  }
}

/** What a sealed secret is bound to: it opens only as the secret of its own source. */
function boundTo(source: HookSource): Buffer {
  return Buffer.from(`charter webhook secret\u0000${source}`, "utf8");
}
