/**
 * @module The body of an AG-UI run's answer: its events encoded by `@ag-ui/encoder` (server-sent
 * events) into a stream the HTTP server reads as the client takes them. Events are produced as
 * the turn goes, whatever the client's pace, so what waits for a slow client is bounded: past
 * `maxBehind` bytes the stream is broken off (as `/api/events` closes a client that falls 1 MiB
 * behind) and the run stops following its turn. A client that goes away ends it the same way.
 */
import type { BaseEvent } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";

/** How far (bytes) a client may fall behind the run's events by default. */
export const MAX_BEHIND = 1024 * 1024;

export class EventStream {
  readonly readable: ReadableStream<Uint8Array>;
  readonly #encoder = new EventEncoder();
  readonly #gone: (() => void)[] = [];
  readonly #ended: (() => void)[] = [];
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  #closed = false;

  constructor(maxBehind = MAX_BEHIND) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        cancel: () => this.#stop(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: maxBehind }),
    );
  }

  /** The answer's content type. */
  get contentType(): string {
    return this.#encoder.getContentType();
  }

  /** Whether the stream has ended (closed by the run, or the client gone or too far behind). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Calls `listener` once the client goes away or falls too far behind (at once if the stream has ended already). */
  onGone(listener: () => void): void {
    if (this.#closed) listener();
    else this.#gone.push(listener);
  }

  /** Calls `listener` once the stream ends, however it ends. */
  onEnd(listener: () => void): void {
    if (this.#closed) listener();
    else this.#ended.push(listener);
  }

  /** Sends `event`; nothing once the stream has ended. */
  emit(event: BaseEvent): void {
    const controller = this.#controller;
    if (this.#closed || controller === null) return;
    controller.enqueue(this.#encoder.encodeBinary(event));
    if (controller.desiredSize !== null && controller.desiredSize < 0) {
      controller.error(new Error("the client fell too far behind the run's events"));
      this.#stop();
    }
  }

  /** Ends the stream once the client has read what was sent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#controller?.close();
    this.#end();
  }

  #stop(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const listener of this.#gone.splice(0)) listener();
    this.#end();
  }

  #end(): void {
    this.#gone.length = 0;
    for (const listener of this.#ended.splice(0)) listener();
  }
}
