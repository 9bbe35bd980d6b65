/**
 * @module Coming back from a tool server's authorization: the authorization server sends the
 * browser to `/oauth/callback?code=&state=` (or `?error=`), where the node answers this page. At
 * load the page takes what the address carries, puts `#/settings/tools` in its place (the code
 * leaves the address bar and the history), and the tool servers' settings post it to the node
 * (`POST /api/settings/integrations/tools/oauth/callback`) once signed in — with the session, which
 * the navigation from the other site could not carry (`SameSite=Strict`).
 */

/** The path the node answers the page at for an authorization's return. */
export const OAUTH_RETURN_PATH = "/oauth/callback";

/** What an authorization server sent back. */
export interface OAuthReturn {
  readonly code: string | null;
  readonly state: string | null;
  /** The authorization server's `error` (and its description): the person said no, or it failed. */
  readonly error: string | null;
}

let pending: OAuthReturn | null = null;

/** Takes an authorization's return from the address, if this load is one (call once, before the first render). */
export function captureOAuthReturn(): void {
  if (location.pathname !== OAUTH_RETURN_PATH) return;
  const q = new URLSearchParams(location.search);
  const error = q.get("error");
  const description = q.get("error_description");
  pending = { code: q.get("code"), state: q.get("state"), error: error === null ? null : description === null ? error : `${error}: ${description}` };
  history.replaceState(null, "", "/#/settings/tools");
}

/** The return not yet handled (once: a second call answers null). */
export function takeOAuthReturn(): OAuthReturn | null {
  const taken = pending;
  pending = null;
  return taken;
}
