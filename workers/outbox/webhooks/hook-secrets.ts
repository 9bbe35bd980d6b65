/**
 * @module The webhook secrets as the listener holds them: asked of the gateway over
 * `DATA/run/hooks.sock` (the gateway keeps them sealed in settings), kept in memory only, and
 * asked for again when the gateway says one changed and whenever the link to it is made again.
 * The same link tells the gateway where the listener serves (the settings show it).
 */
import type { Logger } from "../../../shared/log.ts";
import type { HookHostNotices, HookHostRequests, HookListenerNotices, HookSource } from "../../../shared/protocol/outbox.ts";
import { SocketLink } from "../../../shared/worker/socket-link.ts";

/** How long after a failed ask the secrets are asked for again. */
const RETRY_MS = 2000;

export class HookSecrets {
  readonly #link: SocketLink<HookHostRequests, HookHostNotices>;
  readonly #log: Logger;
  #secrets: Partial<Record<HookSource, string>> | null = null;
  #loading: Promise<void> | null = null;
  #again = false;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;
  /** What the gateway is told about the listener on every (re)connection. */
  #listener: HookListenerNotices["hook-listener"] = { url: null, error: null };

  constructor(socketPath: string, log: Logger) {
    this.#log = log;
    this.#link = new SocketLink<HookHostRequests, HookHostNotices>(socketPath, {
      onConnect: (channel) => {
        channel.onNotice("hook-secrets-changed", () => void this.refresh());
        channel.notify("hook-listener", this.#listener);
        // A gateway (re)started: the secrets may have changed while it could not say so.
        queueMicrotask(() => void this.refresh());
      },
    });
  }

  /** Starts loading the secrets (the listener may take deliveries before they are loaded: it waits a moment for them). */
  start(): void {
    void this.refresh();
  }

  /** The secret of `source`; undefined: none is set; null: not loaded yet. */
  get(source: HookSource): string | undefined | null {
    return this.#secrets === null ? null : this.#secrets[source];
  }

  /** Resolves once the secrets are loaded, or after `ms` (whichever comes first). */
  async loaded(ms: number): Promise<boolean> {
    if (this.#secrets !== null) return true;
    await Promise.race([this.#loading ?? this.refresh(), new Promise((r) => setTimeout(r, ms).unref())]);
    return this.#secrets !== null;
  }

  /**
   * Asks the gateway for the secrets again: one ask at a time, and one asked for while another is
   * under way is made again after it (that answer may predate the change); a failed one is retried.
   */
  refresh(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#loading !== null) {
      this.#again = true;
      return this.#loading;
    }
    this.#loading = this.#link
      .request("hook-secrets", {})
      .then(
        (secrets) => {
          this.#secrets = secrets;
        },
        (error: unknown) => {
          this.#log.debug("could not load the webhook secrets; trying again", { error: String(error) });
          if (this.#retry === null && !this.#closed) {
            this.#retry = setTimeout(() => {
              this.#retry = null;
              void this.refresh();
            }, RETRY_MS);
            this.#retry.unref();
          }
        },
      )
      .finally(() => {
        this.#loading = null;
        if (this.#again) {
          this.#again = false;
          void this.refresh();
        }
      });
    return this.#loading;
  }

  /** Tells the gateway where the listener serves (or why it does not), now and on each reconnection. */
  announce(state: HookListenerNotices["hook-listener"]): void {
    this.#listener = state;
    void this.#link.channel().then(
      (channel) => {
        channel.notify("hook-listener", state);
        channel.flush();
      },
      () => {},
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    await this.#link.close();
  }
}
