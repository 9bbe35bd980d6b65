/**
 * @module A typed, pipelined, batching request/reply channel between two processes.
 *
 * Either side may send requests (with ids) and notices; any number of requests may be in flight.
 * Outgoing messages written during one turn of the event loop leave as one batch, so a burst of
 * requests costs one write and one parse on each side instead of one per request. When the peer
 * goes away every pending request rejects with `channel_closed`.
 */
import { ChannelError, type NoticeMap, type RequestMap, toChannelError, type WireMessage } from "./messages.ts";
import type { Transport } from "./transport.ts";

type Handler = (body: any) => unknown;

/** One handler for every request type of `In`, each typed by its key: a missing one fails the type check. */
export type Handlers<In extends RequestMap> = { readonly [K in keyof In & string]: (body: In[K]["request"]) => In[K]["response"] | Promise<In[K]["response"]> };

/** One end of a channel. `Out` is what this end asks of the peer; `In` what it answers. */
export class Channel<Out extends RequestMap, In extends RequestMap, OutNotice extends NoticeMap = NoticeMap, InNotice extends NoticeMap = NoticeMap> {
  readonly #transport: Transport;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly #handlers = new Map<string, Handler>();
  readonly #noticeHandlers = new Map<string, (body: any) => void>();
  readonly #closeListeners: (() => void)[] = [];
  #outbox: WireMessage[] = [];
  #flushScheduled = false;
  #nextId = 1;
  #closed = false;
  #errorListener: (error: unknown) => void = (error) => process.emitWarning(`channel: ${error instanceof Error ? error.message : String(error)}`);

  constructor(transport: Transport) {
    this.#transport = transport;
    transport.onBatch((batch) => {
      for (const message of batch) this.#receive(message);
    });
    transport.onClose(() => this.#shutdown());
  }

  /** Whether the peer has gone away. */
  get closed(): boolean {
    return this.#closed;
  }

  /** How many requests await a reply. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /** Asks the peer; resolves with its value or rejects with a ChannelError carrying its code. */
  request<K extends keyof Out & string>(type: K, body: Out[K]["request"]): Promise<Out[K]["response"]> {
    if (this.#closed) return Promise.reject(new ChannelError("channel_closed", `channel closed before '${type}' was sent`));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#enqueue({ k: "q", id, type, body });
    });
  }

  /** Sends a one-way notice. */
  notify<K extends keyof OutNotice & string>(type: K, body: OutNotice[K]): void {
    if (!this.#closed) this.#enqueue({ k: "n", type, body });
  }

  /** Answers requests of `type`; the handler's value (or thrown error) is the reply. */
  handle<K extends keyof In & string>(type: K, handler: (body: In[K]["request"]) => In[K]["response"] | Promise<In[K]["response"]>): this {
    this.#handlers.set(type, handler);
    return this;
  }

  /** Answers every request type of `In` at once (see `Handlers`). */
  handleAll(handlers: Handlers<In>): this {
    for (const type of Object.keys(handlers)) this.#handlers.set(type, handlers[type as keyof Handlers<In>] as Handler);
    return this;
  }

  /** Listens for notices of `type`. */
  onNotice<K extends keyof InNotice & string>(type: K, listener: (body: InNotice[K]) => void): this {
    this.#noticeHandlers.set(type, listener);
    return this;
  }

  /** Called once when the peer goes away. */
  onClose(listener: () => void): this {
    this.#closeListeners.push(listener);
    return this;
  }

  /** Sends what is queued now rather than at the end of this turn. */
  flush(): void {
    this.#flushScheduled = false;
    if (this.#outbox.length === 0 || this.#closed) return;
    const batch = this.#outbox;
    this.#outbox = [];
    try {
      this.#transport.send(batch);
    } catch {
      // Some message cannot be encoded (a value nested too deep for JSON.stringify, a BigInt, …):
      // send the others, and answer for the ones that cannot go, so one request never takes the
      // channel, or the worker, down with it.
      this.#sendEach(batch);
    }
  }

  /** Sends `batch` message by message, replacing each one that cannot be encoded. */
  #sendEach(batch: readonly WireMessage[]): void {
    const good: WireMessage[] = [];
    for (const message of batch) {
      try {
        JSON.stringify(message);
        good.push(message);
      } catch (error) {
        const reason = `a '${message.k === "r" ? "reply" : message.type}' message could not be encoded: ${error instanceof Error ? error.message : String(error)}`;
        if (message.k === "r") {
          // The peer still gets an answer for its request.
          good.push({ k: "r", id: message.id, ok: false, error: { name: "ChannelError", code: "unencodable", message: reason } });
        } else if (message.k === "q") {
          const waiter = this.#pending.get(message.id);
          this.#pending.delete(message.id);
          waiter?.reject(new ChannelError("unencodable", reason));
        } else {
          this.#reportError(new ChannelError("unencodable", reason));
        }
      }
    }
    if (good.length > 0) this.#transport.send(good);
  }

  /** Called with what a notice handler threw, or a notice that could not be sent (the channel goes on). */
  onError(listener: (error: unknown) => void): this {
    this.#errorListener = listener;
    return this;
  }

  #reportError(error: unknown): void {
    try {
      this.#errorListener(error);
    } catch {
      // A failing error listener must not take the channel down either.
    }
  }

  /** Flushes, then closes the transport; pending requests reject. */
  close(): void {
    this.flush();
    this.#transport.close();
    this.#shutdown();
  }

  #enqueue(message: WireMessage): void {
    this.#outbox.push(message);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  #receive(message: WireMessage): void {
    if (message.k === "r") {
      const waiter = this.#pending.get(message.id);
      if (waiter === undefined) return;
      this.#pending.delete(message.id);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new ChannelError(message.error.code, message.error.message, message.error.name));
      return;
    }
    if (message.k === "n") {
      try {
        this.#noticeHandlers.get(message.type)?.(message.body);
      } catch (error) {
        this.#reportError(error);
      }
      return;
    }
    const handler = this.#handlers.get(message.type);
    if (handler === undefined) {
      this.#enqueue({ k: "r", id: message.id, ok: false, error: { name: "ChannelError", code: "unknown_request", message: `no handler for '${message.type}'` } });
      return;
    }
    const reply = (value: unknown) => this.#enqueue({ k: "r", id: message.id, ok: true, value: value ?? null });
    const fail = (error: unknown) => this.#enqueue({ k: "r", id: message.id, ok: false, error: toChannelError(error) });
    try {
      const result = handler(message.body);
      if (result instanceof Promise) result.then(reply, fail);
      else reply(result);
    } catch (error) {
      fail(error);
    }
  }

  #shutdown(): void {
    if (this.#closed) return;
    this.#closed = true;
    const error = new ChannelError("channel_closed", "the peer process went away");
    for (const waiter of this.#pending.values()) waiter.reject(error);
    this.#pending.clear();
    for (const listener of this.#closeListeners) listener();
  }
}
