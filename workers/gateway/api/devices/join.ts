/**
 * @module Pairing a device with the person's home node, both ends (shared/devices/peer-protocol.ts):
 *
 * - on the home node, `POST /sync/pair` (another node calls it): the sync worker spends the code
 *   and pins the device; this answers with the person's identity key sealed under a key derived
 *   from the code and both nodes' dids, signed by the home node's key;
 * - on the new device, `POST /api/sync/join {url, code, setupCode}` before it is set up: it signs
 *   the request with its own node key, checks the answer (signed by the home node, addressed to
 *   it, the key opening with the code), keeps the person's key sealed under its own key-encryption
 *   key, pins the home node, and remembers the tenant — so the account it then creates is the same
 *   person with the same personal tenant, and syncs.
 */
import type { DatabaseSync } from "node:sqlite";
import { fromPrivateJwk, type KeyPair, toPrivateJwk } from "../../../../shared/identity/index.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { normalCode, openMessage, PAIR_TYP, PAIRED_TYP, pairingKey, signMessage } from "../../../../shared/devices/peer-protocol.ts";
import { openSecret, sealSecret } from "../identity/aead.ts";
import type { SyncHost } from "./sync-host.ts";

const DDL = `
CREATE TABLE IF NOT EXISTS sync_join (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  home TEXT NOT NULL,
  url TEXT NOT NULL,
  tenant TEXT NOT NULL,
  first_name TEXT NOT NULL,
  person TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;
`;

/** What a device that joined a home node remembers. */
export interface Joined {
  readonly home: string;
  readonly url: string;
  readonly tenant: string;
  readonly firstName: string;
  readonly person: string;
}

export interface JoinDeps {
  readonly db: DatabaseSync;
  readonly kek: () => Uint8Array;
  readonly nodeKey: KeyPair;
  readonly sync: SyncHost;
  readonly declareHost: (url: string) => void;
  readonly now: () => number;
}

/** How long the home node has to answer a pairing request. */
const PAIR_TIMEOUT_MS = 15_000;
/** The largest pairing answer read. */
const PAIR_ANSWER_MAX = 64 * 1024;

/** Whether a URL's host name is this machine's loopback. */
function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Why `url` is not a home node's URL: https, or http on this machine's loopback. */
export function homeUrlProblem(url: unknown): string | null {
  if (typeof url !== "string" || url.length > 500 || !URL.canParse(url)) return "url must be the home node's URL";
  const u = new URL(url);
  if (u.protocol === "https:") return null;
  if (u.protocol === "http:" && isLoopback(u.hostname)) return null;
  return "the home node's URL is https (plain http only on this machine's loopback)";
}

export class DeviceJoin {
  readonly #deps: JoinDeps;

  constructor(deps: JoinDeps) {
    this.#deps = deps;
    deps.db.exec(DDL);
  }

  /** The home node this device joined, or null. */
  joined(): Joined | null {
    const r = this.#deps.db.prepare("SELECT home, url, tenant, first_name, person FROM sync_join WHERE id = 1").get() as { home: string; url: string; tenant: string; first_name: string; person: string } | undefined;
    return r === undefined ? null : { home: r.home, url: r.url, tenant: r.tenant, firstName: r.first_name, person: r.person };
  }

  /** Joins the home node at `url` with the code it showed; the caller checked this node is not set up. */
  async join(url: string, code: string, name: string): Promise<Joined> {
    const me = this.#deps.nodeKey;
    this.#deps.declareHost(url);
    const request = signMessage(me, PAIR_TYP, { device: me.did, name, code: normalCode(code), at: this.#deps.now() });
    let status: number;
    let text: string;
    try {
      const response = await fetch(new URL("/sync/pair", url), { method: "POST", headers: { "content-type": "application/jose" }, body: request, signal: AbortSignal.timeout(PAIR_TIMEOUT_MS) });
      status = response.status;
      text = (await response.text()).slice(0, PAIR_ANSWER_MAX);
    } catch (error) {
      throw new HttpProblem(problem(502, "home-unreachable", `the home node at ${url} could not be reached: ${(error as Error).message}`));
    }
    if (status !== 200) {
      let detail = text.slice(0, 300);
      let code2 = "";
      try {
        const p = JSON.parse(text) as { detail?: string; code?: string };
        detail = p.detail ?? detail;
        code2 = p.code ?? "";
      } catch {
        // Not a problem document: its start is the detail.
      }
      if (code2 === "bad-pairing-code" || code2 === "device-revoked") throw new HttpProblem(problem(403, "bad-pairing-code", `the home node refused the pairing: ${detail}`));
      throw new HttpProblem(problem(502, "home-unreachable", `the home node answered ${status}: ${detail}`));
    }
    const opened = openMessage(text, PAIRED_TYP);
    if (!opened.ok) throw new HttpProblem(problem(502, "home-unreachable", `the home node's answer does not verify: ${opened.error}`));
    const b = opened.value.body;
    const home = opened.value.signer;
    const sealed = b.sealedKey as { nonce?: unknown; ciphertext?: unknown } | undefined;
    if (b.home !== home || b.device !== me.did || typeof b.tenant !== "string" || typeof b.person !== "string" || typeof b.firstName !== "string" || typeof sealed?.nonce !== "string" || typeof sealed.ciphertext !== "string") {
      throw new HttpProblem(problem(502, "home-unreachable", "the home node's answer is not a pairing for this device"));
    }
    const opened2 = openSecret({ nonce: Buffer.from(sealed.nonce, "base64url"), ciphertext: Buffer.from(sealed.ciphertext, "base64url") }, pairingKey(code, home, me.did), Buffer.from(`${home}\n${me.did}`));
    if (opened2 === null) throw new HttpProblem(problem(502, "home-unreachable", "the person's key does not open with the code: this is not the home node that showed it"));
    const person = fromPrivateJwk(JSON.parse(opened2.toString("utf8")));
    if (!person.ok || person.value.did !== b.person) throw new HttpProblem(problem(502, "home-unreachable", "the person's key in the answer does not match its did"));
    const joined: Joined = { home, url, tenant: b.tenant, firstName: b.firstName.slice(0, 100), person: person.value.did };
    const keep = sealSecret(Buffer.from(JSON.stringify(toPrivateJwk(person.value))), this.#deps.kek(), Buffer.from(person.value.did));
    const { db } = this.#deps;
    db.exec("BEGIN IMMEDIATE");
    try {
      db.prepare("INSERT OR REPLACE INTO account_identity (id, did, nonce, sealed_key, created_at) VALUES (1, ?, ?, ?, ?)").run(person.value.did, keep.nonce, keep.ciphertext, this.#deps.now());
      db.prepare("INSERT OR REPLACE INTO sync_join (id, home, url, tenant, first_name, person, created_at) VALUES (1, ?, ?, ?, ?, ?, ?)").run(home, url, joined.tenant, joined.firstName, joined.person, this.#deps.now());
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
    await this.#deps.sync.request("join-home", { home, url, name: "home node", tenant: joined.tenant });
    return joined;
  }
}

/** The home node's answer to a device whose pairing the sync worker accepted. */
export function pairedAnswer(home: KeyPair, person: KeyPair, a: { device: string; code: string; tenant: string; firstName: string }): string {
  const sealed = sealSecret(Buffer.from(JSON.stringify(toPrivateJwk(person))), pairingKey(a.code, home.did, a.device), Buffer.from(`${home.did}\n${a.device}`));
  return signMessage(home, PAIRED_TYP, {
    home: home.did,
    device: a.device,
    tenant: a.tenant,
    person: person.did,
    firstName: a.firstName,
    sealedKey: { nonce: Buffer.from(sealed.nonce).toString("base64url"), ciphertext: Buffer.from(sealed.ciphertext).toString("base64url") },
  });
}
