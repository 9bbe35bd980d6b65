/**
 * @module What the node keeps about an identity beyond the engine's tenant: its kind and display
 * name, a `Registration` record of `std.identities` in the personal tenant, subject the tenant's
 * handle (written by a command signed as the person, read as a record), so it survives restarts
 * with the rest of the person's data. And the identity as `/api/identities` answers it.
 */
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem } from "../../../../shared/problem.ts";
import type { Delegation, RetiredDid, TenantDescription } from "../../../../shared/protocol/admin.ts";
import type { SignedCommandAnswer } from "../../../../shared/protocol/engine.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";

const NAMESPACE = "std.identities";
const AGGREGATE = "Registration";

/** The kinds a person may create; the personal tenant is `personal`. */
export const CREATED_KINDS = ["business", "household"] as const;
export type CreatedKind = (typeof CREATED_KINDS)[number];
export type IdentityKind = "personal" | CreatedKind;

/** The contract's spelling of each kind (`IdentityKind` values). */
const CONTRACT_KIND: Readonly<Record<CreatedKind, string>> = { business: "Business", household: "Household" };

/** One identity in `GET /api/identities`. */
export interface IdentityItem {
  readonly handle: string;
  /** The tenant's own did:key. */
  readonly did: string;
  readonly kind: IdentityKind;
  readonly name?: string;
  /** What the person is to it. */
  readonly role: "owner" | "member";
}

/** An identity described in full: its item, when it was made, its owners, members, delegations and retired dids. */
export interface IdentityView extends Omit<IdentityItem, "role"> {
  /** Null once the person removed themselves from it. */
  readonly role: IdentityItem["role"] | null;
  readonly createdAt: string;
  readonly owners: readonly string[];
  readonly members: readonly string[];
  readonly delegations: readonly Delegation[];
  /** The dids key rotations retired, newest first (20 at most). */
  readonly retiredDids: readonly RetiredDid[];
}

/** Records `handle`'s kind and name, signed as the person: the receipt, or the problem. */
export function register(writer: PersonWriter, handle: string, kind: CreatedKind, name: string): Promise<SignedCommandAnswer> {
  return writer.act({ namespace: NAMESPACE, action: "Register", subject: handle, args: { kind: CONTRACT_KIND[kind], name } });
}

/** Marks `handle`'s registration as one whose tenant was not made; a failure is logged, not thrown (the route answers its own). */
export async function withdraw(writer: PersonWriter, handle: string, log: Logger): Promise<void> {
  try {
    const answer = await writer.act({ namespace: NAMESPACE, action: "Withdraw", subject: handle, args: {} });
    if (answer.kind === "problem" || answer.outcome !== "accepted") log.warn("an identity's registration could not be withdrawn", { handle });
  } catch (error) {
    log.warn("an identity's registration could not be withdrawn", { handle, error: (error as Error).message });
  }
}

/** `handle`'s registered kind and name, or null (none kept, or the contract not installed yet). */
function registrationOf(reader: PersonReader, handle: string): { kind: CreatedKind; name: string } | null {
  let record;
  try {
    record = reader.record(undefined, NAMESPACE, AGGREGATE, handle);
  } catch (error) {
    if (error instanceof HttpProblem && error.problem.status === 404) return null;
    throw error;
  }
  if (record === null || record.state.status !== "Registered") return null;
  const kind = CREATED_KINDS.find((k) => CONTRACT_KIND[k] === record.state.kind) ?? "business";
  return { kind, name: typeof record.state.name === "string" ? record.state.name : "" };
}

/**
 * The identity of tenant `handle` for the person: `personal` for the personal tenant; otherwise
 * the registered kind and name, and `business` for a tenant nobody registered (an operator's).
 */
export function identityItem<R extends IdentityView["role"]>(reader: PersonReader, tenant: { handle: string; did: string }, role: R): Omit<IdentityItem, "role"> & { role: R } {
  if (tenant.handle === reader.personalTenant()) return { handle: tenant.handle, did: tenant.did, kind: "personal", role };
  const registered = registrationOf(reader, tenant.handle);
  const name = registered?.name ?? "";
  return { handle: tenant.handle, did: tenant.did, kind: registered?.kind ?? "business", ...(name === "" ? {} : { name }), role };
}

/** The full view of a described tenant, as the person sees it. */
export function identityView(reader: PersonReader, described: TenantDescription): IdentityView {
  const person = reader.did();
  const role = described.owners.includes(person) ? "owner" : described.members.includes(person) ? "member" : null;
  const item = identityItem(reader, described, role);
  return { ...item, createdAt: described.createdAt, owners: described.owners, members: described.members, delegations: described.delegations, retiredDids: described.retiredDids };
}
