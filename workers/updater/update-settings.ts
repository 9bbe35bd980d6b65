/**
 * @module The updater's settings: kept in `DATA/releases/settings.json` (0600, written whole), checked
 * field by field when the person changes them, and the night window's arithmetic.
 */
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { isAbsolute } from "node:path";
import { isDidKey } from "../../shared/identity/did-key.ts";
import { DEFAULT_UPDATE_SETTINGS, type SettingsError, UPDATE_MODES, type UpdateMode, type UpdateSettings } from "../../shared/protocol/updater.ts";

const FIELDS = ["mode", "channel", "releaseKey", "window", "timeZone"];
const CLOCK = /^([01]\d|2[0-3]):([0-5]\d)$/;
const MAX_CHANNEL = 2048;

/** The settings on disk; defaults where the file is missing or a field is not right. */
export function readSettings(path: string): UpdateSettings {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return DEFAULT_UPDATE_SETTINGS;
  }
  const checked = changeSettings(DEFAULT_UPDATE_SETTINGS, raw, { requireChannel: false });
  return checked.ok ? checked.value : DEFAULT_UPDATE_SETTINGS;
}

/** `current` with `change` applied, or every field that is not right. */
export function changeSettings(current: UpdateSettings, change: unknown, options = { requireChannel: true }): { ok: true; value: UpdateSettings } | { ok: false; errors: SettingsError[] } {
  const errors: SettingsError[] = [];
  if (typeof change !== "object" || change === null || Array.isArray(change)) return { ok: false, errors: [{ pointer: "#", detail: "the settings are an object" }] };
  const c = change as Record<string, unknown>;
  for (const key of Object.keys(c)) if (!FIELDS.includes(key)) errors.push({ pointer: `#/${key}`, detail: `unknown field; the fields are ${FIELDS.join(", ")}` });
  let next: UpdateSettings = current;
  if ("mode" in c) {
    if (typeof c.mode === "string" && (UPDATE_MODES as readonly string[]).includes(c.mode)) next = { ...next, mode: c.mode as UpdateMode };
    else errors.push({ pointer: "#/mode", detail: `mode is one of ${UPDATE_MODES.join(", ")}` });
  }
  if ("channel" in c) {
    const problem = c.channel === null ? null : channelProblem(c.channel);
    if (problem === null) next = { ...next, channel: (c.channel as string | null) ?? null };
    else errors.push({ pointer: "#/channel", detail: problem });
  }
  if ("releaseKey" in c) {
    if (c.releaseKey === null || isDidKey(c.releaseKey)) next = { ...next, releaseKey: (c.releaseKey as string | null) ?? null };
    else errors.push({ pointer: "#/releaseKey", detail: "releaseKey is the operator's release key as a did:key (`charter release keygen` prints it)" });
  }
  if ("window" in c) {
    const w = c.window as Record<string, unknown> | null;
    if (typeof w !== "object" || w === null || Array.isArray(w)) errors.push({ pointer: "#/window", detail: 'window is {"start": "HH:MM", "end": "HH:MM"}' });
    else {
      for (const key of Object.keys(w)) if (key !== "start" && key !== "end") errors.push({ pointer: `#/window/${key}`, detail: "unknown field; the fields are start, end" });
      const start = w.start ?? next.window.start;
      const end = w.end ?? next.window.end;
      if (typeof start !== "string" || !CLOCK.test(start)) errors.push({ pointer: "#/window/start", detail: "start is a local time, HH:MM (24-hour)" });
      if (typeof end !== "string" || !CLOCK.test(end)) errors.push({ pointer: "#/window/end", detail: "end is a local time, HH:MM (24-hour)" });
      if (typeof start === "string" && typeof end === "string") next = { ...next, window: { start, end } };
    }
  }
  if ("timeZone" in c) {
    if (c.timeZone === null || (typeof c.timeZone === "string" && c.timeZone.length <= 64 && validZone(c.timeZone))) next = { ...next, timeZone: (c.timeZone as string | null) ?? null };
    else errors.push({ pointer: "#/timeZone", detail: "timeZone is an IANA time zone (Europe/Paris), or null for the machine's" });
  }
  if (errors.length === 0 && options.requireChannel && next.mode !== "off" && (next.channel === null || next.releaseKey === null)) {
    errors.push({ pointer: "#/mode", detail: `mode ${next.mode} needs a channel and a releaseKey` });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: next };
}

/** Why `channel` is not a channel: an absolute folder, an https URL, or http on loopback. */
function channelProblem(channel: unknown): string | null {
  if (typeof channel !== "string" || channel.length === 0 || channel.length > MAX_CHANNEL || channel.includes("\0")) return `channel is a folder's absolute path or an https URL (at most ${MAX_CHANNEL} characters)`;
  if (isAbsolute(channel)) return null;
  if (!URL.canParse(channel)) return "channel is a folder's absolute path or an https URL";
  const url = new URL(channel);
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return "a channel URL carries no credentials, query or fragment";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && isLoopback(url.hostname)) return null;
  return "a channel URL is https (plain http only on this machine's loopback)";
}

export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  return h === "::1";
}

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Minutes since local midnight at `now`, in `timeZone` (null: the machine's). */
export function localMinutes(now: number, timeZone: string | null): number {
  const parts = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", hourCycle: "h23", ...(timeZone === null ? {} : { timeZone }) }).formatToParts(new Date(now));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? "0");
  return get("hour") * 60 + get("minute");
}

/** Whether `now` falls in the window (start included, end not; a window may wrap midnight; start = end is the whole day). */
export function inWindow(now: number, settings: Pick<UpdateSettings, "window" | "timeZone">): boolean {
  const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  const m = localMinutes(now, settings.timeZone);
  const s = minutes(settings.window.start);
  const e = minutes(settings.window.end);
  if (s === e) return true;
  return s < e ? m >= s && m < e : m >= s || m < e;
}
