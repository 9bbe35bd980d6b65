/**
 * @module Live co-editing of a note: a WebSocket to the node's `/api/collab/{note}` speaking the
 * Yjs sync and awareness protocols, and the note's `Y.Text` (named `text`) kept in step with a
 * plain textarea. Each connection starts a fresh Yjs document: the node loads the shared document
 * from the vault when the first device joins, so a document kept from an earlier connection would
 * merge in twice. Until the first sync the text is not editable (what was typed would be merged
 * with the note's text as a separate insert); when the socket drops it is not editable again until
 * the next connection has synced. Edits are sent as they are made; the node saves the merged text.
 */
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import { socketUrl } from "../lib/api.ts";

const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;
/** The close code the node uses when the session ended. */
const SESSION_ENDED = 4001;

export type LivePhase = "connecting" | "live" | "offline" | "ended";

export interface LiveState {
  readonly phase: LivePhase;
  /** How many devices have the note open (this one included), as the awareness protocol tells. */
  readonly devices: number;
  /** Why the connection closed, when the node said. */
  readonly reason: string | null;
}

/** One change of the text a remote edit made: a Yjs delta. */
type Delta = readonly { insert?: unknown; delete?: number; retain?: number }[];

export interface LiveNoteEvents {
  /** The whole text after the first sync of a connection. */
  readonly synced: (text: string) => void;
  /** The text after an edit another device made, with the delta that made it. */
  readonly remote: (text: string, delta: Delta) => void;
  readonly state: (state: LiveState) => void;
}

/** The shared text of one note, over `socket` (the `/api/collab/{id}` path the node answered). */
export class LiveNote {
  readonly #url: string;
  readonly #on: LiveNoteEvents;
  #doc: Y.Doc | null = null;
  #awareness: awarenessProtocol.Awareness | null = null;
  #ws: WebSocket | null = null;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #retryMs = 500;
  #stopped = false;
  #state: LiveState = { phase: "connecting", devices: 0, reason: null };

  constructor(socket: string, on: LiveNoteEvents) {
    this.#url = socketUrl(socket);
    this.#on = on;
    this.#connect();
  }

  get editable(): boolean {
    return this.#state.phase === "live";
  }

  /** The text now typed in the editor: the difference from the shared text is applied as one edit. */
  edit(value: string): void {
    const doc = this.#doc;
    if (doc === null || !this.editable) return;
    const text = doc.getText("text");
    const before = text.toString();
    if (before === value) return;
    let start = 0;
    const shortest = Math.min(before.length, value.length);
    while (start < shortest && before.charCodeAt(start) === value.charCodeAt(start)) start++;
    let end = 0;
    while (end < shortest - start && before.charCodeAt(before.length - 1 - end) === value.charCodeAt(value.length - 1 - end)) end++;
    doc.transact(() => {
      const removed = before.length - start - end;
      if (removed > 0) text.delete(start, removed);
      const inserted = value.slice(start, value.length - end);
      if (inserted !== "") text.insert(start, inserted);
    }, this);
  }

  /** Closes the socket for good. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#retry);
    this.#teardown();
  }

  #set(state: Partial<LiveState>): void {
    this.#state = { ...this.#state, ...state };
    this.#on.state(this.#state);
  }

  #teardown(): void {
    // The awareness first: its last message tells the other devices this one left.
    this.#awareness?.destroy();
    this.#awareness = null;
    const ws = this.#ws;
    this.#ws = null;
    if (ws !== null && ws.readyState <= WebSocket.OPEN) ws.close(1000);
    this.#doc?.destroy();
    this.#doc = null;
  }

  #connect(): void {
    if (this.#stopped) return;
    const doc = new Y.Doc();
    const awareness = new awarenessProtocol.Awareness(doc);
    const ws = new WebSocket(this.#url);
    ws.binaryType = "arraybuffer";
    this.#doc = doc;
    this.#awareness = awareness;
    this.#ws = ws;
    this.#set({ phase: "connecting", reason: null });
    const send = (write: (encoder: encoding.Encoder) => void) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      const encoder = encoding.createEncoder();
      write(encoder);
      ws.send(encoding.toUint8Array(encoder));
    };
    const remote = {};
    doc.on("update", (update: Uint8Array, origin: unknown) => {
      if (origin !== remote)
        send((e) => {
          encoding.writeVarUint(e, MESSAGE_SYNC);
          syncProtocol.writeUpdate(e, update);
        });
    });
    awareness.on("update", ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
      if (this.#ws === ws) this.#set({ devices: awareness.getStates().size });
      if (origin === remote) return;
      send((e) => {
        encoding.writeVarUint(e, MESSAGE_AWARENESS);
        encoding.writeVarUint8Array(e, awarenessProtocol.encodeAwarenessUpdate(awareness, [...added, ...updated, ...removed]));
      });
    });
    doc.getText("text").observe((event, transaction) => {
      if (transaction.origin === remote && this.#state.phase === "live") this.#on.remote(doc.getText("text").toString(), event.delta as Delta);
    });
    ws.addEventListener("open", () => {
      send((e) => {
        encoding.writeVarUint(e, MESSAGE_SYNC);
        syncProtocol.writeSyncStep1(e, doc);
      });
      awareness.setLocalState({ device: navigator.userAgent.slice(0, 80) });
    });
    ws.addEventListener("message", (message: MessageEvent) => {
      if (this.#ws !== ws) return;
      const decoder = decoding.createDecoder(new Uint8Array(message.data as ArrayBuffer));
      const type = decoding.readVarUint(decoder);
      if (type === MESSAGE_SYNC) {
        const encoder = encoding.createEncoder();
        encoding.writeVarUint(encoder, MESSAGE_SYNC);
        const kind = syncProtocol.readSyncMessage(decoder, encoder, doc, remote);
        if (encoding.length(encoder) > 1) ws.send(encoding.toUint8Array(encoder));
        if (kind === syncProtocol.messageYjsSyncStep2 && this.#state.phase !== "live") {
          this.#retryMs = 500;
          this.#set({ phase: "live", reason: null, devices: awareness.getStates().size });
          this.#on.synced(doc.getText("text").toString());
        }
      } else if (type === MESSAGE_AWARENESS) {
        awarenessProtocol.applyAwarenessUpdate(awareness, decoding.readVarUint8Array(decoder), remote);
      }
    });
    ws.addEventListener("close", (closed: CloseEvent) => {
      if (this.#ws !== ws) return;
      this.#teardown();
      if (this.#stopped) return;
      if (closed.code === SESSION_ENDED) {
        this.#set({ phase: "ended", devices: 0, reason: "the session ended: sign in again" });
        return;
      }
      this.#set({ phase: "offline", devices: 0, reason: closed.reason === "" ? null : closed.reason });
      this.#retry = setTimeout(() => this.#connect(), this.#retryMs);
      this.#retryMs = Math.min(this.#retryMs * 2, 10_000);
    });
  }
}

/** Where the positions `start`, `end` (a selection) move to when `delta` is applied to the text. */
export function mapSelection(delta: Delta, start: number, end: number): [number, number] {
  let at = 0;
  let s = start;
  let e = end;
  for (const op of delta) {
    if (op.retain !== undefined) at += op.retain;
    else if (op.insert !== undefined) {
      const n = typeof op.insert === "string" ? op.insert.length : 1;
      if (at < s) s += n;
      if (at < e) e += n;
      at += n;
    } else if (op.delete !== undefined) {
      s -= Math.max(0, Math.min(op.delete, s - at));
      e -= Math.max(0, Math.min(op.delete, e - at));
    }
  }
  return [s, e];
}
