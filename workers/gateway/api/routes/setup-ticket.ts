/**
 * @module The set-up ticket's cookie. Creating the account is three steps, and the ticket that
 * `create/register` makes keeps `create/finish` for whoever registered the first passkey. The
 * browser carries it in an HttpOnly cookie limited to the creation routes and to the challenge's
 * five minutes, so the page's scripts never hold it and `finish` takes an empty body.
 */
import { CHALLENGE_MS } from "../account/account-context.ts";

/** The ticket cookie's name. */
export const SETUP_COOKIE = "charter_setup";
const PATH = "/api/account/create";

/** The `Set-Cookie` value that hands the ticket to the browser. */
export function setupTicketCookie(ticket: string, origin: string): string {
  return `${SETUP_COOKIE}=${ticket}; HttpOnly; SameSite=Strict; Path=${PATH}; Max-Age=${CHALLENGE_MS / 1000}${secure(origin)}`;
}

/** The `Set-Cookie` value that takes the ticket away once set-up finished. */
export function clearSetupTicketCookie(origin: string): string {
  return `${SETUP_COOKIE}=; HttpOnly; SameSite=Strict; Path=${PATH}; Max-Age=0${secure(origin)}`;
}

/** The ticket in a `Cookie` header, or null. */
export function setupTicketFrom(cookieHeader: string | null | undefined): string | null {
  for (const part of (cookieHeader ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SETUP_COOKIE) return part.slice(eq + 1).trim();
  }
  return null;
}

function secure(origin: string): string {
  return new URL(origin).protocol === "https:" ? "; Secure" : "";
}
