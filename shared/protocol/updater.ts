/**
 * @module The updater channel: the updater worker listens on `DATA/run/updater.sock`; the gateway
 * connects, asks (settings, check, install) on behalf of the person's routes
 * (`/api/settings/updates…`), and hears each change of the updater's status, which it shows on
 * `/api/events` (`update` frames) and in `/api/bootstrap`.
 */
import type { UpdateEvent } from "../update/update-state.ts";

export const UPDATE_MODES = ["off", "ask", "automatic"] as const;
export type UpdateMode = (typeof UPDATE_MODES)[number];

/** The person's update settings. The window is local time (`HH:MM`, in `timeZone`, else the machine's); it may wrap midnight. */
export interface UpdateSettings {
  readonly mode: UpdateMode;
  /** A folder holding the channel (`latest.jws`, `<version>/…`) or an `https://` URL of one (`http://` on loopback only). */
  readonly channel: string | null;
  /** The operator's release key (`did:key:z6Mk…`, Ed25519): a release is accepted only when it signed the manifest. */
  readonly releaseKey: string | null;
  readonly window: { readonly start: string; readonly end: string };
  /** An IANA time zone for the window, or null for the machine's. */
  readonly timeZone: string | null;
}

export const DEFAULT_UPDATE_SETTINGS: UpdateSettings = { mode: "off", channel: null, releaseKey: null, window: { start: "02:00", end: "05:00" }, timeZone: null };

/** What the updater is doing. */
export type UpdaterActivity = "idle" | "checking" | "downloading" | "installing" | "switching" | "trial";

/** A release the channel offers that this node may install. */
export interface AvailableRelease {
  readonly version: string;
  readonly notes: string;
  readonly createdAt: string;
  readonly size: number;
}

export interface UpdateStatus {
  readonly settings: UpdateSettings;
  /** What runs: its version, and the release folder (null: the installation the node was started from). */
  readonly running: { readonly version: string; readonly release: string | null };
  readonly state: UpdaterActivity;
  readonly available: AvailableRelease | null;
  readonly lastCheck: { readonly at: string; readonly ok: boolean; readonly code?: string; readonly reason?: string } | null;
  /** When automatic mode next looks at the channel (null: not automatic). */
  readonly nextCheckAt: string | null;
  /** Newest first. */
  readonly history: readonly UpdateEvent[];
  /** Versions put back after a failed update: automatic mode skips them. */
  readonly rolledBack: readonly string[];
}

/** A field of a settings change that is not right, as `/api` names it (`#/window/start`). */
export interface SettingsError {
  readonly pointer: string;
  readonly detail: string;
}

/** A check or install that could not go on: a refused release (`unsigned`, `foreign-signed`, `tampered`, `downgrade`, `unsuitable`), or why not. */
export interface UpdateRefusal {
  readonly code: string;
  readonly reason: string;
}

export type UpdaterRequests = {
  "update-status": { request: Record<string, never>; response: UpdateStatus };
  /** Changes the given settings (the gateway checked the step-up a channel or key change needs). */
  "update-settings": { request: { change: Record<string, unknown> }; response: { ok: true; status: UpdateStatus } | { ok: false; errors: SettingsError[] } };
  /** Reads the channel now: what is available, or why nothing is. */
  "update-check": { request: Record<string, never>; response: { ok: true; status: UpdateStatus } | { ok: false; refusal: UpdateRefusal; status: UpdateStatus } };
  /**
   * Downloads, verifies, unpacks and switches to the available release (`version`, when given, must
   * be it); answers once the switch is under way — the node restarts into the new release — or with
   * why it was refused.
   */
  "update-install": { request: { version?: string }; response: { ok: true; status: UpdateStatus } | { ok: false; refusal: UpdateRefusal; status: UpdateStatus } };
};

export type UpdaterNotices = {
  /** The updater's status changed (and the event that changed it, when one did). */
  "update-status": { status: UpdateStatus; event: UpdateEvent | null };
};
