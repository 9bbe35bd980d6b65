/**
 * @module How the settings and `/api/bootstrap` show tool servers: a server (how it runs, never its
 * environment's values; its state; today's calls against its ceiling, per tool), and its tools
 * (what the server says of each, the mode its annotations suggest, the mode in force, whether the
 * tool changed since the person set it and what they had set).
 */
import type { NodeSettings } from "../assistant-host/node-settings.ts";
import { localDay } from "../time-zone.ts";
import { callsOn, serversOf, type SeenList, type StoredServer, total } from "./server-store.ts";
import { serverToolName } from "./server-tools.ts";
import { toolState } from "./tool-pins.ts";
import type { ServerStatus } from "./tool-servers.ts";

/** Today's calls of a server: the day (in the person's zone), the count, the ceiling, per tool. */
export interface UsageView {
  readonly day: string;
  readonly calls: number;
  readonly ceiling: number;
  readonly tools: Readonly<Record<string, number>>;
}

/** Each server's calls today, as `/api/bootstrap` shows them. */
export function usageOfServers(settings: NodeSettings, now: number, zone: string): { id: string; name: string; usage: UsageView }[] {
  const day = localDay(now, zone);
  const calls = callsOn(settings, day);
  return serversOf(settings).map((s) => ({ id: s.id, name: s.name, usage: usageView(s, day, calls[s.id] ?? {}) }));
}

/** A server as the settings show it. */
export function serverView(settings: NodeSettings, server: StoredServer, status: ServerStatus, auth: { authorized: boolean } | null, now: number, zone: string, seen: SeenList | null): Record<string, unknown> {
  const day = localDay(now, zone);
  const tools = seen?.tools ?? [];
  const states = tools.map((t) => toolState(t, Object.hasOwn(server.pins, t.name) ? server.pins[t.name] : undefined));
  return {
    id: server.id,
    name: server.name,
    catalogue: server.catalogue,
    transport: server.transport,
    command: server.command,
    url: server.url,
    env: server.envNames,
    ceiling: server.ceiling,
    usage: usageView(server, day, callsOn(settings, day)[server.id] ?? {}),
    status,
    auth,
    tools: { listedAt: seen === null ? null : new Date(seen.listedAt).toISOString(), count: tools.length, on: states.filter((s) => s.mode !== "off").length, changed: states.filter((s) => s.changed).length },
    createdAt: new Date(server.createdAt).toISOString(),
    updatedAt: new Date(server.updatedAt).toISOString(),
  };
}

/** A server's tools as the settings show them, with today's calls of each. */
export function toolViews(settings: NodeSettings, server: StoredServer, seen: SeenList, now: number, zone: string): Record<string, unknown> {
  const calls = callsOn(settings, localDay(now, zone))[server.id] ?? {};
  return {
    server: server.id,
    listedAt: new Date(seen.listedAt).toISOString(),
    dropped: seen.dropped,
    items: seen.tools.map((t) => {
      const pin = Object.hasOwn(server.pins, t.name) ? server.pins[t.name] : undefined;
      const state = toolState(t, pin);
      return {
        name: t.name,
        tool: serverToolName(server.id, t.name),
        title: t.title,
        description: t.description,
        parameters: t.inputSchema,
        annotations: t.annotations,
        offered: t.inputSchema !== null,
        suggested: state.suggested,
        mode: state.mode,
        set: state.set,
        changed: state.changed,
        setAt: pin === undefined ? null : new Date(pin.at).toISOString(),
        callsToday: Object.hasOwn(calls, t.name) ? calls[t.name] : 0,
      };
    }),
  };
}

function usageView(server: StoredServer, day: number, counts: Readonly<Record<string, number>>): UsageView {
  return { day: new Date(day * 86_400_000).toISOString().slice(0, 10), calls: total(counts), ceiling: server.ceiling, tools: counts };
}
