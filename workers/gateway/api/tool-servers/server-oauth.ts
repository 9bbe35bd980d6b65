/**
 * @module OAuth 2.1 with PKCE for an HTTP tool server that asks for it, as the SDK's client auth
 * (`OAuthClientProvider`) needs it: the node registers itself as a public client (dynamic client
 * registration, no secret) with the callback under `/api/settings/integrations/tools/oauth/callback`,
 * and keeps the registration, the PKCE verifier and the tokens only sealed (server-store.ts).
 * Starting an authorization remembers its `state` (single use, ten minutes, bound to the server
 * and the session that asked); the callback must bring it back.
 */
import { randomBytes } from "node:crypto";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { ServerStore } from "./server-store.ts";

/** How long a started authorization waits for its callback. */
export const AUTHORIZATION_MS = 10 * 60_000;
/** The most authorizations waiting at once (a new one past this drops the oldest). */
const MAX_PENDING = 32;

/** An authorization started and not yet come back. */
export interface PendingAuthorization {
  readonly server: string;
  readonly session: string;
  readonly expiresAt: number;
}

/** The authorizations waiting for their callback, by state: in memory (a restart means starting again). */
export class PendingAuthorizations {
  readonly #pending = new Map<string, PendingAuthorization>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** A new state for `server`, started by `session`. */
  begin(server: string, session: string): string {
    const now = this.#now();
    for (const [state, p] of this.#pending) if (p.expiresAt <= now) this.#pending.delete(state);
    if (this.#pending.size >= MAX_PENDING) this.#pending.delete(this.#pending.keys().next().value as string);
    const state = randomBytes(24).toString("base64url");
    this.#pending.set(state, { server, session, expiresAt: now + AUTHORIZATION_MS });
    return state;
  }

  /** Takes the authorization `state` names (once); null when there is none or it expired. */
  take(state: string): PendingAuthorization | null {
    const pending = this.#pending.get(state);
    this.#pending.delete(state);
    return pending === undefined || pending.expiresAt <= this.#now() ? null : pending;
  }
}

/** The SDK's OAuth client provider for one server, its state kept sealed in the store. */
export class ServerOAuth implements OAuthClientProvider {
  readonly #store: ServerStore;
  readonly #server: string;
  readonly #redirectUrl: string;
  readonly #state: string | null;
  /** Where the person is to be sent, once the SDK asked for it. */
  authorizationUrl: URL | null = null;

  constructor(options: { store: ServerStore; server: string; redirectUrl: string; state?: string }) {
    this.#store = options.store;
    this.#server = options.server;
    this.#redirectUrl = options.redirectUrl;
    this.#state = options.state ?? null;
  }

  get redirectUrl(): string {
    return this.#redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "Charter node", redirect_uris: [this.#redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }

  state(): string {
    // Outside a started authorization (a call that met a 401) the URL is never shown: any state will do.
    return this.#state ?? randomBytes(24).toString("base64url");
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const client = this.#store.oauth(this.#server).client as (OAuthClientInformationMixed & { redirect_uris?: unknown }) | undefined;
    // A registration made for another redirect URL (the node's origin changed, or an earlier
    // release's callback) would be refused at the authorization: register again.
    if (client !== undefined && Array.isArray(client.redirect_uris) && !client.redirect_uris.includes(this.#redirectUrl)) return undefined;
    return client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.#store.setOAuth(this.#server, { ...this.#store.oauth(this.#server), client });
  }

  tokens(): OAuthTokens | undefined {
    return this.#store.oauth(this.#server).tokens as OAuthTokens | undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#store.setOAuth(this.#server, { ...this.#store.oauth(this.#server), tokens });
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.#store.setOAuth(this.#server, { ...this.#store.oauth(this.#server), verifier });
  }

  codeVerifier(): string {
    const verifier = this.#store.oauth(this.#server).verifier;
    if (verifier === undefined) throw new Error("no authorization was started for this server");
    return verifier;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.#store.setOAuth(this.#server, { ...this.#store.oauth(this.#server), discovery });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#store.oauth(this.#server).discovery as OAuthDiscoveryState | undefined;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    const { client, tokens, verifier, discovery } = this.#store.oauth(this.#server);
    const keep = { client, tokens, verifier, discovery };
    if (scope === "all") this.#store.setOAuth(this.#server, {});
    else this.#store.setOAuth(this.#server, { ...keep, [scope]: undefined });
  }

  /** Whether tokens are kept for the server. */
  get authorized(): boolean {
    return this.tokens() !== undefined;
  }
}
