/**
 * @module The node's own contracts (contracts/std/node: `std.tasks`, `std.memory`, …) in the
 * personal tenant: installed through the engine's admin channel like any install, by the person,
 * once set-up has made the tenant, and again at every start for a node set up before a contract
 * joined the set. A namespace the tenant has already (whatever its version: an upgrade the person
 * made is theirs to keep) is left alone.
 */
import { standardLibrary } from "../../../../contracts/std/library.ts";
import type { Logger } from "../../../../shared/log.ts";
import type { AdminRequests } from "../../../../shared/protocol/admin.ts";
import type { SocketLink } from "../../../../shared/worker/socket-link.ts";

type Admin = Pick<SocketLink<AdminRequests>, "request">;

/** Installs every personal standard contract `tenant` lacks; answers the namespaces installed now. Throws when the engine refuses or does not answer. */
export async function installPersonalLibrary(admin: Admin, tenant: string, by: string): Promise<string[]> {
  const listed = await admin.request("contracts-list", { tenant });
  if (!listed.ok) throw new Error(`listing the contracts of '${tenant}' failed: ${listed.error.message}`);
  const have = new Set(listed.value.map((row) => row.namespace));
  const installed: string[] = [];
  for (const a of standardLibrary()) {
    if (!a.personal || have.has(a.namespace)) continue;
    const artifact = { id: a.id, schemaJson: a.schemaJson, wasm: Buffer.from(a.wasm).toString("base64"), source: a.source };
    const r = await admin.request("install", { tenant, artifact, by });
    if (!r.ok) throw new Error(`installing ${a.namespace} in '${tenant}' failed: ${r.error.message}`);
    installed.push(a.namespace);
  }
  return installed;
}

/** Keeps the personal library installed: `ensure()` after set-up and at start, retried until it has worked once. */
export class PersonalLibrary {
  readonly #admin: Admin;
  readonly #person: () => { did: string; tenant: string } | null;
  readonly #log: Logger;
  readonly #retryMs: number;
  readonly #onReady: (() => Promise<unknown>) | undefined;
  #done = false;
  #running: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;

  /** `onReady` runs once the contracts are in place (what the node resumes at start); when it throws, both are tried again later. */
  constructor(options: { admin: Admin; person: () => { did: string; tenant: string } | null; log: Logger; retryMs?: number; onReady?: () => Promise<unknown> }) {
    this.#onReady = options.onReady;
    this.#admin = options.admin;
    this.#person = options.person;
    this.#log = options.log;
    this.#retryMs = options.retryMs ?? 5000;
  }

  /** Installs what is missing (once per start); a failure is logged and tried again later. */
  ensure(): Promise<void> {
    if (this.#done) return Promise.resolve();
    this.#running ??= this.#run().finally(() => (this.#running = null));
    return this.#running;
  }

  close(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#done = true;
  }

  async #run(): Promise<void> {
    const person = this.#person();
    if (person === null) return;
    try {
      const installed = await installPersonalLibrary(this.#admin, person.tenant, person.did);
      if (installed.length > 0) this.#log.info("installed the node's contracts in the personal tenant", { tenant: person.tenant, namespaces: installed });
      await this.#onReady?.();
      this.#done = true;
    } catch (error) {
      this.#log.warn("the node's contracts, or what it resumes at start, are not done yet; trying again", { error: (error as Error).message });
      this.#timer ??= setTimeout(() => {
        this.#timer = null;
        void this.ensure();
      }, this.#retryMs);
      this.#timer.unref();
    }
  }
}
