/**
 * @module Settings → Sign-in and time zone (`/api/account/settings`), Updates
 * (`/api/settings/updates`: mode, channel, release key, night window; check and install) and
 * Autonomy (`/api/settings/autonomy`).
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { useLoad } from "../lib/hooks.ts";
import { Button, Empty, ErrorNote, Field, Time } from "./ui.tsx";
import { invalid, SaveNote, useSave } from "./settings-form.tsx";

interface AccountSettings {
  readonly signInRequired: boolean;
  readonly sessionDays: number;
  readonly idleDays: number;
  readonly timeZone: string;
  readonly loopback: boolean;
}

/** The IANA zones the browser knows, for the time zone fields' suggestions. */
const ZONES: readonly string[] = (() => {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return [];
  }
})();

function ZoneList(props: { id: string }) {
  return (
    <datalist id={props.id}>
      {ZONES.map((z) => (
        <option key={z} value={z} />
      ))}
    </datalist>
  );
}

/** A whole number typed in a field: the number, or the text as typed (the node says what is wrong with it). */
function numberOf(text: string): number | string {
  return /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
}

export function SignInSettings() {
  const stored = useLoad(() => api<AccountSettings>("GET", "/api/account/settings"));
  const [draft, setDraft] = useState({ signInRequired: true, sessionDays: "", idleDays: "", timeZone: "" });
  const save = useSave();
  useEffect(() => {
    const d = stored.data;
    if (d !== null) setDraft({ signInRequired: d.signInRequired, sessionDays: String(d.sessionDays), idleDays: String(d.idleDays), timeZone: d.timeZone });
  }, [stored.data]);
  const submit = (event: Event) => {
    event.preventDefault();
    const body = { signInRequired: draft.signInRequired, sessionDays: numberOf(draft.sessionDays), idleDays: numberOf(draft.idleDays), timeZone: draft.timeZone.trim() };
    void save.run(async () => stored.set(await api<AccountSettings>("PUT", "/api/account/settings", body)), "Saved.");
  };
  return (
    <div class="settings-body">
      <ErrorNote error={stored.error} />
      <form class="stack settings-form" onSubmit={submit}>
        <div class="field inline">
          <input id="signin-required" type="checkbox" checked={draft.signInRequired} aria-describedby="signin-required-hint" onChange={(e) => setDraft({ ...draft, signInRequired: e.currentTarget.checked })} />
          <label for="signin-required">Ask for a passkey to sign in</label>
        </div>
        <small id="signin-required-hint" class="hint">
          {stored.data?.loopback === true ? "This node listens on this machine only." : "This node can be reached from other machines."}
        </small>
        {save.at("#/signInRequired") === null ? null : <small class="field-error">{save.at("#/signInRequired")}</small>}
        <div class="settings-pair">
          <Field label="A session lasts (days)" error={save.at("#/sessionDays")}>
            {(id, describedBy) => <input id={id} inputMode="numeric" value={draft.sessionDays} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/sessionDays"))} onInput={(e) => setDraft({ ...draft, sessionDays: e.currentTarget.value })} />}
          </Field>
          <Field label="Ends after idle (days)" error={save.at("#/idleDays")}>
            {(id, describedBy) => <input id={id} inputMode="numeric" value={draft.idleDays} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/idleDays"))} onInput={(e) => setDraft({ ...draft, idleDays: e.currentTarget.value })} />}
          </Field>
        </div>
        <Field label="Time zone" hint="An IANA name, e.g. Europe/Paris: due dates and the agenda are read in it." error={save.at("#/timeZone")}>
          {(id, describedBy) => (
            <>
              <input id={id} list="signin-zones" autoComplete="off" value={draft.timeZone} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/timeZone"))} onInput={(e) => setDraft({ ...draft, timeZone: e.currentTarget.value })} />
              <ZoneList id="signin-zones" />
            </>
          )}
        </Field>
        <SaveNote save={save} />
        <div class="buttons">
          <Button type="submit" kind="primary" busy={save.busy}>
            Save sign-in and time zone
          </Button>
        </div>
      </form>
    </div>
  );
}

interface UpdateSettings {
  readonly mode: "off" | "ask" | "automatic";
  readonly channel: string | null;
  readonly releaseKey: string | null;
  readonly window: { readonly start: string; readonly end: string };
  readonly timeZone: string | null;
}

interface UpdateStatus {
  readonly settings: UpdateSettings;
  readonly running: { readonly version: string; readonly release: string | null };
  readonly state: string;
  readonly available: { readonly version: string; readonly notes: string; readonly createdAt: string; readonly size: number } | null;
  readonly lastCheck: { readonly at: string; readonly ok: boolean; readonly code?: string; readonly reason?: string } | null;
  readonly nextCheckAt: string | null;
  readonly history: readonly { readonly at: string; readonly kind: string; readonly version: string; readonly from?: string; readonly code?: string; readonly reason?: string }[];
  readonly rolledBack: readonly string[];
}

export function UpdateSettingsSection() {
  const status = useLoad(() => api<UpdateStatus>("GET", "/api/settings/updates"));
  const [draft, setDraft] = useState({ mode: "off", channel: "", releaseKey: "", start: "", end: "", timeZone: "" });
  const save = useSave();
  const act = useSave();
  useEffect(() => {
    const s = status.data?.settings;
    if (s !== undefined) setDraft({ mode: s.mode, channel: s.channel ?? "", releaseKey: s.releaseKey ?? "", start: s.window.start, end: s.window.end, timeZone: s.timeZone ?? "" });
  }, [status.data]);
  const submit = (event: Event) => {
    event.preventDefault();
    const s = status.data?.settings;
    if (s === undefined) return;
    // Only what changed is sent: changing the channel or the key asks for a passkey.
    const orNull = (text: string) => (text.trim() === "" ? null : text.trim());
    const body: Record<string, unknown> = {};
    if (draft.mode !== s.mode) body.mode = draft.mode;
    if (orNull(draft.channel) !== s.channel) body.channel = orNull(draft.channel);
    if (orNull(draft.releaseKey) !== s.releaseKey) body.releaseKey = orNull(draft.releaseKey);
    if (draft.start !== s.window.start || draft.end !== s.window.end) body.window = { start: draft.start, end: draft.end };
    if (orNull(draft.timeZone) !== s.timeZone) body.timeZone = orNull(draft.timeZone);
    void save.run(async () => status.set(await api<UpdateStatus>("PUT", "/api/settings/updates", body)), "Saved.");
  };
  const d = status.data;
  return (
    <div class="settings-body">
      <ErrorNote error={status.error} />
      {d === null ? null : (
        <dl class="settings-facts">
          <dt>Running</dt>
          <dd>
            {d.running.version}
            {d.running.release === null ? " (the installation it was started from)" : ""}
          </dd>
          <dt>State</dt>
          <dd>{d.state}</dd>
          <dt>Last check</dt>
          <dd>
            {d.lastCheck === null ? (
              "never"
            ) : (
              <>
                <Time when={d.lastCheck.at} />
                {d.lastCheck.ok ? "" : `: ${d.lastCheck.reason ?? d.lastCheck.code ?? "failed"}`}
              </>
            )}
          </dd>
          {d.nextCheckAt === null ? null : (
            <>
              <dt>Next check</dt>
              <dd>
                <Time when={d.nextCheckAt} />
              </dd>
            </>
          )}
          <dt>Available</dt>
          <dd>{d.available === null ? "nothing newer known" : `${d.available.version} (${Math.round(d.available.size / 1024)} KiB)`}</dd>
        </dl>
      )}
      {d?.available?.notes ? <p class="settings-notes">{d.available.notes}</p> : null}
      <div class="buttons">
        <Button busy={act.busy} onClick={() => void act.run(async () => status.set(await api<UpdateStatus>("POST", "/api/settings/updates/check", {})), "Checked.")}>
          Check now
        </Button>
        {d?.available == null ? null : (
          <Button kind="primary" busy={act.busy} onClick={() => void act.run(async () => status.set(await api<UpdateStatus>("POST", "/api/settings/updates/install", { version: d.available?.version })), "Installing: the node restarts into the new release.")}>
            Install {d.available.version}
          </Button>
        )}
      </div>
      <SaveNote save={act} />
      <form class="stack settings-form" onSubmit={submit}>
        <h3>How this node updates</h3>
        <Field label="Mode" hint="off: only when you check and install; ask: the same, and the app shows what a check found; automatic: installs inside the night window." error={save.at("#/mode")}>
          {(id, describedBy) => (
            <select id={id} value={draft.mode} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/mode"))} onChange={(e) => setDraft({ ...draft, mode: e.currentTarget.value })}>
              <option value="off">off</option>
              <option value="ask">ask</option>
              <option value="automatic">automatic</option>
            </select>
          )}
        </Field>
        <Field label="Release channel" hint="A folder, or an https:// address of one." error={save.at("#/channel")}>
          {(id, describedBy) => <input id={id} value={draft.channel} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/channel"))} onInput={(e) => setDraft({ ...draft, channel: e.currentTarget.value })} />}
        </Field>
        <Field label="Release key" hint="did:key:z6Mk… — a release is installed only when this key signed it." error={save.at("#/releaseKey")}>
          {(id, describedBy) => <input id={id} value={draft.releaseKey} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/releaseKey"))} onInput={(e) => setDraft({ ...draft, releaseKey: e.currentTarget.value })} />}
        </Field>
        <div class="settings-pair">
          <Field label="Window from" error={save.at("#/window/start") ?? save.at("#/window")}>
            {(id, describedBy) => <input id={id} type="time" value={draft.start} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/window/start"))} onInput={(e) => setDraft({ ...draft, start: e.currentTarget.value })} />}
          </Field>
          <Field label="Window to" error={save.at("#/window/end")}>
            {(id, describedBy) => <input id={id} type="time" value={draft.end} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/window/end"))} onInput={(e) => setDraft({ ...draft, end: e.currentTarget.value })} />}
          </Field>
        </div>
        <Field label="Window's time zone" hint="Empty for the machine's." error={save.at("#/timeZone")}>
          {(id, describedBy) => (
            <>
              <input id={id} list="update-zones" autoComplete="off" value={draft.timeZone} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/timeZone"))} onInput={(e) => setDraft({ ...draft, timeZone: e.currentTarget.value })} />
              <ZoneList id="update-zones" />
            </>
          )}
        </Field>
        <SaveNote save={save} />
        <div class="buttons">
          <Button type="submit" kind="primary" busy={save.busy}>
            Save the update settings
          </Button>
        </div>
      </form>
      <h3>History</h3>
      {d === null ? null : d.history.length === 0 ? (
        <Empty>Nothing installed or refused yet.</Empty>
      ) : (
        <ul class="cards">
          {d.history.map((h, i) => (
            <li key={i} class="card">
              <strong>{h.kind}</strong> {h.version}
              {h.from === undefined ? "" : ` (from ${h.from})`} <Time when={h.at} />
              {h.reason === undefined && h.code === undefined ? null : <div class="muted">{h.reason ?? h.code}</div>}
            </li>
          ))}
        </ul>
      )}
      {d === null || d.rolledBack.length === 0 ? null : <p class="muted">Put back after a failed update (skipped by automatic mode): {d.rolledBack.join(", ")}.</p>}
    </div>
  );
}

interface Autonomy {
  readonly enabled: boolean;
  readonly intervalMinutes: number;
  readonly turnTokenBudget: number;
}

export function AutonomySettings() {
  const stored = useLoad(() => api<Autonomy>("GET", "/api/settings/autonomy"));
  const [draft, setDraft] = useState({ enabled: false, intervalMinutes: "", turnTokenBudget: "" });
  const save = useSave();
  useEffect(() => {
    const d = stored.data;
    if (d !== null) setDraft({ enabled: d.enabled, intervalMinutes: String(d.intervalMinutes), turnTokenBudget: String(d.turnTokenBudget) });
  }, [stored.data]);
  const submit = (event: Event) => {
    event.preventDefault();
    const body = { enabled: draft.enabled, intervalMinutes: numberOf(draft.intervalMinutes), turnTokenBudget: numberOf(draft.turnTokenBudget) };
    void save.run(async () => stored.set(await api<Autonomy>("PUT", "/api/settings/autonomy", body)), "Saved.");
  };
  return (
    <div class="settings-body">
      <p class="muted">On a schedule, the assistant reflects and works on your goals on its own; what it would change still waits for your approval.</p>
      <ErrorNote error={stored.error} />
      <form class="stack settings-form" onSubmit={submit}>
        <div class="field inline">
          <input id="autonomy-enabled" type="checkbox" checked={draft.enabled} onChange={(e) => setDraft({ ...draft, enabled: e.currentTarget.checked })} />
          <label for="autonomy-enabled">Work on a schedule</label>
        </div>
        {save.at("#/enabled") === null ? null : <small class="field-error">{save.at("#/enabled")}</small>}
        <div class="settings-pair">
          <Field label="Every (minutes)" error={save.at("#/intervalMinutes")}>
            {(id, describedBy) => <input id={id} inputMode="numeric" value={draft.intervalMinutes} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/intervalMinutes"))} onInput={(e) => setDraft({ ...draft, intervalMinutes: e.currentTarget.value })} />}
          </Field>
          <Field label="Tokens a turn may use" error={save.at("#/turnTokenBudget")}>
            {(id, describedBy) => <input id={id} inputMode="numeric" value={draft.turnTokenBudget} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/turnTokenBudget"))} onInput={(e) => setDraft({ ...draft, turnTokenBudget: e.currentTarget.value })} />}
          </Field>
        </div>
        <SaveNote save={save} />
        <div class="buttons">
          <Button type="submit" kind="primary" busy={save.busy}>
            Save autonomy
          </Button>
        </div>
      </form>
    </div>
  );
}
