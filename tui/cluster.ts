/**
 * @module Voters and the Connect view's targets as the console shows them. Voters come from what the node publishes:
 * `/.well-known/charter.json` lists the voters; `/health` may carry a consensus section (`raft` or
 * `consensus`: role, term, leader, and per-voter role, lag, url). Today a node is its only voter,
 * and a single voter leads itself with no lag; fields appear as soon as the node reports them.
 * Paired devices and exchange relationships come from what the node keeps (see read-peers.ts).
 */
import type { Probe } from "./node-probe.ts";
import type { ExchangeRelationship, PairedDevice, Peers } from "./read-peers.ts";

export interface Voter {
  readonly id: string;
  readonly self: boolean;
  readonly url: string | null;
  /** leader / follower / candidate as reported; null when unknown (the node is stopped). */
  readonly role: string | null;
  /** Log entries behind the leader; null when unknown. */
  readonly lag: number | null;
}

export interface Cluster {
  readonly voters: readonly Voter[];
  readonly leader: string | null;
  readonly term: number | null;
}

/** A node the Connect view lists: this one, another voter, a paired device or an exchange relationship. */
export type ConnectTarget =
  | { readonly kind: "this node" | "voter"; readonly id: string | null; readonly url: string | null }
  | { readonly kind: "device"; readonly id: string; readonly url: string | null; readonly device: PairedDevice }
  | { readonly kind: "relationship"; readonly id: string; readonly url: string; readonly relationship: ExchangeRelationship };

type Json = Record<string, unknown>;

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Json | null => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : null);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A voter entry: a bare did, or an object naming it (`id` or `did`) with extras. */
function entry(v: unknown): { id: string; fields: Json } | null {
  const id = text(v);
  if (id !== null) return { id, fields: {} };
  const o = obj(v);
  // A replicated engine names its voters by a short id and their did; the did is what identifies them.
  const named = o === null ? null : (text(o.did) ?? text(o.id));
  return o !== null && named !== null ? { id: named, fields: o } : null;
}

function consensusOf(health: Json | null): Json | null {
  return obj(health?.raft) ?? obj(health?.consensus);
}

/**
 * The voters, who leads and in which term, from this node's identity and its last probe (null
 * when there is nothing to ask: the node is stopped). Roles and lag are known only from an answer.
 */
export function clusterFrom(nodeDid: string | null, probe: Probe | null): Cluster {
  const consensus = consensusOf(probe?.health ?? null);
  const published = [...list(consensus?.voters), ...list(probe?.wellKnown?.voters)].map(entry).filter((e) => e !== null);
  const byId = new Map<string, Json>();
  for (const e of published) byId.set(e.id, { ...e.fields, ...byId.get(e.id) });
  const selfId = text(probe?.wellKnown?.identity) ?? nodeDid;
  if (byId.size === 0 && selfId !== null) byId.set(selfId, {});
  const answering = probe?.answers === true;
  const single = byId.size === 1 && selfId !== null && byId.has(selfId) && consensus === null;
  const voters = [...byId].map(([id, fields]): Voter => {
    const self = id === selfId;
    const role = text(fields.role) ?? (self ? text(consensus?.role) : null) ?? (single && answering ? "leader" : null);
    const lag = num(fields.lag) ?? (single && answering ? 0 : null);
    return { id, self, url: text(fields.url) ?? (self ? (probe?.url ?? null) : null), role: answering || !self ? role : null, lag: answering || !self ? lag : null };
  });
  // The leader as the consensus section names it (a voter id), mapped to that voter's did.
  const leaderId = text(consensus?.leader);
  const leaderEntry = list(consensus?.voters).map(obj).find((o) => o !== null && text(o.id) === leaderId);
  const leader = (leaderEntry ? text(leaderEntry.did) : null) ?? leaderId ?? voters.find((v) => v.role === "leader")?.id ?? null;
  return { voters, leader, term: num(consensus?.term) };
}

/** The nodes to list: this one, the other voters, the paired devices and the exchange relationships. */
export function connectTargets(nodeDid: string | null, nodeUrl: string | null, cluster: Cluster, peers: Peers): ConnectTarget[] {
  const targets: ConnectTarget[] = [{ kind: "this node", id: nodeDid, url: nodeUrl }];
  for (const v of cluster.voters) if (!v.self) targets.push({ kind: "voter", id: v.id, url: v.url });
  for (const d of peers.devices) targets.push({ kind: "device", id: d.did, url: d.url, device: d });
  for (const r of peers.relationships) targets.push({ kind: "relationship", id: r.did, url: r.url, relationship: r });
  return targets;
}

/** Whether the console probes `target` for the Connect view: this node, voters, and a paired home node it can reach. */
export function probed(target: ConnectTarget): boolean {
  if (target.url === null) return false;
  if (target.kind === "device") return target.device.revokedAt === null;
  return target.kind !== "relationship";
}
