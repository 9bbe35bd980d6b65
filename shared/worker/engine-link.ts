/**
 * @module A worker's connection to the engine that survives the engine's restarts: requests made
 * while the engine is down wait for the next connection (up to a limit); requests in flight when it
 * died reject with `channel_closed`, as the channel promises.
 */
import type { Channel } from "../channel/channel.ts";
import { ChannelError } from "../channel/messages.ts";
import { connectChannel } from "../channel/socket.ts";
import type { EngineRequests } from "../protocol/engine.ts";

type EngineChannel = Channel<EngineRequests, Record<string, never>>;

export class EngineLink {
  readonly #path: string;
  #current: Promise<EngineChannel> | null = null;
  #closed = false;

  constructor(socketPath: string) {
    this.#path = socketPath;
  }

  /** The live channel, connecting (and waiting for the engine to come back) when needed. */
  channel(): Promise<EngineChannel> {
    if (this.#closed) return Promise.reject(new ChannelError("channel_closed", "the engine link is closed"));
    if (this.#current === null) {
      const connecting = connectChannel<EngineRequests, Record<string, never>>(this.#path, { retryForMs: 15_000 }).then((channel) => {
        channel.onClose(() => {
          if (this.#current === connecting) this.#current = null;
        });
        return channel;
      });
      connecting.catch(() => {
        if (this.#current === connecting) this.#current = null;
      });
      this.#current = connecting;
    }
    return this.#current;
  }

  /** Sends one request on the live channel. */
  async request<K extends keyof EngineRequests & string>(type: K, body: EngineRequests[K]["request"]): Promise<EngineRequests[K]["response"]> {
    const channel = await this.channel();
    return channel.request(type, body);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const current = this.#current;
    this.#current = null;
    if (current !== null) (await current.catch(() => null))?.close();
  }
}
