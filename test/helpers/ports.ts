/**
 * @module Ports for servers whose address must be known before they start (voters name each other).
 * Taken below the kernel's ephemeral range: a port from `listen(0)` can be handed by the kernel to
 * any other process's outgoing connection or `listen(0)` the moment it is closed (two test files
 * run at once), which one outside that range never is. Each is checked free by binding it, and a
 * process never hands out the same port twice.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

const handedOut = new Set<number>();

/** The ports below the ephemeral range to choose from (Linux's range, or its default). */
function range(): { low: number; high: number } {
  let ephemeralLow = 32768;
  try {
    ephemeralLow = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || ephemeralLow;
  } catch {
    // Not Linux: keep the default.
  }
  const high = Math.max(ephemeralLow - 1, 11_000);
  return { low: Math.max(10_000, high - 20_000), high };
}

function bindable(port: number, host: string): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port on `host` that is free now, outside the ephemeral range, and new to this process. */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const { low, high } = range();
  for (;;) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await bindable(port, host)) return port;
  }
}
