/**
 * @module `GET /api/bootstrap`: what the app needs on load, in one answer —
 *
 * ```
 * {account: {setUp, signedIn, firstName, seal},
 *  person: {did},
 *  tenant: {handle, did, contracts: [{namespace, version, artifact, installedAt}]} | null,
 *  counts: {tasksDue, approvalsWaiting, asksWaiting},
 *  model: {configured, connection?, model?},
 *  toolServers: [{id, name, usage: {day, calls, ceiling, tools: {"<tool>": calls}}}],
 *  node: {version, update: {mode, state, running, available, last}},
 *  events: {after}}
 * ```
 *
 * `events.after` is the cursor to open `/api/events?after=…` with: nothing committed up to this
 * answer is missed or sent twice. `tasksDue` counts the open tasks due today or before, in the
 * person's time zone. A count the node cannot know yet is `null` (no tasks contract
 * installed, no approvals kept); `model.configured` is false until the conversation has a model
 * whose connection exists (then `connection` and `model` name the first one tried).
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { AdminRequests } from "../../../../shared/protocol/admin.ts";
import type { SocketLink } from "../../../../shared/worker/socket-link.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { accountView, type AccountRouteDeps } from "./account-deps.ts";
import { waitingApprovals } from "../approvals/approval-records.ts";
import { openAsks } from "../assistant-host/asks.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { tasksDue } from "../tasks/task-reads.ts";
import { localDay, machineTimeZone } from "../time-zone.ts";
import type { Connections } from "../assistant-host/connections.ts";
import { routeChoices } from "../assistant-host/model-route.ts";
import type { NodeSettings } from "../assistant-host/node-settings.ts";
import { usageOfServers } from "../tool-servers/server-views.ts";
import type { UpdateStatus } from "../../../../shared/protocol/updater.ts";

/** What the bootstrap answer is read from. */
export interface BootstrapDeps extends AccountRouteDeps {
  /** Reads the person's records (the counts). */
  readonly reader: PersonReader;
  /** The clock: which day it is for the person (tasks due). */
  readonly now: () => number;
  readonly admin: Pick<SocketLink<AdminRequests>, "request">;
  /** The node's version. */
  readonly version: string;
  /** The personal tenant and the person's did (null before set-up). */
  readonly person: () => { readonly did: string | null; readonly tenant: string | null };
  /** The last committed history seq (0 for none). */
  readonly lastSeq: () => number;
  /** The assistant's settings and model connections (the model part); absent where no assistant runs. */
  readonly settings?: NodeSettings;
  readonly connections?: Connections;
  /** The updater's last announced status (null: not reached yet); absent where no updater runs. */
  readonly updateStatus?: () => UpdateStatus | null;
}

/** Mounts `GET /api/bootstrap`. */
export function mountBootstrapRoute(api: Hono<ApiEnv>, deps: BootstrapDeps): void {
  api.get("/api/bootstrap", async (c) => {
    const session = sessionOf(c);
    // The cursor first: whatever commits while the rest is read arrives on the socket.
    const after = deps.lastSeq();
    const person = deps.person();
    return c.json({
      account: accountView(deps, session),
      person: { did: person.did },
      tenant: person.tenant === null ? null : await tenantView(deps, person.tenant),
      counts: { tasksDue: dueCount(deps), approvalsWaiting: person.tenant === null ? null : waitingApprovals(deps.reader), asksWaiting: person.tenant === null ? null : openAsks(deps.reader) },
      model: modelView(deps),
      // Each tool server's calls today against its daily ceiling.
      toolServers: deps.settings === undefined ? [] : usageOfServers(deps.settings, deps.now(), deps.account.settings()?.timeZone ?? machineTimeZone()),
      node: { version: deps.version, update: updateView(deps) },
      events: { after: String(after) },
    });
  });
}

async function tenantView(deps: BootstrapDeps, handle: string) {
  const [described, contracts] = await Promise.all([deps.admin.request("tenant-describe", { tenant: handle }), deps.admin.request("contracts-list", { tenant: handle })]).catch(() => {
    throw new HttpProblem(problem(503, "engine-unavailable", "the engine did not answer; try again in a moment"));
  });
  return {
    handle,
    did: described.ok ? described.value.did : null,
    contracts: contracts.ok
      ? contracts.value.filter((row) => row.status === "active").map((row) => ({ namespace: row.namespace, version: row.version, artifact: row.artifact, installedAt: row.installedAt }))
      : [],
  };
}

/** Whether a conversation has a model to go to, and which one is tried first. */
function modelView(deps: BootstrapDeps): { configured: boolean; connection?: string; model?: string } {
  const first = deps.settings === undefined || deps.connections === undefined ? undefined : routeChoices("conversation", deps.settings, deps.connections)[0];
  return first === undefined ? { configured: false } : { configured: true, connection: first.connection, model: first.model };
}

/** Self-update at a glance: the mode, what the updater does, what runs, what is available, the last event. */
function updateView(deps: BootstrapDeps) {
  const status = deps.updateStatus?.() ?? null;
  if (status === null) return { mode: "off", state: "idle", running: { version: deps.version, release: null }, available: null, last: null };
  return { mode: status.settings.mode, state: status.state, running: status.running, available: status.available, last: status.history[0] ?? null };
}

/** Open tasks due today or before, in the person's time zone (null without `std.tasks`). */
function dueCount(deps: BootstrapDeps): number | null {
  const zone = deps.account.settings()?.timeZone;
  return zone === undefined ? null : tasksDue(deps.reader, zone, localDay(deps.now(), zone));
}
