/**
 * @module Accepting peers: the listening port and the inbound links the other voters dialled. An
 * inbound link carries what its voter sends this one — messages, handed to `onMessage`, and
 * requests, handed to `onRequest` and answered on the same link — and pongs its pings.
 *
 * Limits, because anyone who can reach the port can connect: at most `maxPendingHandshakes`
 * connections are authenticating at once (more are closed on arrival), each must finish the
 * handshake within `handshakeTimeoutMs` under the handshake frame limit (peer-link.ts), only a
 * configured voter gets in, and each voter has one inbound link (a newer one replaces it).
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import type { PeerRecord } from "./peer-frames.ts";
import { type HandshakeFresh, type HandshakeSelf, type KnownPeer, listenerHandshake } from "./peer-handshake.ts";
import { type LinkEnd, PeerLink } from "./peer-link.ts";
import { describeError, type PeerLog, type PeerWarnings } from "./peer-log.ts";

export interface PeerAcceptorOptions {
  readonly me: HandshakeSelf;
  /** The configured voters by did: the only ones let in. */
  readonly peers: ReadonlyMap<string, KnownPeer>;
  /** The largest record an authenticated voter may send. */
  readonly maxRecordBytes: number;
  readonly handshakeTimeoutMs: number;
  readonly maxPendingHandshakes: number;
  /** The randomness for each handshake. */
  readonly fresh: () => HandshakeFresh;
  readonly log: PeerLog;
  readonly warnings: PeerWarnings;
  /** A voter's message; `from` is its id. */
  readonly onMessage: (from: string, body: unknown, attachment: Uint8Array | null) => void;
  /** A voter's request; the value (or the thrown error's message) goes back to it. */
  readonly onRequest: (from: string, body: unknown) => Promise<unknown>;
  /** A frame arrived from voter `peer` (or its link opened) at `at`. */
  readonly onContact: (peer: string, at: number) => void;
  readonly now?: () => number;
}

/** The port and the inbound links. */
export class PeerAcceptor {
  readonly #o: PeerAcceptorOptions;
  readonly #now: () => number;
  readonly #server: Server;
  /** Every inbound connection, those still authenticating, and each voter's current link by did. */
  readonly #links = new Set<PeerLink>();
  readonly #authenticating = new Set<PeerLink>();
  readonly #current = new Map<string, PeerLink>();
  #closed = false;

  /** Listens on `host:port` (port 0 picks a free one); resolves once the port is bound. */
  static async listen(host: string, port: number, options: PeerAcceptorOptions): Promise<PeerAcceptor> {
    const acceptor = new PeerAcceptor(options);
    const server = acceptor.#server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.on("error", (error) => options.log.warn("peer transport server error", { error: error.message }));
    return acceptor;
  }

  private constructor(options: PeerAcceptorOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#server = createServer({ noDelay: true, keepAlive: true, keepAliveInitialDelay: 5_000 }, (socket) => this.#accept(socket));
  }

  /** The bound port. */
  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** Closes every inbound link and the port; resolves once all have closed. */
  async close(): Promise<void> {
    this.#closed = true;
    const links = [...this.#links];
    this.#links.clear();
    this.#authenticating.clear();
    this.#current.clear();
    await Promise.all(links.map((link) => closeLink(link)));
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(socket: Socket): void {
    const remote = `${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}`;
    if (this.#closed) return void socket.destroy();
    const { maxPendingHandshakes: cap } = this.#o;
    if (this.#authenticating.size >= cap) {
      this.#o.warnings.warn("pending-cap", `refused a peer connection: ${cap} connections are already authenticating`, { remote });
      return void socket.destroy();
    }
    const link = new PeerLink({
      socket, handshake: listenerHandshake(this.#o.me, this.#o.peers, this.#o.fresh()), hello: null,
      maxRecordBytes: this.#o.maxRecordBytes, handshakeTimeoutMs: this.#o.handshakeTimeoutMs,
      onOpen: (l, peer) => this.#onOpen(l, peer),
      onRecord: (l, record) => this.#onRecord(l, record),
      onEnd: (l, end) => this.#onEnd(l, end, remote),
    });
    this.#links.add(link);
    this.#authenticating.add(link);
  }

  #onOpen(link: PeerLink, peer: KnownPeer): void {
    this.#authenticating.delete(link);
    this.#o.onContact(peer.id, this.#now());
    const previous = this.#current.get(peer.did);
    this.#current.set(peer.did, link);
    previous?.close("replaced by a newer link");
    this.#o.log.info("peer dialed in", { peer: peer.id, did: peer.did, remote: `${link.socket.remoteAddress ?? "?"}:${link.socket.remotePort ?? "?"}` });
  }

  #onRecord(link: PeerLink, record: PeerRecord): void {
    const peer = link.peer as KnownPeer;
    this.#o.onContact(peer.id, this.#now());
    try {
      switch (record.type) {
        case "message":
          return this.#deliver(peer.id, JSON.parse(record.json), record.attachment);
        case "request":
          return this.#answer(link, peer.id, record.id, JSON.parse(record.json));
        case "ping":
          return link.send({ type: "pong" });
        case "reply":
        case "failure":
        case "pong":
          return this.#protocolError(link, peer, `an unexpected ${record.type} on an inbound link`);
        default: {
          const never: never = record;
          throw new Error(`unknown record ${JSON.stringify(never)}`);
        }
      }
    } catch (error) {
      this.#protocolError(link, peer, `an unreadable record (${describeError(error)})`);
    }
  }

  #onEnd(link: PeerLink, end: LinkEnd, remote: string): void {
    this.#links.delete(link);
    this.#authenticating.delete(link);
    const peer = link.peer;
    if (peer !== null && this.#current.get(peer.did) === link) this.#current.delete(peer.did);
    if (end.kind === "refused" && !end.byPeer) this.#o.warnings.warn(`in:${end.did ?? remote}`, `refused a peer connection: ${end.reason}`, { did: end.did, remote });
    if (end.kind === "protocol" && peer !== null) this.#o.warnings.protocolError(peer, end.reason);
  }

  #deliver(from: string, body: unknown, attachment: Uint8Array | null): void {
    try {
      this.#o.onMessage(from, body, attachment);
    } catch (error) {
      this.#o.log.warn("a peer message handler threw", { peer: from, error: describeError(error) });
    }
  }

  /** Runs the request handler and sends its value, or its error's message, back on `link`. */
  #answer(link: PeerLink, from: string, id: number, body: unknown): void {
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(this.#o.onRequest(from, body));
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(
      (value) => {
        let json: string;
        try {
          json = JSON.stringify(value) ?? "null";
        } catch (error) {
          return link.send({ type: "failure", id, json: JSON.stringify(`the answer could not be serialised: ${describeError(error)}`) });
        }
        link.send({ type: "reply", id, json });
      },
      (error: unknown) => link.send({ type: "failure", id, json: JSON.stringify(describeError(error)) }),
    );
  }

  #protocolError(link: PeerLink, peer: KnownPeer, what: string): void {
    this.#o.warnings.protocolError(peer, what);
    link.close(`protocol error: ${what}`);
  }
}

/** Closes a link's socket and resolves once it has closed. */
function closeLink(link: PeerLink): Promise<void> {
  if (link.socket.closed) return Promise.resolve();
  return new Promise((resolve) => {
    link.socket.once("close", () => resolve());
    link.close("the peer transport is closed");
  });
}
