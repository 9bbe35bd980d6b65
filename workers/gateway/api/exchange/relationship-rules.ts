/**
 * @module What a relationship may be: `did` an Ed25519 did:key (not the person's own), `url` the
 * other node's address — https, or plain http only to a host on this machine (loopback: nothing
 * crosses a network in clear), no credentials, query or fragment — and `name` 1 to 100 characters
 * without control characters. Every wrong field is named at once.
 */
import { isDidKey } from "../../../../shared/identity/did-key.ts";
import { isLoopbackAddress } from "../account/sign-in-off.ts";

/** How many relationships a person keeps at most, and the longest name and URL. */
export const MAX_RELATIONSHIPS = 500;
export const NAME_MAX = 100;
const URL_MAX = 2048;

/** One wrong field. */
export interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

/** A relationship's fields, checked. */
export interface RelationshipInput {
  readonly did: string;
  readonly url: string;
  readonly name: string;
}

/** The fields of `body` as a relationship, or every field that is not right. */
export function relationshipInput(body: { readonly did?: unknown; readonly url?: unknown; readonly name?: unknown }, personDid: string): { ok: true; value: RelationshipInput } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (!isDidKey(body.did)) errors.push({ pointer: "#/did", detail: "did is the other person's Ed25519 did:key (did:key:z6Mk…)" });
  else if (body.did === personDid) errors.push({ pointer: "#/did", detail: "that is your own did:key" });
  const urlProblem = nodeUrlProblem(body.url);
  if (urlProblem !== null) errors.push({ pointer: "#/url", detail: urlProblem });
  const name = nameOf(body.name);
  if (name === null) errors.push(NAME_ERROR);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { did: body.did as string, url: canonicalUrl(body.url as string), name: name as string } };
}

/** A change of a relationship: its name, its URL, or both (the did it pins never changes). */
export interface RelationshipChange {
  readonly name?: string;
  readonly url?: string;
}

/** The fields of `body` as a change of a relationship, or every field that is not right. */
export function relationshipChange(body: { readonly name?: unknown; readonly url?: unknown }): { ok: true; value: RelationshipChange } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (body.name === undefined && body.url === undefined) errors.push({ pointer: "#", detail: "a change names the relationship's name, its url, or both" });
  const name = body.name === undefined ? undefined : nameOf(body.name);
  if (name === null) errors.push(NAME_ERROR);
  const urlProblem = body.url === undefined ? null : nodeUrlProblem(body.url);
  if (urlProblem !== null) errors.push({ pointer: "#/url", detail: urlProblem });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { ...(typeof name === "string" ? { name } : {}), ...(typeof body.url === "string" ? { url: canonicalUrl(body.url) } : {}) } };
}

const NAME_ERROR: FieldError = { pointer: "#/name", detail: `name is 1 to ${NAME_MAX} characters, no control characters` };

/** A name as kept (trimmed), or null when it is not one. */
function nameOf(value: unknown): string | null {
  const name = typeof value === "string" ? value.trim() : null;
  return name === null || name.length === 0 || name.length > NAME_MAX || /\p{Cc}/u.test(name) ? null : name;
}

/** A node's URL as kept: parsed and written again, without a trailing slash. */
function canonicalUrl(url: string): string {
  return new URL(url).href.replace(/\/+$/, "");
}

/** Why `url` is not another node's address, or null. */
export function nodeUrlProblem(url: unknown): string | null {
  if (typeof url !== "string" || url.length === 0 || url.length > URL_MAX || !URL.canParse(url)) return `url is the other node's https URL (at most ${URL_MAX} characters)`;
  const u = new URL(url);
  if (u.username !== "" || u.password !== "" || u.search !== "" || u.hash !== "") return "the url carries no credentials, query or fragment";
  if (u.protocol === "https:") return null;
  if (u.protocol === "http:" && isLoopbackAddress(u.hostname)) return null;
  return "the url is https (plain http only to this machine's loopback)";
}
