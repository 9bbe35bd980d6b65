/**
 * @module Talking to a running `charter node`'s `/api` as a browser would: JSON bodies, the node's
 * `Origin` on every state-changing request (unless a test says otherwise), the cookies it hands
 * out, and account creation with a software authenticator.
 */
import assert from "node:assert/strict";
import type { Charter } from "./charter-process.ts";
import { SoftAuthenticator } from "./soft-authenticator.ts";

/** One answer: status, JSON body (null when none), the `Set-Cookie` values. */
export interface Answer {
  readonly status: number;
  readonly body: any;
  readonly setCookies: readonly string[];
  readonly headers: Headers;
}

/** How a request is sent. */
export interface CallOptions {
  readonly body?: unknown;
  /** The `Cookie` header (`name=value; …`). */
  readonly cookie?: string;
  /** The `Origin` header; default the node's origin on state-changing methods; null sends none. */
  readonly origin?: string | null;
}

/** A node's `/api`, seen from a test. */
export class ApiClient {
  readonly url: string;
  readonly origin: string;

  /** `url` is the address the node listens on; its origin is `http://localhost:PORT` (the default). */
  constructor(charter: Pick<Charter, "url">, origin?: string) {
    this.url = charter.url;
    this.origin = origin ?? `http://localhost:${new URL(charter.url).port}`;
  }

  /** Sends `method path` and reads the answer. */
  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    const changes = method !== "GET" && method !== "HEAD";
    const origin = options.origin === undefined ? (changes ? this.origin : null) : options.origin;
    if (origin !== null) headers.origin = origin;
    if (options.cookie !== undefined) headers.cookie = options.cookie;
    let body: string | undefined;
    if (changes) {
      body = JSON.stringify(options.body ?? {});
      headers["content-type"] = "application/json";
    }
    const res = await fetch(`${this.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    return { status: res.status, body: text === "" ? null : JSON.parse(text), setCookies: res.headers.getSetCookie(), headers: res.headers };
  }
}

/** The `name=value` of cookie `name` among `setCookies`, or null. */
export function cookieFrom(setCookies: readonly string[], name: string): string | null {
  const found = setCookies.find((c) => c.startsWith(`${name}=`));
  return found === undefined ? null : (found.split(";")[0] as string);
}

/** The session cookie an answer set (`charter_session=…`); fails when there is none. */
export function sessionCookieOf(answer: Answer): string {
  const cookie = cookieFrom(answer.setCookies, "charter_session");
  assert.ok(cookie !== null && cookie !== "charter_session=", `expected a session cookie, got ${JSON.stringify(answer.setCookies)} (${answer.status} ${JSON.stringify(answer.body)})`);
  return cookie;
}

/** The set-up code the node printed at start. */
export function printedSetupCode(charter: Pick<Charter, "stdout">): string {
  const code = /^set-up code: ([2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4})$/m.exec(charter.stdout)?.[1];
  assert.ok(code !== undefined, `no set-up code printed:\n${charter.stdout}`);
  return code;
}

/** Creates the account (begin → register → finish) with `auth`; answers the session cookie and the finish answer. */
export async function createAccount(api: ApiClient, setupCode: string, auth = new SoftAuthenticator(), firstName = "Ada"): Promise<{ cookie: string; finish: Answer; auth: SoftAuthenticator }> {
  const begin = await api.call("POST", "/api/account/create/begin", { body: { firstName, setupCode } });
  assert.equal(begin.status, 200, JSON.stringify(begin.body));
  const register = await api.call("POST", "/api/account/create/register", { body: { response: auth.create(begin.body.options, api.origin) } });
  assert.equal(register.status, 200, JSON.stringify(register.body));
  const ticket = cookieFrom(register.setCookies, "charter_setup");
  assert.ok(ticket !== null, "register hands out the set-up ticket's cookie");
  const finish = await api.call("POST", "/api/account/create/finish", { cookie: ticket });
  assert.equal(finish.status, 200, JSON.stringify(finish.body));
  return { cookie: sessionCookieOf(finish), finish, auth };
}

/** Signs in with `auth`; answers the new session's cookie. */
export async function signIn(api: ApiClient, auth: SoftAuthenticator): Promise<string> {
  const begin = await api.call("POST", "/api/account/signin/begin");
  assert.equal(begin.status, 200, JSON.stringify(begin.body));
  const finish = await api.call("POST", "/api/account/signin/finish", { body: { response: auth.get(begin.body.options, api.origin) } });
  assert.equal(finish.status, 200, JSON.stringify(finish.body));
  return sessionCookieOf(finish);
}

/** Steps the session of `cookie` up with `auth`; answers `until`. */
export async function stepUp(api: ApiClient, auth: SoftAuthenticator, cookie: string): Promise<string> {
  const begin = await api.call("POST", "/api/account/stepup/begin", { cookie });
  assert.equal(begin.status, 200, JSON.stringify(begin.body));
  const finish = await api.call("POST", "/api/account/stepup/finish", { cookie, body: { response: auth.get(begin.body.options, api.origin) } });
  assert.equal(finish.status, 200, JSON.stringify(finish.body));
  return finish.body.until as string;
}
