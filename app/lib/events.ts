/**
 * @module The live events of `/api/events`: one WebSocket for the whole app, opened once signed
 * in. Each frame (`{id, kind, …}`) goes to every subscriber; a dropped socket reconnects with
 * `?after=<last id>` (waiting longer each time), so nothing committed is missed or seen twice. A
 * close with 4001 means the session ended: the app goes back to signing in.
 */
import { socketUrl } from "./api.ts";
import { Store } from "./store.ts";

/** One frame as the node sends it. */
export interface EventFrame {
  readonly id?: string;
  readonly kind: string;
  readonly [field: string]: unknown;
}

export type Connection = "off" | "connecting" | "connected" | "retrying";

const SESSION_ENDED = 4001;
const listeners = new Set<(frame: EventFrame) => void>();
export const connection = new Store<Connection>("off");
/** Called when the node closes the socket because the session ended. */
let onEnded: () => void = () => undefined;

let socket: WebSocket | null = null;
let lastId: string | null = null;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let retryMs = 500;

/** A message of the socket as a frame, or null when it is not one. */
export function parseFrame(data: unknown): EventFrame | null {
  try {
    const frame = JSON.parse(String(data)) as EventFrame | null;
    return typeof frame?.kind === "string" ? frame : null;
  } catch {
    return null;
  }
}

/** Calls `listener` with every frame from now on; answers the unsubscribe. */
export function subscribe(listener: (frame: EventFrame) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Opens the socket (a no-op when open), resuming after `after` (bootstrap's `events.after`) the first time. */
export function openEvents(after: string | null, ended: () => void): void {
  onEnded = ended;
  if (socket !== null) return;
  if (lastId === null && after !== null) lastId = after;
  clearTimeout(retryTimer);
  const query = lastId === null ? "" : `?after=${encodeURIComponent(lastId)}`;
  const ws = new WebSocket(socketUrl(`/api/events${query}`));
  socket = ws;
  connection.set("connecting");
  ws.addEventListener("open", () => {
    retryMs = 500;
    connection.set("connected");
  });
  ws.addEventListener("message", (message: MessageEvent) => {
    const frame = parseFrame(message.data);
    if (frame === null) return;
    if (typeof frame.id === "string") lastId = frame.id;
    for (const listener of [...listeners]) listener(frame);
  });
  ws.addEventListener("close", (closed: CloseEvent) => {
    if (socket !== ws) return;
    socket = null;
    if (closed.code === SESSION_ENDED) {
      connection.set("off");
      onEnded();
      return;
    }
    connection.set("retrying");
    retryTimer = setTimeout(() => openEvents(null, onEnded), retryMs);
    retryMs = Math.min(retryMs * 2, 30_000);
  });
}

/** Closes the socket and forgets where it was (signing out). */
export function closeEvents(): void {
  clearTimeout(retryTimer);
  const ws = socket;
  socket = null;
  lastId = null;
  ws?.close(1000, "signed out");
  connection.set("off");
}
