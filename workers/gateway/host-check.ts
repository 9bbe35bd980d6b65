/**
 * @module Answering only for the node's own names (DNS rebinding). A page on any web site can point
 * its own host name at 127.0.0.1 and so make a browser send requests to a node on the same machine;
 * those requests carry the page's host name in `Host`. The node answers a request only when its
 * `Host` is an IP address (which no rebinding can produce), `localhost` (or a name under it), the
 * machine's own host name (and `NAME.local`), or a name given with `--allow-host`; anything else
 * gets `421 Misdirected Request`.
 */
import { isIP } from "node:net";
import { hostname } from "node:os";

/** Whether `hostHeader` (the request's `Host`, port included) names this node. */
export type HostCheck = (hostHeader: string | undefined) => boolean;

/** The check for a node that also answers to `allowed` (names, case-insensitive, no port). */
export function hostCheck(allowed: readonly string[], machineName: string = hostname()): HostCheck {
  const names = new Set([...allowed, machineName, `${machineName}.local`].map((n) => n.toLowerCase()).filter((n) => n !== "" && n !== ".local"));
  return function isOwnHost(hostHeader) {
    // HTTP/1.0 clients may send no Host; a browser always does, so this cannot be rebinding.
    if (hostHeader === undefined || hostHeader === "") return true;
    const name = hostOf(hostHeader);
    if (name === null) return false;
    if (isIP(name) !== 0) return true;
    if (name === "localhost" || name.endsWith(".localhost")) return true;
    return names.has(name);
  };
}

/** The host part of a `Host` header, lower-cased, without port or IPv6 brackets; null when malformed. */
function hostOf(header: string): string | null {
  const text = header.trim().toLowerCase();
  if (text.startsWith("[")) {
    const end = text.indexOf("]");
    if (end < 0) return null;
    const rest = text.slice(end + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return null;
    return text.slice(1, end);
  }
  const match = /^([^:]+)(?::\d{1,5})?$/.exec(text);
  if (match === null) return null;
  // A trailing dot names the same host (`localhost.`).
  return (match[1] as string).replace(/\.$/, "");
}
