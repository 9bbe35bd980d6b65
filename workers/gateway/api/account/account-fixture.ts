/**
 * @module A node's account for the ceremonies' unit tests: an in-memory store, a manual clock, the
 * ceremonies bound to an origin, and the steps most tests start from (set up with a software
 * authenticator, sign in, step up).
 */
import { DatabaseSync } from "node:sqlite";
import { ManualClock } from "../../../../shared/clock.ts";
import { ok, type Result } from "../../../../shared/result.ts";
import { type GetKnobs, SoftAuthenticator } from "../../../../test/helpers/soft-authenticator.ts";
import type { AccountError } from "./account-errors.ts";
import { AccountStore, type SessionRecord } from "./account-store.ts";
import { type AccountCeremonies, accountCeremonies, type CreateFinished, type NewSession } from "./ceremonies.ts";

/** The origin the tests' node answers on. */
export const ORIGIN = "https://home.example.org";
/** The did set-up "makes" in tests. */
export const PERSON_DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

/** A node's account under test. */
export interface AccountNode {
  readonly db: DatabaseSync;
  readonly store: AccountStore;
  readonly clock: ManualClock;
  readonly account: AccountCeremonies;
  readonly origin: string;
}

/** A node that is not set up, on `origin`, its clock at 2026-03-01 09:00 UTC. */
export function accountNode(origin = ORIGIN, options: { loopback?: boolean } = {}): AccountNode {
  const db = new DatabaseSync(":memory:");
  const store = new AccountStore(db);
  const clock = new ManualClock(Date.parse("2026-03-01T09:00:00Z"));
  return { db, store, clock, account: accountCeremonies({ store, origin, clock, loopback: options.loopback ?? true }), origin };
}

/** The value of a success; a failure throws with its code (the test then fails naming it). */
export function unwrap<T>(result: Result<T, AccountError>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}${result.error.reason ? ` (${result.error.reason})` : ""}`);
  return result.value;
}

/** The error of a failure; a success throws. */
export function refusal<T>(result: Result<T, AccountError>): AccountError {
  if (result.ok) throw new Error("expected a refusal, got success");
  return result.error;
}

/** Sets the node up for "Ada" with a passkey on `auth`; answers what finish answered. */
export async function setUp(node: AccountNode, auth = new SoftAuthenticator()): Promise<{ auth: SoftAuthenticator; finished: CreateFinished }> {
  const code = node.account.setupCode();
  if (code === null) throw new Error("node already set up");
  const { options } = unwrap(await node.account.createBegin({ firstName: "Ada", setupCode: code }));
  const { ticket } = unwrap(await node.account.createRegister({ response: auth.create(options, node.origin) }));
  const finished = unwrap(await node.account.createFinish({ ticket }, "test browser", async () => ok({ did: PERSON_DID, tenant: "ada" })));
  return { auth, finished };
}

/** Signs in with `auth`; the refusal, if any, is answered as is. */
export async function signIn(node: AccountNode, auth: SoftAuthenticator, knobs: GetKnobs = {}, origin = node.origin): Promise<Result<NewSession, AccountError>> {
  const { options } = unwrap(await node.account.signInBegin());
  return node.account.signInFinish({ response: auth.get(options, origin, knobs) }, "test browser");
}

/** Steps `session` up with `auth`; answers the session as it now is. */
export async function stepUp(node: AccountNode, auth: SoftAuthenticator, session: SessionRecord): Promise<SessionRecord> {
  const { options } = unwrap(await node.account.stepUpBegin(session));
  unwrap(await node.account.stepUpFinish(session, { response: auth.get(options, node.origin) }));
  return current(node, session);
}

/** The session as the store has it now. */
export function current(node: AccountNode, session: SessionRecord): SessionRecord {
  const now = node.store.session(session.id);
  if (now === null) throw new Error("no such session");
  return now;
}
