/**
 * @module Live co-editing of a vault's notes: `/api/collab/{note}` is a WebSocket speaking the Yjs
 * sync and awareness protocols (`y-protocols`, the messages `y-websocket` clients send), one shared
 * document per note whose text is the `Y.Text` named `text`.
 *
 * The first socket on a note loads its text from the vault; every update a client sends is applied
 * and passed on to the others; the merged text is written to the vault as a new revision
 * (`origin: collab`, a command signed as the person) half a second after the edits pause, at most
 * every five seconds while they go on, and when the last socket leaves. A change of the note made
 * elsewhere meanwhile (a route, an editor on the folder) is merged into the shared document as an
 * edit made at the text last saved, so the Yjs merge keeps both sides: nothing typed is lost.
 *
 * Bounded: at most MAX_DOCS notes open and MAX_CLIENTS sockets on one; a message over 1 MiB closes
 * its socket (1009); a document whose text grows past the largest note, or that has taken in more
 * than MAX_DOC_BYTES of updates since it was loaded, is saved and closed (its sockets may connect
 * again: the document starts over from the vault's text). A message that cannot be decoded closes
 * its socket (1003), never the node. At the upgrade, as for `/api/events`: an `Origin` other than
 * the node's is `403`, no session `401`, a note that is not kept `404`.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import { type WebSocket, WebSocketServer } from "ws";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem, type Problem, problem } from "../../../../shared/problem.ts";
import type { SessionRecord } from "../account/account-store.ts";
import { admitUpgrade, refuseUpgrade } from "../events/events-socket.ts";
import type { Knowledge } from "./knowledge.ts";
import { MAX_NOTE_BYTES, type NoteChanged, type Vault } from "./vault.ts";

export const COLLAB_PATH = "/api/collab/";
const NOTE_ID = /^note-[A-Za-z0-9._:-]{1,120}$/u;
const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;
const MAX_DOCS = 64;
const MAX_CLIENTS = 16;
const MAX_MESSAGE_BYTES = 1024 * 1024;
const MAX_DOC_BYTES = 64 * 1024 * 1024;
const SAVE_QUIET_MS = 500;
const SAVE_MAX_WAIT_MS = 5000;

export interface CollabOptions {
  readonly knowledge: Knowledge;
  /** The node's origin: the only `Origin` a page may open the socket from. */
  readonly origin: string;
  /** The live session a cookie's token opens now, or null. */
  readonly session: (token: string | null) => SessionRecord | null;
  readonly log: Logger;
  /** How long the edits pause before the text is saved (tests shorten it). */
  readonly saveQuietMs?: number;
}

/** The note a `/api/collab/…` target names, or null. */
export function collabNote(url: string | undefined): string | null {
  if (url === undefined || !url.startsWith(COLLAB_PATH)) return null;
  const end = url.search(/[?#]/u);
  const id = (end < 0 ? url : url.slice(0, end)).slice(COLLAB_PATH.length);
  return NOTE_ID.test(id) ? id : null;
}

export class CollabServer {
  readonly #options: CollabOptions;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });
  readonly #docs = new Map<string, SharedNote>();
  #closed = false;

  constructor(options: CollabOptions) {
    this.#options = options;
  }

  /** The open shared documents (for `GET /api/collab/{note}`). */
  clients(note: string): number {
    return this.#docs.get(note)?.size ?? 0;
  }

  /** Takes an upgrade for `/api/collab/…`: refuses it with a problem, or opens the socket. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const admitted = this.#admit(req);
    if ("problem" in admitted) return refuseUpgrade(socket, admitted.problem, admitted.headers);
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on("error", () => ws.terminate());
      if (this.#closed) return ws.close(1001, "the node is stopping");
      let doc = this.#docs.get(admitted.note);
      if (doc === undefined) {
        const made: SharedNote = new SharedNote(admitted.note, admitted.vault, this.#options, () => {
          if (this.#docs.get(admitted.note) === made) this.#docs.delete(admitted.note);
        });
        doc = made;
        this.#docs.set(admitted.note, doc);
      }
      doc.join(ws, admitted.session);
    });
  }

  /** Closes, with 4001, every socket opened under session `sessionId`. */
  closeSession(sessionId: string): void {
    for (const doc of this.#docs.values()) doc.closeSession(sessionId);
  }

  /** Saves every open document and closes its sockets. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#docs.values()].map((doc) => doc.shut(1001, "the node is stopping")));
    this.#wss.close();
  }

  #admit(req: IncomingMessage): { problem: Problem; headers?: Record<string, string> } | { note: string; vault: Vault; session: SessionRecord } {
    if (this.#closed) return { problem: problem(503, "unavailable", "the node is stopping; try again") };
    const admitted = admitUpgrade(req, { origin: this.#options.origin, what: "co-editing", session: this.#options.session });
    if ("problem" in admitted) return admitted;
    const { session } = admitted;
    const note = collabNote(req.url);
    if (note === null) return { problem: problem(400, "bad-parameters", "co-edit a note at /api/collab/{id}, its id as POST /api/collab answers it") };
    let found;
    try {
      found = this.#options.knowledge.note(note);
    } catch (error) {
      return { problem: error instanceof HttpProblem ? error.problem : problem(503, "unavailable", "the notes cannot be read now; try again") };
    }
    if (found === null) return { problem: problem(404, "not-found", `no kept note ${note}`) };
    const open = this.#docs.get(note);
    if (open === undefined && this.#docs.size >= MAX_DOCS) return { problem: problem(503, "unavailable", `${MAX_DOCS} notes are being co-edited already; try again later`) };
    if (open !== undefined && open.size >= MAX_CLIENTS) return { problem: problem(503, "unavailable", `${MAX_CLIENTS} devices co-edit this note already`) };
    return { note, vault: found.vault, session };
  }
}

/** A client of a shared note: its socket, its session, the awareness ids it announced. */
interface Peer {
  readonly session: SessionRecord;
  readonly awareness: Set<number>;
}

/** One note being co-edited: its Yjs document, its sockets, and what was last saved. */
class SharedNote {
  readonly #id: string;
  readonly #vault: Vault;
  readonly #options: CollabOptions;
  readonly #onEmpty: () => void;
  readonly #doc = new Y.Doc();
  readonly #text = this.#doc.getText("text");
  readonly #awareness = new awarenessProtocol.Awareness(this.#doc);
  readonly #peers = new Map<WebSocket, Peer>();
  /** The text last agreed with the vault, its revision and the document's state then. */
  #saved: { text: string; revision: number; state: Uint8Array } = { text: "", revision: 0, state: new Uint8Array() };
  #path = "";
  #loaded: Promise<boolean>;
  #updateBytes = 0;
  #quiet: NodeJS.Timeout | null = null;
  #firstUnsaved = 0;
  #saving: Promise<void> = Promise.resolve();
  #stopListening: () => void = () => undefined;
  #shut = false;

  constructor(id: string, vault: Vault, options: CollabOptions, onEmpty: () => void) {
    this.#id = id;
    this.#vault = vault;
    this.#options = options;
    this.#onEmpty = onEmpty;
    this.#awareness.setLocalState(null);
    this.#loaded = this.#load();
    this.#doc.on("update", (update: Uint8Array, origin: unknown) => this.#onUpdate(update, origin));
    this.#awareness.on("update", ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
      const changed = [...added, ...updated, ...removed];
      const peer = this.#peers.get(origin as WebSocket);
      if (peer !== undefined) {
        for (const id of added) peer.awareness.add(id);
        for (const id of removed) peer.awareness.delete(id);
      }
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
      encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(this.#awareness, changed));
      this.#broadcast(encoding.toUint8Array(encoder), null);
    });
  }

  get size(): number {
    return this.#peers.size;
  }

  join(ws: WebSocket, session: SessionRecord): void {
    this.#peers.set(ws, { session, awareness: new Set() });
    ws.binaryType = "nodebuffer";
    ws.on("close", () => this.#leave(ws));
    // Messages wait for the note's text: a client's first sync must see it.
    let ready = false;
    const early: Buffer[] = [];
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      if (!isBinary) return ws.close(1003, "binary Yjs messages only");
      if (ready) this.#receive(ws, data);
      else if (early.length < 64) early.push(data);
      else ws.close(1008, "too many messages before the note was loaded");
    });
    void this.#loaded.then((ok) => {
      if (!ok) return ws.close(1011, "the note could not be loaded");
      if (ws.readyState !== ws.OPEN) return;
      ready = true;
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      syncProtocol.writeSyncStep1(encoder, this.#doc);
      ws.send(encoding.toUint8Array(encoder));
      const states = [...this.#awareness.getStates().keys()];
      if (states.length > 0) {
        const a = encoding.createEncoder();
        encoding.writeVarUint(a, MESSAGE_AWARENESS);
        encoding.writeVarUint8Array(a, awarenessProtocol.encodeAwarenessUpdate(this.#awareness, states));
        ws.send(encoding.toUint8Array(a));
      }
      for (const data of early.splice(0)) this.#receive(ws, data);
    });
  }

  closeSession(sessionId: string): void {
    for (const [ws, peer] of this.#peers) if (peer.session.id === sessionId) ws.close(4001, "the session ended");
  }

  /** Saves what is unsaved, then closes every socket. */
  async shut(code: number, reason: string): Promise<void> {
    if (this.#shut) return;
    this.#shut = true;
    this.#onEmpty();
    for (const ws of this.#peers.keys()) ws.close(code, reason);
    await this.#save();
    this.#dispose();
  }

  async #load(): Promise<boolean> {
    try {
      const found = this.#options.knowledge.note(this.#id);
      if (found === null) return false;
      const note = await this.#vault.read(found.record.path);
      this.#path = note.path;
      this.#doc.transact(() => this.#text.insert(0, note.text), this);
      this.#saved = { text: note.text, revision: note.revision, state: Y.encodeStateAsUpdate(this.#doc) };
      this.#stopListening = this.#vault.onChange((change) => this.#external(change));
      return true;
    } catch (error) {
      this.#options.log.warn("a note to co-edit could not be loaded", { note: this.#id, error: error instanceof HttpProblem ? error.problem.detail : String(error) });
      return false;
    }
  }

  #receive(ws: WebSocket, data: Buffer): void {
    try {
      const decoder = decoding.createDecoder(data);
      const type = decoding.readVarUint(decoder);
      if (type === MESSAGE_SYNC) {
        const encoder = encoding.createEncoder();
        encoding.writeVarUint(encoder, MESSAGE_SYNC);
        // An update Yjs cannot apply is thrown here (not only logged), so its socket is closed.
        syncProtocol.readSyncMessage(decoder, encoder, this.#doc, ws, (error: Error) => {
          throw error;
        });
        if (encoding.length(encoder) > 1) ws.send(encoding.toUint8Array(encoder));
      } else if (type === MESSAGE_AWARENESS) {
        awarenessProtocol.applyAwarenessUpdate(this.#awareness, decoding.readVarUint8Array(decoder), ws);
      } else {
        ws.close(1003, "an unknown message type");
      }
    } catch (error) {
      this.#options.log.warn("a co-editing message could not be read: its socket is closed", { note: this.#id, error: String(error) });
      ws.close(1003, "a message that is not the Yjs protocol");
    }
  }

  #onUpdate(update: Uint8Array, origin: unknown): void {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    syncProtocol.writeUpdate(encoder, update);
    this.#broadcast(encoding.toUint8Array(encoder), origin instanceof Object && this.#peers.has(origin as WebSocket) ? (origin as WebSocket) : null);
    if (origin === this) return;
    this.#updateBytes += update.length;
    if (this.#text.length > MAX_NOTE_BYTES || this.#updateBytes > MAX_DOC_BYTES) {
      void this.shut(1009, "the note grew too large to co-edit: connect again");
      return;
    }
    this.#schedule();
  }

  #broadcast(message: Uint8Array, except: WebSocket | null): void {
    for (const ws of this.#peers.keys()) if (ws !== except && ws.readyState === ws.OPEN) ws.send(message);
  }

  /** Saves once the edits pause, or after SAVE_MAX_WAIT_MS of edits. */
  #schedule(): void {
    const now = Date.now();
    if (this.#quiet === null) this.#firstUnsaved = now;
    else clearTimeout(this.#quiet);
    const quietMs = this.#options.saveQuietMs ?? SAVE_QUIET_MS;
    const wait = Math.max(0, Math.min(quietMs, this.#firstUnsaved + SAVE_MAX_WAIT_MS - now));
    this.#quiet = setTimeout(() => {
      this.#quiet = null;
      void this.#save();
    }, wait);
  }

  /** Writes the merged text to the vault over the revision last saved (one save at a time). */
  #save(): Promise<void> {
    if (this.#quiet !== null) {
      clearTimeout(this.#quiet);
      this.#quiet = null;
    }
    this.#saving = this.#saving.then(async () => {
      const text = this.#text.toString();
      if (text === this.#saved.text || this.#path === "") return;
      const state = Y.encodeStateAsUpdate(this.#doc);
      try {
        const saved = await this.#vault.write(this.#path, text, this.#saved.revision, "collab");
        this.#saved = { text, revision: saved.revision, state };
      } catch (error) {
        // Changed elsewhere since: the change is merged in when heard (#external), then saved again.
        if (error instanceof HttpProblem && error.problem.code === "stale-revision") {
          const found = this.#options.knowledge.note(this.#id);
          if (found === null) return void this.shut(4404, "the note was deleted");
          const note = await this.#vault.read(found.record.path);
          this.#merge({ id: this.#id, path: note.path, revision: note.revision, text: note.text, origin: "node" });
          if (!this.#shut) this.#schedule();
          return;
        }
        this.#options.log.warn("co-edited text could not be saved (tried again at the next edit)", { note: this.#id, error: error instanceof HttpProblem ? error.problem.detail : String(error) });
      }
    });
    return this.#saving;
  }

  /** A change of the vault's notes: this note's, made elsewhere, is merged in. */
  #external(change: NoteChanged): void {
    if (change.id !== this.#id || change.origin === "collab") return;
    if (change.text === null) {
      void this.shut(4404, "the note was deleted");
      return;
    }
    this.#path = change.path;
    if (change.revision === this.#saved.revision && change.text === this.#saved.text) return;
    this.#merge({ ...change, text: change.text });
  }

  /** Merges `change`'s text as an edit made at the text last saved: concurrent edits here are kept. */
  #merge(change: NoteChanged & { text: string }): void {
    if (change.revision <= this.#saved.revision) return;
    const base = new Y.Doc();
    Y.applyUpdate(base, this.#saved.state);
    const before = Y.encodeStateVector(base);
    const text = base.getText("text");
    const from = this.#saved.text;
    const to = change.text;
    let start = 0;
    while (start < from.length && start < to.length && from[start] === to[start]) start++;
    let end = 0;
    while (end < from.length - start && end < to.length - start && from[from.length - 1 - end] === to[to.length - 1 - end]) end++;
    base.transact(() => {
      if (from.length - start - end > 0) text.delete(start, from.length - start - end);
      if (to.length - start - end > 0) text.insert(start, to.slice(start, to.length - end));
    });
    Y.applyUpdate(this.#doc, Y.encodeStateAsUpdate(base, before), this);
    this.#saved = { text: to, revision: change.revision, state: Y.encodeStateAsUpdate(base) };
    base.destroy();
    this.#path = change.path;
    if (this.#text.toString() !== to) this.#schedule();
  }

  #leave(ws: WebSocket): void {
    const peer = this.#peers.get(ws);
    if (peer === undefined) return;
    this.#peers.delete(ws);
    awarenessProtocol.removeAwarenessStates(this.#awareness, [...peer.awareness], null);
    if (this.#peers.size === 0 && !this.#shut) {
      // A device connecting from now on opens the note afresh (its load is queued after this save).
      this.#shut = true;
      this.#onEmpty();
      void this.#save().finally(() => this.#dispose());
    }
  }

  #dispose(): void {
    this.#stopListening();
    if (this.#quiet !== null) clearTimeout(this.#quiet);
    this.#awareness.destroy();
    this.#doc.destroy();
  }
}
