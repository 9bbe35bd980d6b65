/**
 * @module Connector accounts: each connector's configured accounts (an email account's servers and
 * address), their secret sealed at rest with the node's key-encryption key, bound to the account
 * (a sealed secret moved to another account's row does not open). Kept in the node's own database
 * (`accounts.db`), as model connections are. Every change re-declares the hosts the accounts reach
 * (egress) and tells the outbox.
 */
import type { DatabaseSync } from "node:sqlite";
import type { ConnectorManifest } from "../../../../shared/connectors/manifest.ts";
import { declaredHosts } from "../../../../shared/connectors/manifest.ts";
import type { ConnectorAccountConfig } from "../../../../shared/protocol/outbox.ts";
import { openSecret, sealSecret } from "../identity/aead.ts";
import type { AccountFields } from "./account-fields.ts";

/** The most accounts one connector keeps. */
export const MAX_ACCOUNTS = 20;
export const ACCOUNT_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

const DDL = `CREATE TABLE IF NOT EXISTS node_connector_accounts (
  connector TEXT NOT NULL,
  id TEXT NOT NULL,
  fields TEXT NOT NULL,
  has_secret INTEGER NOT NULL,
  nonce BLOB NOT NULL,
  sealed_secret BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (connector, id)
) STRICT`;

interface Row {
  connector: string;
  id: string;
  fields: string;
  has_secret: number;
  nonce: Uint8Array;
  sealed_secret: Uint8Array;
  created_at: number;
  updated_at: number;
}

/** An account as settings show it: never its secret. */
export interface ConnectorAccount {
  connector: string;
  id: string;
  fields: AccountFields;
  hasSecret: boolean;
  hosts: string[];
  createdAt: number;
  updatedAt: number;
}

export class ConnectorAccounts {
  readonly #db: DatabaseSync;
  readonly #kek: () => Buffer;
  readonly #now: () => number;
  readonly #manifests: ReadonlyMap<string, ConnectorManifest>;
  readonly #changed: (connector: string, account: string) => void;

  constructor(options: {
    db: DatabaseSync;
    kek: () => Buffer;
    now: () => number;
    manifests: ReadonlyMap<string, ConnectorManifest>;
    changed: (connector: string, account: string) => void;
  }) {
    this.#db = options.db;
    this.#kek = options.kek;
    this.#now = options.now;
    this.#manifests = options.manifests;
    this.#changed = options.changed;
    this.#db.exec(DDL);
  }

  list(connector: string): ConnectorAccount[] {
    return (this.#db.prepare("SELECT * FROM node_connector_accounts WHERE connector = ? ORDER BY id LIMIT ?").all(connector, MAX_ACCOUNTS) as unknown as Row[]).map((r) => this.#view(r));
  }

  get(connector: string, id: string): ConnectorAccount | null {
    const row = this.#row(connector, id);
    return row === undefined ? null : this.#view(row);
  }

  /** The account with its secret opened, for the outbox; null when there is none. Throws when the secret cannot be opened. */
  config(connector: string, id: string): ConnectorAccountConfig | null {
    const row = this.#row(connector, id);
    if (row === undefined) return null;
    const opened = openSecret({ nonce: row.nonce, ciphertext: row.sealed_secret }, this.#kek(), boundTo(connector, id));
    if (opened === null) throw new Error(`the secret of ${connector} account ${id} cannot be opened with DATA/keys/account-kek`);
    return { connector, id, fields: JSON.parse(row.fields) as AccountFields, secret: row.has_secret === 1 ? opened.toString("utf8") : null };
  }

  /** Makes or replaces an account; `secret` undefined keeps the one it had. Fields are checked by the caller (account-fields.ts). */
  set(connector: string, id: string, fields: AccountFields, secret: string | null | undefined): ConnectorAccount {
    if (!ACCOUNT_ID.test(id)) throw new RangeError("not an account id");
    const before = this.#row(connector, id);
    if (before === undefined && this.list(connector).length >= MAX_ACCOUNTS) throw new RangeError(`a connector keeps at most ${MAX_ACCOUNTS} accounts`);
    const keep = secret === undefined && before !== undefined && before.has_secret === 1 ? this.config(connector, id)?.secret ?? null : null;
    const value = secret === undefined ? keep : secret;
    const sealed = sealSecret(Buffer.from(value ?? "", "utf8"), this.#kek(), boundTo(connector, id));
    const now = this.#now();
    this.#db
      .prepare(
        `INSERT INTO node_connector_accounts (connector, id, fields, has_secret, nonce, sealed_secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (connector, id) DO UPDATE SET fields = excluded.fields, has_secret = excluded.has_secret, nonce = excluded.nonce,
           sealed_secret = excluded.sealed_secret, updated_at = excluded.updated_at`,
      )
      .run(connector, id, JSON.stringify(fields), value === null ? 0 : 1, sealed.nonce, sealed.ciphertext, now, now);
    this.#changed(connector, id);
    return this.get(connector, id) as ConnectorAccount;
  }

  delete(connector: string, id: string): boolean {
    const removed = Number(this.#db.prepare("DELETE FROM node_connector_accounts WHERE connector = ? AND id = ?").run(connector, id).changes) === 1;
    if (removed) this.#changed(connector, id);
    return removed;
  }

  /** Every host the accounts of `connector` reach, by its manifest's templates. */
  hosts(connector: string): string[] {
    return this.list(connector).flatMap((a) => a.hosts);
  }

  #view(row: Row): ConnectorAccount {
    const fields = JSON.parse(row.fields) as AccountFields;
    const manifest = this.#manifests.get(row.connector);
    return {
      connector: row.connector,
      id: row.id,
      fields,
      hasSecret: row.has_secret === 1,
      hosts: manifest === undefined ? [] : declaredHosts(manifest, fields),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  #row(connector: string, id: string): Row | undefined {
    return this.#db.prepare("SELECT * FROM node_connector_accounts WHERE connector = ? AND id = ?").get(connector, id) as Row | undefined;
  }
}

function boundTo(connector: string, id: string): Buffer {
  return Buffer.from(JSON.stringify(["charter.node-connector-account", connector, id]), "utf8");
}
