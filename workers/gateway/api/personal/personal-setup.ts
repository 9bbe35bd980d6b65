/**
 * @module Set-up's steps after the passkey: the person's identity (a did:key, sealed at rest), then
 * the personal tenant, owned by that identity and created by it, through the engine's admin
 * channel — creating a tenant installs the standard library in it (workers/engine/std-library.ts),
 * so the node's standard contracts are there from the first moment. The tenant's handle is the
 * first name, lower-cased and folded to a–z, 0–9 and '-'; when taken, `-2`, `-3`, … follow.
 */
import type { AdminRequests } from "../../../../shared/protocol/admin.ts";
import { fail, ok } from "../../../../shared/result.ts";
import type { SocketLink } from "../../../../shared/worker/socket-link.ts";
import type { Outcome, SetUp, SetupPlan } from "../account/ceremonies.ts";
import { accountError } from "../account/account-errors.ts";

/** How many handles set-up tries (`ada`, `ada-2`, … `ada-20`) before it gives up. */
const HANDLE_TRIES = 20;
/** A handle's longest form, leaving room for a `-NN` suffix within the engine's 63. */
const HANDLE_BASE_MAX = 40;

/** The personal tenant's handle for a first name: `Zoë Anne` → `zoe-anne`; `personal` when nothing is left. */
export function personalHandle(firstName: string): string {
  const folded = firstName
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, HANDLE_BASE_MAX)
    .replace(/-+$/, "");
  return folded.length >= 2 ? folded : "personal";
}

/** What the personal set-up needs. */
export interface PersonalSetupDeps {
  /** Makes the person's did:key (identity/person-key.ts). */
  readonly makeIdentity: (plan: SetupPlan) => Promise<Outcome<{ did: string }>>;
  readonly admin: Pick<SocketLink<AdminRequests>, "request">;
  /** The personal tenant's handle when it is given (a device that joined its home node takes the home's), else null. */
  readonly handle?: () => string | null;
}

/** Set-up's callback: the identity, then the personal tenant it owns. */
export function personalSetUp(deps: PersonalSetupDeps): SetUp {
  return async (plan) => {
    const identity = await deps.makeIdentity(plan);
    if (!identity.ok) return identity;
    const { did } = identity.value;
    const given = deps.handle?.() ?? null;
    const base = given ?? personalHandle(plan.firstName);
    for (let n = 1; n <= (given === null ? HANDLE_TRIES : 1); n++) {
      const handle = n === 1 ? base : `${base}-${n}`;
      let made;
      try {
        made = await deps.admin.request("tenant-create", { handle, owners: [did], by: did });
      } catch {
        return fail(accountError("engine-unavailable", "the engine did not answer; start set-up again in a moment"));
      }
      if (made.ok) return ok({ did, tenant: made.value.handle });
      if (made.error.code !== "tenant_exists") return fail({ ...accountError("engine-unavailable", "the personal tenant could not be created; start set-up again"), reason: made.error.message });
    }
    return fail(accountError("engine-unavailable", `no free tenant handle near '${base}'`));
  };
}
