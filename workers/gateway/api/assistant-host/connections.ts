/**
 * @module The person's model connections, in `DATA/accounts.db` (table `node_connections`): which
 * provider, which endpoint, whether the provider may see memory notes, and the key, kept only
 * sealed (XChaCha20-Poly1305 under the key-encryption key `DATA/keys/account-kek`, as the person's
 * own key is). The sealed key is bound to its connection's id, provider and base URL, so a key
 * moved to another row, or a row pointed at another endpoint, no longer opens. Connections
 * configure the node, they are not the person's records: they live beside the account.
 */
import { createRequire } from "node:module";
import type { DatabaseSync } from "node:sqlite";
import type { CallLimits } from "../../../../shared/models/call-guard.ts";
import type { ModelProvider } from "../../../../shared/models/model.ts";
import { openSecret, sealSecret } from "../identity/aead.ts";
import { connectionInputErrors, isConnectionId, MAX_CONNECTIONS, type ProviderKind } from "./connection-rules.ts";
import type * as Adapters from "./provider-adapters.ts";

export type { ProviderKind } from "./connection-rules.ts";

/** A connection as it may be shown: never its key. */
export interface Connection {
  id: string;
  provider: ProviderKind;
  baseUrl: string | null;
  hasKey: boolean;
  memory: boolean;
  createdAt: number;
  updatedAt: number;
}

/** A connection with its key opened: for the code that calls the provider, never for an answer or a log. */
export interface ConnectionSecret {
  id: string;
  provider: ProviderKind;
  baseUrl: string | null;
  key: string;
  memory: boolean;
}

const DDL = `CREATE TABLE IF NOT EXISTS node_connections (
  id TEXT PRIMARY KEY,
  provider TEXT NOT NULL,
  base_url TEXT,
  has_key INTEGER NOT NULL,
  nonce BLOB NOT NULL,
  sealed_key BLOB NOT NULL,
  memory INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT`;

interface Row {
  id: string;
  provider: ProviderKind;
  base_url: string | null;
  has_key: number;
  nonce: Uint8Array;
  sealed_key: Uint8Array;
  memory: number;
  created_at: number;
  updated_at: number;
}

/** The connections table. Input is checked by the caller (connection-rules.ts); a wrong one here is a bug. */
export class Connections {
  readonly #db: DatabaseSync;
  readonly #kek: () => Buffer;
  readonly #now: () => number;
  readonly #changed: () => void;

  /** `changed` is called after a connection is made, replaced or removed (the node declares their hosts again). */
  constructor(options: { db: DatabaseSync; kek: () => Buffer; now: () => number; changed?: () => void }) {
    this.#db = options.db;
    this.#kek = options.kek;
    this.#now = options.now;
    this.#changed = options.changed ?? (() => {});
    this.#db.exec(DDL);
  }

  /** Every connection, by id. */
  list(): Connection[] {
    return (this.#db.prepare("SELECT * FROM node_connections ORDER BY id LIMIT ?").all(MAX_CONNECTIONS) as unknown as Row[]).map(view);
  }

  /** The connection `id`, or null. */
  get(id: string): Connection | null {
    const row = this.#row(id);
    return row === undefined ? null : view(row);
  }

  /** The connection `id` with its key opened, or null when there is none. Throws when the key cannot be opened (another KEK, or an altered row). */
  secret(id: string): ConnectionSecret | null {
    const row = this.#row(id);
    if (row === undefined) return null;
    const opened = openSecret({ nonce: row.nonce, ciphertext: row.sealed_key }, this.#kek(), boundTo(row.id, row.provider, row.base_url));
    if (opened === null) throw new Error(`the key of connection ${JSON.stringify(row.id)} cannot be opened with DATA/keys/account-kek (another key, or an altered row)`);
    return { id: row.id, provider: row.provider, baseUrl: row.base_url, key: opened.toString("utf8"), memory: row.memory === 1 };
  }

  /** Makes or replaces connection `id` with its key sealed; `memory` stays as it was unless given (false for a new one). */
  setKey(id: string, input: { provider: ProviderKind; key: string; baseUrl?: string | null; memory?: boolean }): Connection {
    if (!isConnectionId(id)) throw new RangeError("not a connection id");
    const errors = connectionInputErrors(input);
    if (errors.length > 0) throw new RangeError(errors.map((e) => e.detail).join("; "));
    const before = this.#row(id);
    if (before === undefined && this.#count() >= MAX_CONNECTIONS) throw new RangeError(`a node keeps at most ${MAX_CONNECTIONS} connections`);
    const baseUrl = input.baseUrl ?? null;
    const sealed = sealSecret(Buffer.from(input.key, "utf8"), this.#kek(), boundTo(id, input.provider, baseUrl));
    const memory = input.memory ?? (before === undefined ? false : before.memory === 1);
    const now = this.#now();
    this.#db
      .prepare(
        `INSERT INTO node_connections (id, provider, base_url, has_key, nonce, sealed_key, memory, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET provider = excluded.provider, base_url = excluded.base_url, has_key = excluded.has_key, nonce = excluded.nonce,
           sealed_key = excluded.sealed_key, memory = excluded.memory, updated_at = excluded.updated_at`,
      )
      .run(id, input.provider, baseUrl, input.key === "" ? 0 : 1, sealed.nonce, sealed.ciphertext, memory ? 1 : 0, now, now);
    this.#changed();
    return this.get(id) as Connection;
  }

  /** Whether the provider of `id` may see memory notes; null when there is no such connection. */
  setMemory(id: string, memory: boolean): Connection | null {
    this.#db.prepare("UPDATE node_connections SET memory = ?, updated_at = ? WHERE id = ?").run(memory ? 1 : 0, this.#now(), id);
    return this.get(id);
  }

  /** Removes connection `id` and its key; false when there was none. */
  deleteKey(id: string): boolean {
    const removed = Number(this.#db.prepare("DELETE FROM node_connections WHERE id = ?").run(id).changes) === 1;
    if (removed) this.#changed();
    return removed;
  }

  #row(id: string): Row | undefined {
    return this.#db.prepare("SELECT * FROM node_connections WHERE id = ?").get(id) as Row | undefined;
  }

  #count(): number {
    return Number((this.#db.prepare("SELECT COUNT(*) AS n FROM node_connections").get() as { n: number }).n);
  }
}

const requireHere = createRequire(import.meta.url);
let adapters: typeof Adapters | undefined;

/** The shared/models provider for `secret`; the SDKs are loaded on the first call, not before. */
export function providerOf(secret: ConnectionSecret, limits?: CallLimits): ModelProvider {
  // A synchronous require of the ES module (Node ≥ 22.12), so that only a gateway that calls a model pays for the SDKs.
  adapters ??= requireHere("./provider-adapters.ts") as typeof Adapters;
  return adapters.adapterFor(secret, limits);
}

/** What a sealed key is bound to: its connection's id, provider and endpoint. */
function boundTo(id: string, provider: ProviderKind, baseUrl: string | null): Buffer {
  return Buffer.from(JSON.stringify(["charter.node-connection", id, provider, baseUrl]), "utf8");
}

function view(row: Row): Connection {
  return { id: row.id, provider: row.provider, baseUrl: row.base_url, hasKey: row.has_key === 1, memory: row.memory === 1, createdAt: row.created_at, updatedAt: row.updated_at };
}
