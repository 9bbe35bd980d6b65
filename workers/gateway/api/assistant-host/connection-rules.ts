/**
 * @module What a model connection may be: its id, its provider, the base URL of its endpoint and its
 * key. Pure checks that answer every wrong field at once (a route turns them into one `400`), and
 * never repeat a key in what they say. A key may be left empty only for an OpenAI-compatible
 * endpoint on this machine or the local network (a local Ollama needs none).
 */
import { BlockList, isIP } from "node:net";

/** The providers a connection can speak to. */
export const PROVIDERS = ["openai", "anthropic"] as const;
export type ProviderKind = (typeof PROVIDERS)[number];

/** Where a connection without a base URL goes: each provider's own hosted API. */
export const DEFAULT_BASE_URLS: Readonly<Record<ProviderKind, string>> = { openai: "https://api.openai.com/v1", anthropic: "https://api.anthropic.com" };

/** The most connections a node keeps. */
export const MAX_CONNECTIONS = 50;
/** The longest base URL accepted, in characters. */
export const MAX_BASE_URL = 2000;
/** The longest key accepted, in characters (providers' keys are far shorter). */
export const MAX_KEY = 4096;

const ID = /^[A-Za-z0-9_.-]{1,64}$/;
// A key travels in an HTTP header: printable ASCII without spaces.
const KEY = /^[\x21-\x7e]*$/;

/** One wrong field: the body member it names, and why. */
export interface ConnectionFieldError {
  readonly field: string;
  readonly detail: string;
}

/** What setting a connection's key is given, each member not yet checked. */
export interface ConnectionInput {
  readonly provider?: unknown;
  readonly key?: unknown;
  readonly baseUrl?: unknown;
  readonly memory?: unknown;
}

/** Whether `id` is a connection id: 1 to 64 of `A-Z a-z 0-9 _ . -`. */
export function isConnectionId(id: unknown): id is string {
  return typeof id === "string" && ID.test(id);
}

/** Whether `value` names a provider. */
export function isProviderKind(value: unknown): value is ProviderKind {
  return (PROVIDERS as readonly unknown[]).includes(value);
}

/** Every problem of `input` (empty when it can be kept). The key itself is never quoted. */
export function connectionInputErrors(input: ConnectionInput): ConnectionFieldError[] {
  const errors: ConnectionFieldError[] = [];
  const fail = (field: string, detail: string) => errors.push({ field, detail });
  if (!isProviderKind(input.provider)) fail("provider", `provider must be one of ${PROVIDERS.join(", ")}`);
  const url = input.baseUrl === undefined || input.baseUrl === null ? null : baseUrlOf(input.baseUrl);
  if (typeof url === "string") fail("baseUrl", url);
  if (input.memory !== undefined && typeof input.memory !== "boolean") fail("memory", "memory must be true or false");
  const key = input.key;
  if (typeof key !== "string") fail("key", "key must be a string");
  else if (key.length > MAX_KEY) fail("key", `key must be at most ${MAX_KEY} characters`);
  else if (!KEY.test(key)) fail("key", "key must be printable ASCII without spaces");
  else if (key === "" && !(input.provider === "openai" && url instanceof URL && isLocalHost(url.hostname))) {
    fail("key", "key may be empty only for an openai connection whose baseUrl is on loopback or a private address");
  }
  return errors;
}

/** `value` as an endpoint URL, or what is wrong with it. */
function baseUrlOf(value: unknown): URL | string {
  if (typeof value !== "string") return "baseUrl must be a string or null";
  if (value.length > MAX_BASE_URL) return `baseUrl must be at most ${MAX_BASE_URL} characters`;
  if (!URL.canParse(value)) return "baseUrl must be an absolute http:// or https:// URL";
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") return "baseUrl must be an http:// or https:// URL";
  if (url.username !== "" || url.password !== "") return "baseUrl must not hold credentials: give the key as key";
  if (url.search !== "" || url.hash !== "") return "baseUrl must not have a query or a fragment";
  return url;
}

// Loopback, private (RFC 1918, unique-local), link-local and shared (CGNAT, a tailnet's) addresses.
const LOCAL = new BlockList();
for (const [net, bits] of [["127.0.0.0", 8], ["10.0.0.0", 8], ["172.16.0.0", 12], ["192.168.0.0", 16], ["169.254.0.0", 16], ["100.64.0.0", 10]] as const) LOCAL.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [["::1", 128], ["fc00::", 7], ["fe80::", 10]] as const) LOCAL.addSubnet(net, bits, "ipv6");
/** Names that never leave the local network: RFC 6761 `localhost`, mDNS `.local`, RFC 8375 `.home.arpa`, ICANN's `.internal`. */
const LOCAL_NAMES = /(?:^|\.)(?:localhost|local|home\.arpa|internal)$/;

/** Whether a URL's host name is this machine or a private network (IPv4-mapped IPv6 counts as its IPv4). */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
  const family = isIP(host);
  if (family === 0) return LOCAL_NAMES.test(host);
  return LOCAL.check(host, family === 6 ? "ipv6" : "ipv4");
}
