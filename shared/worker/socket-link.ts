/**
 * @module A worker's connection to a channel socket that survives its server's restarts: requests
 * made while the server is down wait for the next connection (up to a limit); requests in flight
 * when it died reject with `channel_closed`, as the channel promises. The engine link and the admin
 * link are instances of it.
 */
import type { Channel } from "../channel/channel.ts";
import { ChannelError, type NoticeMap, type RequestMap } from "../channel/messages.ts";
import { connectChannel } from "../channel/socket.ts";

type LinkChannel<Out extends RequestMap, In extends NoticeMap> = Channel<Out, Record<string, never>, NoticeMap, In>;

export class SocketLink<Out extends RequestMap, InNotice extends NoticeMap = NoticeMap> {
  readonly #path: string;
  readonly #onConnect: ((channel: LinkChannel<Out, InNotice>) => void) | null;
  #current: Promise<LinkChannel<Out, InNotice>> | null = null;
  #closed = false;

  /** `onConnect` sees each new connection first (to listen for the server's notices). */
  constructor(socketPath: string, options: { onConnect?: (channel: LinkChannel<Out, InNotice>) => void } = {}) {
    this.#path = socketPath;
    this.#onConnect = options.onConnect ?? null;
  }

  /** The live channel, connecting (and waiting for the server to come back) when needed. */
  channel(): Promise<LinkChannel<Out, InNotice>> {
    if (this.#closed) return Promise.reject(new ChannelError("channel_closed", `the link to ${this.#path} is closed`));
    if (this.#current === null) {
      const connecting = connectChannel<Out, Record<string, never>, NoticeMap, InNotice>(this.#path, { retryForMs: 15_000 }).then((channel) => {
        this.#onConnect?.(channel);
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
  async request<K extends keyof Out & string>(type: K, body: Out[K]["request"]): Promise<Out[K]["response"]> {
    const channel = await this.channel();
    return channel.request(type, body);
  }

  /**
   * Closes the link. A connection still being made (its server down, retrying) is not waited for:
   * it is closed when it connects, so closing never waits on a server that may not come back.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const current = this.#current;
    this.#current = null;
    current?.then(
      (channel) => channel.close(),
      () => {},
    );
  }
}
