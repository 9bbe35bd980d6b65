/**
 * @module What the generic write routes (`POST /api/data/act`, `POST /api/personal|business/{contract}/actions/{Action}`)
 * sign in the personal tenant. Most actions of the node's own contracts are records like any other
 * and go through them; a few carry a rule that their own route holds and the contract cannot:
 *
 * - deciding an approval, and recording what came of it (`std.approvals` `Approve`, `Deny`,
 *   `CarriedOut`), happens at `POST /api/approvals/{id}`, which asks for the step-up an install
 *   needs and carries the install out: elsewhere it is `403 dedicated-route`;
 * - answering an ask of the assistant (`std.conversation` `Answer`) happens at
 *   `POST /api/asks/{id}/answer`, which checks the choices against the options and resumes the turn;
 * - a note of a knowledge vault (`std.knowledge`) is a file in the vault's folder as well as a
 *   record: it changes at `POST /api/knowledge`, which writes both;
 * - the currency rates calculation uses (`std.rates`) are set at `PUT /api/calc/rates`, which
 *   keeps them in one base;
 * - `std.persona`'s `SetSensitiveInstructions` needs a step-up, as at `PUT /api/persona`.
 *
 * A preview writes nothing and is not guarded.
 */
import type { Context } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import type { ApiEnv } from "../api-env.ts";
import { requireSteppedUp } from "../step-up.ts";
import type { PersonReader } from "./person-reader.ts";

/** Actions signed only by their own routes, by namespace, with the route that signs them. */
const DEDICATED: ReadonlyMap<string, { readonly actions: ReadonlySet<string>; readonly route: string }> = new Map([
  ["std.approvals", { actions: new Set(["Approve", "Deny", "CarriedOut"]), route: "POST /api/approvals/{id}" }],
  ["std.conversation", { actions: new Set(["Answer"]), route: "POST /api/asks/{id}/answer" }],
  ["std.knowledge", { actions: new Set(["Create", "Write", "Move", "Delete"]), route: "POST /api/knowledge" }],
  ["std.rates", { actions: new Set(["Set", "Remove"]), route: "PUT /api/calc/rates" }],
]);

/** Actions that need a step-up wherever they are signed, by namespace. */
const SENSITIVE: ReadonlyMap<string, ReadonlySet<string>> = new Map([["std.persona", new Set(["SetSensitiveInstructions"])]]);

/** Throws the problem when a generic route may not sign `write` now (see the module comment). */
export function guardGenericWrite(
  c: Context<ApiEnv>,
  deps: { readonly reader: PersonReader; readonly account: Pick<AccountCeremonies, "context"> },
  write: { readonly tenant?: string | undefined; readonly namespace: string; readonly action: string },
): void {
  if (write.tenant !== undefined && write.tenant !== deps.reader.personalTenant()) return;
  const dedicated = DEDICATED.get(write.namespace);
  if (dedicated?.actions.has(write.action) === true) {
    throw new HttpProblem(problem(403, "dedicated-route", `${write.namespace} ${write.action} is signed only by ${dedicated.route}, which holds what it needs (its checks, and what follows it)`));
  }
  if (SENSITIVE.get(write.namespace)?.has(write.action) === true) requireSteppedUp(c, deps.account);
}
