/**
 * @module What the node's workers may reach on the network: the union of the hosts each source of
 * configuration declares (connectors' accounts, model connections, tool servers), written to
 * `DATA/run/egress.json` for the egress guard every worker installs (shared/worker/egress.ts). A
 * source declares all its hosts at once, replacing what it declared before, so removing a
 * connection takes its host out again. The file is replaced atomically (write, rename): a worker
 * never reads half of it.
 */
import { renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeDirsSync } from "../../../../shared/make-dirs.ts";
import type { Logger } from "../../../../shared/log.ts";
import { parseDeclaration } from "../../../../shared/worker/egress.ts";

/** At most this many hosts per source (a bound on the file, not a limit anyone meets). */
const MAX_HOSTS_PER_SOURCE = 1024;

export class EgressList {
  readonly #file: string;
  readonly #log: Logger | null;
  readonly #sources = new Map<string, readonly string[]>();

  constructor(file: string, log: Logger | null = null) {
    this.#file = file;
    this.#log = log;
    makeDirsSync(dirname(file));
    this.#write();
  }

  /** Replaces what `source` declares with `hosts` (`host` or `host:port`); malformed entries are skipped and logged. */
  declare(source: string, hosts: readonly string[]): void {
    const kept: string[] = [];
    for (const host of hosts.slice(0, MAX_HOSTS_PER_SOURCE)) {
      if (parseDeclaration(host) === null) this.#log?.warn("egress: a declared host is malformed, skipped", { source, host: host.slice(0, 100) });
      else kept.push(host.trim());
    }
    const before = this.#sources.get(source) ?? [];
    if (before.length === kept.length && before.every((h, i) => h === kept[i])) return;
    if (kept.length === 0) this.#sources.delete(source);
    else this.#sources.set(source, kept);
    this.#write();
  }

  /** Every declared host, once each, sorted, with the sources that declare it. */
  list(): { host: string; sources: string[] }[] {
    const by = new Map<string, string[]>();
    for (const [source, hosts] of this.#sources) for (const host of hosts) by.set(host, [...(by.get(host) ?? []), source]);
    return [...by].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([host, sources]) => ({ host, sources }));
  }

  #write(): void {
    const hosts = this.list().map((h) => h.host);
    const temp = join(dirname(this.#file), `.egress.${process.pid}.tmp`);
    writeFileSync(temp, `${JSON.stringify({ hosts })}\n`, { mode: 0o600 });
    renameSync(temp, this.#file);
  }
}

/** The host (with its port when the URL names one) a URL reaches; null when it is not http(s). */
export function hostOfUrl(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    return u.port === "" ? u.hostname : `${u.hostname}:${u.port}`;
  } catch {
    return null;
  }
}
