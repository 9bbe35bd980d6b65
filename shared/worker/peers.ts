/**
 * @module The voters' addresses: `PeerAddress` and the `--peers` flag
 * (`a=did:key:z…@127.0.0.1:8790,b=…`). Apart from the transport so that parsing the command line
 * does not load it.
 */
import type { Result } from "../result.ts";
import { publicKeyFromDidKey } from "../identity/did-key.ts";

/** A voter: its id in the cluster configuration, its node identity and its peer address. */
export interface PeerAddress {
  readonly id: string;
  readonly did: string;
  readonly host: string;
  readonly port: number;
}

/** Parses the `--peers` flag, `a=did:key:z…@127.0.0.1:8790,b=did:key:z…@[::1]:8790`, into addresses. */
export function parsePeers(text: string): Result<PeerAddress[], string> {
  const peers: PeerAddress[] = [];
  if (text.trim() === "") return { ok: true, value: peers };
  const ids = new Set<string>();
  const dids = new Set<string>();
  const addresses = new Set<string>();
  const entries = text.split(",");
  for (let i = 0; i < entries.length; i++) {
    const entry = (entries[i] as string).trim();
    const bad = (why: string) => ({ ok: false as const, error: `--peers entry ${i + 1}${entry === "" ? "" : ` '${clip(entry)}'`}: ${why}` });
    if (entry === "") return bad("is empty (entries are id=did:key:…@host:port, separated by commas)");
    const eq = entry.indexOf("=");
    if (eq < 0) return bad("has no id (expected id=did:key:…@host:port)");
    const id = entry.slice(0, eq).trim();
    if (id === "") return bad("has no id before '='");
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(id)) return bad(`the id '${clip(id)}' must be letters, digits, '_', '.' or '-' (at most 64, starting with a letter or digit)`);
    const rest = entry.slice(eq + 1);
    const at = rest.lastIndexOf("@");
    if (at < 0) return bad("has no address (expected id=did:key:…@host:port)");
    const did = rest.slice(0, at).trim();
    const decoded = publicKeyFromDidKey(did);
    if (!decoded.ok) return bad(decoded.error.message);
    const address = parseHostPort(rest.slice(at + 1).trim());
    if (typeof address === "string") return bad(address);
    if (ids.has(id)) return bad(`the id ${id} is listed twice`);
    if (dids.has(did)) return bad(`${did} is listed twice`);
    const where = `${address.host}:${address.port}`;
    if (addresses.has(where)) return bad(`the address ${where} is listed twice`);
    ids.add(id);
    dids.add(did);
    addresses.add(where);
    peers.push({ id, did, host: address.host, port: address.port });
  }
  return { ok: true, value: peers };
}

/** `host:port` or `[v6]:port`, or why not. */
function parseHostPort(text: string): { host: string; port: number } | string {
  let host: string;
  let portText: string;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close < 0 || text[close + 1] !== ":") return `'${clip(text)}' is not [ipv6]:port`;
    host = text.slice(1, close);
    portText = text.slice(close + 2);
  } else {
    const colon = text.lastIndexOf(":");
    if (colon < 0) return `the address '${clip(text)}' has no port (expected host:port)`;
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
    if (host.includes(":")) return `put the IPv6 address in '${clip(text)}' in brackets: [host]:port`;
  }
  if (host === "" || /[\s/@[\]]/.test(host)) return `the host in '${clip(text)}' is not a host name or IP address`;
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return `the port '${clip(portText)}' is not a number from 1 to 65535`;
  return { host, port: Number(portText) };
}

/** Keeps hostile input out of messages at a readable length. */
export function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
