/**
 * @module The gateway's side of the webhook listener's channel (`DATA/run/hooks.sock`,
 * shared/protocol/outbox.ts `HookHostRequests`): it answers the secrets the listener verifies
 * deliveries with (opened from settings here; they travel only this channel, mode 0600), tells the
 * listener when one changed, and hears where the listener serves.
 */
import type { Server } from "node:net";
import type { Channel } from "../../../../shared/channel/channel.ts";
import { listenPrivateChannels } from "../../../../shared/channel/socket.ts";
import type { Logger } from "../../../../shared/log.ts";
import type { HookHostNotices, HookHostRequests, HookListenerNotices, HookSource } from "../../../../shared/protocol/outbox.ts";

type HostChannel = Channel<HookHostNotices & Record<string, never>, HookHostRequests, HookHostNotices, HookListenerNotices>;

/** Where the listener serves, as it last said (null before it said anything). */
export type ListenerState = HookListenerNotices["hook-listener"];

export class HookHost {
  readonly #secrets: () => Partial<Record<HookSource, string>>;
  readonly #log: Logger;
  readonly #channels = new Set<HostChannel>();
  #server: Server | null = null;
  #listener: ListenerState | null = null;

  constructor(options: { secrets: () => Partial<Record<HookSource, string>>; log: Logger }) {
    this.#secrets = options.secrets;
    this.#log = options.log;
  }

  /** Listens for the listener on `path` (mode 0600: only this user's processes may ask for the secrets). */
  async listen(path: string): Promise<void> {
    this.#server = await listenPrivateChannels<HookHostNotices & Record<string, never>, HookHostRequests>(path, (channel) => this.accept(channel as unknown as HostChannel));
  }

  /** Serves one connection of the listener (a host of another socket may hand its connections here). */
  accept(channel: HostChannel): void {
    this.#channels.add(channel);
    channel.onClose(() => this.#channels.delete(channel));
    channel.onNotice("hook-listener", (state) => {
      this.#listener = { url: typeof state?.url === "string" ? state.url : null, error: typeof state?.error === "string" ? state.error.slice(0, 500) : null };
    });
    channel.handle("hook-secrets", () => {
      try {
        return this.#secrets();
      } catch (error) {
        // A secret that no longer opens verifies nothing: its source answers 503 until it is set again.
        this.#log.error("the webhook secrets could not be opened", { error: String(error) });
        return {};
      }
    });
  }

  /** Where the listener serves, as it last said; null while no listener is connected. */
  listener(): ListenerState | null {
    return this.#channels.size === 0 ? null : this.#listener;
  }

  /** Tells the listener the secrets changed. */
  secretsChanged(): void {
    for (const channel of this.#channels) {
      channel.notify("hook-secrets-changed", {});
      channel.flush();
    }
  }

  close(): void {
    for (const channel of this.#channels) channel.close();
    this.#channels.clear();
    this.#server?.close();
  }
}
