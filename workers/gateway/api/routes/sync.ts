/**
 * @module Paired devices' routes (the sync worker does the exchanging: workers/sync):
 *
 * ```
 * GET  /api/sync/status                       → {node, tenant, commands, peers: [{did, name, role, url, pairedAt, revokedAt, lastContact, lastError, connected, pendingIn, pendingOut, held}], conflicts}
 * POST /api/sync/pair                         → 201 {code, expiresAt, node, url} (step-up): the code a new device enters
 * POST /api/sync/join {url, code, setupCode, name?} → 201 {home, tenant, firstName} (no session: a node not yet set up)
 * GET  /api/sync/conflicts                    → {items: [{id, namespace, aggregate, subject, action, args, signer, against, origin, at, state}], next}
 * POST /api/sync/conflicts/{id} {choose: "kept" | "theirs"} → {conflict, receipts}
 * GET  /api/root/keys                         → {identity, recovery, node, devices}
 * POST /api/root/keys/recovery                → 201 {did, privateJwk} (step-up; the private key is shown this once)
 * POST /api/root/devices/{did}/revoke         → {revoked, statement} (step-up)
 * ```
 *
 * Node-to-node (the peer app, no session: each message is signed by a pinned node key):
 * `POST /sync/pair` and `POST /sync/exchange` (shared/devices/peer-protocol.ts).
 */
import type { DatabaseSync } from "node:sqlite";
import type { Hono } from "hono";
import { generateKeyPair, isDidKey, type KeyPair, toPrivateJwk } from "../../../../shared/identity/index.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { REVOKE_TYP, signMessage } from "../../../../shared/devices/peer-protocol.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { signedWrite } from "../personal/signed-write.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";
import type { PeerRoutes } from "../peer/peer-app.ts";
import { type DeviceJoin, homeUrlProblem, pairedAnswer } from "../devices/join.ts";
import type { SyncHost } from "../devices/sync-host.ts";

export interface SyncRouteDeps {
  readonly sync: SyncHost;
  readonly join: DeviceJoin;
  readonly account: Pick<AccountCeremonies, "context" | "setupCode">;
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly origin: string;
  readonly nodeKey: KeyPair;
  /** The gateway's read-only view of the store. */
  readonly store: () => DatabaseSync;
  /** The accounts database (the root keys' public halves). */
  readonly accounts: DatabaseSync;
  /** The person's key pair once set up, else null. */
  readonly personKey: () => KeyPair | null;
  readonly firstName: () => string | null;
  /** Whether the node is set up. */
  readonly ready: () => boolean;
  readonly now: () => number;
}

const SYNC_NS = "std.sync";

interface ConflictRow {
  id: string;
  namespace: string;
  aggregate: string;
  subject: string;
  action: string;
  signer: string;
  args: string;
  against: string;
  origin: string;
  at: number;
}

export function mountSyncRoutes(api: Hono<ApiEnv>, deps: SyncRouteDeps): void {
  deps.accounts.exec("CREATE TABLE IF NOT EXISTS root_keys (kind TEXT PRIMARY KEY, did TEXT NOT NULL, created_at INTEGER NOT NULL) STRICT");

  /** The open conflicts of the personal tenant (settled ones have a std.sync record that is not Open). */
  const conflicts = (): ConflictRow[] => {
    const tenant = deps.reader.personalTenant();
    let rows: ConflictRow[];
    try {
      rows = deps.store().prepare("SELECT id, namespace, aggregate, subject, action, signer, args, against, origin, at FROM sync_conflicts WHERE tenant = ? ORDER BY at, id").all(tenant) as unknown as ConflictRow[];
    } catch {
      return [];
    }
    return rows.filter((r) => {
      const settled = deps.reader.record(tenant, SYNC_NS, "Conflict", r.id);
      return settled === null || settled.state.choice === "Open";
    });
  };

  api.get("/api/sync/status", async (c) => {
    sessionOf(c);
    const status = await deps.sync.request("sync-status", {});
    return c.json({ ...status, conflicts: conflicts().length });
  });

  api.post("/api/sync/pair", async (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    await jsonBody(c, []);
    const made = await deps.sync.request("pair-code", { tenant: deps.reader.personalTenant() });
    return c.json({ ...made, node: deps.nodeKey.did, url: deps.origin }, 201);
  });

  api.post("/api/sync/join", async (c) => {
    const body = await jsonBody(c, ["url", "code", "setupCode", "name"]);
    if (deps.ready()) throw new HttpProblem(problem(409, "already-set-up", "this node is set up already: a device joins its home node before it is set up"));
    const errors: { pointer: string; detail: string }[] = [];
    const urlProblem = homeUrlProblem(body.url);
    if (urlProblem !== null) errors.push({ pointer: "#/url", detail: urlProblem });
    if (typeof body.code !== "string" || !/^[A-Za-z0-9]{4}-?[A-Za-z0-9]{4}$/.test(body.code.trim())) errors.push({ pointer: "#/code", detail: "the 8-character code the home node shows (XXXX-XXXX)" });
    if (body.name !== undefined && (typeof body.name !== "string" || body.name.trim() === "" || body.name.length > 100)) errors.push({ pointer: "#/name", detail: "a name for this device, at most 100 characters" });
    if (errors.length > 0) throw new HttpProblem(problem(400, "bad-settings", errors.map((e) => `${e.pointer}: ${e.detail}`).join("; "), errors));
    const expected = deps.account.setupCode();
    if (expected === null || typeof body.setupCode !== "string" || body.setupCode.trim().toUpperCase() !== expected.toUpperCase()) {
      throw new HttpProblem(problem(403, "bad-setup-code", "the set-up code printed when this node started is needed to join it to a home node"));
    }
    const joined = await deps.join.join(body.url as string, (body.code as string).trim(), typeof body.name === "string" ? body.name.trim() : "device");
    return c.json({ home: joined.home, tenant: joined.tenant, firstName: joined.firstName }, 201);
  });

  api.get("/api/sync/conflicts", (c) => {
    sessionOf(c);
    const tenant = deps.reader.personalTenant();
    const page = pageOf(conflicts(), (r) => r.id, pageRequest(c));
    const items = page.items.map((r) => ({
      id: r.id,
      namespace: r.namespace,
      aggregate: r.aggregate,
      subject: r.subject,
      action: r.action,
      args: JSON.parse(r.args) as unknown,
      signer: r.signer,
      against: r.against,
      origin: r.origin,
      at: new Date(r.at).toISOString(),
      state: deps.reader.record(tenant, r.namespace, r.aggregate, r.subject)?.state ?? null,
    }));
    return c.json({ items, next: page.next });
  });

  api.post("/api/sync/conflicts/:id", async (c) => {
    sessionOf(c);
    const id = c.req.param("id");
    const body = await jsonBody(c, ["choose"]);
    if (body.choose !== "kept" && body.choose !== "theirs") throw new HttpProblem(problem(400, "bad-settings", "choose is kept or theirs", [{ pointer: "#/choose", detail: "kept: the record stays as merged; theirs: the refused change is made now" }]));
    const conflict = conflicts().find((r) => r.id === id);
    if (conflict === undefined) throw new HttpProblem(problem(404, "not-found", `no open conflict '${id.slice(0, 80)}'`));
    // The choice is a command (it syncs, and settles the conflict on every device); taking theirs then makes the change.
    const choice = await signedWrite(deps.writer, { namespace: SYNC_NS, action: body.choose === "kept" ? "Keep" : "TakeTheirs", subject: id, args: {}, idempotencyKey: `conflict:${id}` });
    const receipts = [choice.receipt];
    if (body.choose === "theirs") {
      const redo = await signedWrite(deps.writer, { namespace: conflict.namespace, action: conflict.action, subject: conflict.subject, args: JSON.parse(conflict.args) as Record<string, unknown>, idempotencyKey: `conflict-theirs:${id}` });
      receipts.push(redo.receipt);
    }
    return c.json({ conflict: { id, settled: body.choose }, receipts });
  });

  const rootKey = (kind: string) => (deps.accounts.prepare("SELECT did FROM root_keys WHERE kind = ?").get(kind) as { did: string } | undefined)?.did ?? null;

  api.get("/api/root/keys", async (c) => {
    sessionOf(c);
    const status = await deps.sync.request("sync-status", {});
    return c.json({ identity: deps.reader.did(), recovery: rootKey("recovery"), node: status.node, devices: status.peers.map((p) => ({ did: p.did, name: p.name, role: p.role, pairedAt: p.pairedAt, revokedAt: p.revokedAt })) });
  });

  api.post("/api/root/keys/recovery", async (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    await jsonBody(c, []);
    const pair = generateKeyPair();
    deps.accounts.prepare("INSERT OR REPLACE INTO root_keys (kind, did, created_at) VALUES ('recovery', ?, ?)").run(pair.did, deps.now());
    return c.json({ did: pair.did, privateJwk: toPrivateJwk(pair) }, 201);
  });

  api.post("/api/root/devices/:did/revoke", async (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    await jsonBody(c, []);
    const device = c.req.param("did");
    if (!isDidKey(device)) throw new HttpProblem(problem(400, "bad-settings", "the device is named by its did:key", [{ pointer: "#/did", detail: "a did:key" }]));
    const status = await deps.sync.request("sync-status", {});
    if (!status.peers.some((p) => p.did === device)) throw new HttpProblem(problem(404, "not-found", "no paired device has that key"));
    const person = deps.personKey();
    if (person === null) throw new HttpProblem(problem(409, "not-set-up", "the node is not set up"));
    const statement = signMessage(person, REVOKE_TYP, { tenant: deps.reader.personalTenant(), device, at: deps.now() });
    const revoked = await deps.sync.request("revoke", { device, statement });
    return c.json({ revoked: revoked.revoked, statement });
  });
}

/** The node-to-node sync routes: a device pairing with this home node, and devices' exchanges. */
export function syncPeerRoutes(deps: SyncRouteDeps): PeerRoutes {
  return (app) => {
    app.post("/sync/pair", async (c) => {
      const jws = (await c.req.text()).trim();
      const person = deps.personKey();
      const firstName = deps.firstName();
      if (person === null || firstName === null) return c.json(problem(409, "not-set-up", "this node is not set up: set it up before pairing a device with it"), 409, { "content-type": "application/problem+json" });
      const accepted = await deps.sync.request("pair-accept", { jws });
      if (!accepted.ok) {
        const d = accepted.detail;
        const p = accepted.code === "bad-pairing" ? problem(400, "bad-pairing", d) : accepted.code === "device-revoked" ? problem(403, "device-revoked", d) : problem(403, "bad-pairing-code", d);
        return c.json(p, p.status as 400, { "content-type": "application/problem+json" });
      }
      const answer = pairedAnswer(deps.nodeKey, person, { device: accepted.device, code: accepted.code, tenant: accepted.tenant, firstName });
      return c.body(answer, 200, { "content-type": "application/jose" });
    });

    app.post("/sync/exchange", async (c) => {
      const jws = (await c.req.text()).trim();
      const answer = await deps.sync.request("exchange", { jws });
      return c.body(answer.body, answer.status as 200, { "content-type": answer.type });
    });
  };
}
