/**
 * @module A TCP proxy for fault injection between two processes: it forwards every connection to
 * one target until told to `block()`, then stops traffic in both directions.
 *
 * - `"blackhole"` (the default, what a real partition looks like): nothing is forwarded and nothing
 *   is closed. Open connections are paused, so their bytes wait in the kernel's buffers and the
 *   sender sees only silence; new connections are accepted but go nowhere. `heal()` lets them flow
 *   again (like TCP retransmitting once the network is back) and dials the target for the
 *   connections that arrived meanwhile. Whichever end gave up in between sees its close pass on.
 * - `"reset"`: every open connection is destroyed at once and new ones are dropped as they arrive,
 *   the way a refusing firewall or a crashed middlebox behaves.
 */
import { createServer, type Server, type Socket, connect } from "node:net";
import type { AddressInfo } from "node:net";

export type BlockMode = "blackhole" | "reset";

interface Pair {
  readonly client: Socket;
  upstream: Socket | null;
}

export class ChaosProxy {
  readonly #server: Server;
  readonly #target: { host: string; port: number };
  readonly #pairs = new Set<Pair>();
  #blocked: BlockMode | null = null;
  #port = 0;
  /** Connections accepted since start. */
  accepted = 0;

  private constructor(server: Server, target: { host: string; port: number }) {
    this.#server = server;
    this.#target = target;
  }

  /** Listens on 127.0.0.1 (`port` 0 picks a free one) and forwards to `target`. */
  static async start(target: { host: string; port: number }, port = 0): Promise<ChaosProxy> {
    const server = createServer({ noDelay: true, pauseOnConnect: true });
    const proxy = new ChaosProxy(server, target);
    server.on("connection", (socket) => proxy.#accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    proxy.#port = (server.address() as AddressInfo).port;
    return proxy;
  }

  get port(): number {
    return this.#port;
  }

  get blocked(): BlockMode | null {
    return this.#blocked;
  }

  /** Stops all traffic through this proxy (see the module comment for the two modes). */
  block(mode: BlockMode = "blackhole"): void {
    this.#blocked = mode;
    for (const pair of this.#pairs) {
      if (mode === "reset") this.#destroy(pair);
      else this.#hold(pair);
    }
  }

  /** Lets traffic through again: paused connections resume, held ones are connected. */
  heal(): void {
    if (this.#blocked === null) return;
    this.#blocked = null;
    for (const pair of [...this.#pairs]) {
      if (pair.upstream === null) this.#dial(pair);
      else this.#flow(pair);
      this.#finish(pair);
    }
  }

  /** Destroys every connection and stops listening. */
  async close(): Promise<void> {
    for (const pair of this.#pairs) this.#destroy(pair);
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: Socket): void {
    this.accepted++;
    client.setNoDelay(true);
    if (this.#blocked === "reset") {
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = { client, upstream: null };
    this.#pairs.add(pair);
    client.on("error", () => this.#destroy(pair));
    client.on("close", () => this.#finish(pair));
    // Held (paused, unconnected) while black-holed; dialled once healed.
    if (this.#blocked === null) this.#dial(pair);
  }

  #dial(pair: Pair): void {
    const upstream = connect({ host: this.#target.host, port: this.#target.port, noDelay: true });
    pair.upstream = upstream;
    upstream.on("error", () => this.#destroy(pair));
    upstream.on("close", () => this.#finish(pair));
    if (this.#blocked === null) this.#flow(pair);
    else this.#hold(pair);
  }

  /** Forwards both ways (pipe also passes an end on to the other side). */
  #flow(pair: Pair): void {
    const { client, upstream } = pair;
    if (upstream === null) return;
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Forwards nothing: unpiped and paused, so bytes wait in the kernel and nothing is read. */
  #hold(pair: Pair): void {
    const { client, upstream } = pair;
    client.unpipe();
    client.pause();
    if (upstream !== null) {
      upstream.unpipe();
      upstream.pause();
    }
  }

  /** One side closed: close the other once traffic flows (a partition hides the close until it heals). */
  #finish(pair: Pair): void {
    const clientGone = pair.client.destroyed;
    const upstreamGone = pair.upstream?.destroyed ?? false;
    if (!clientGone && !upstreamGone) return;
    if (clientGone && (pair.upstream === null || upstreamGone)) {
      this.#pairs.delete(pair);
      return;
    }
    if (this.#blocked !== null) return;
    if (!clientGone) pair.client.end();
    if (pair.upstream !== null && !upstreamGone) pair.upstream.end();
    if (pair.upstream === null) this.#pairs.delete(pair);
  }

  #destroy(pair: Pair): void {
    this.#pairs.delete(pair);
    pair.client.destroy();
    pair.upstream?.destroy();
  }
}
