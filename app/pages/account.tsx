/**
 * @module Account: the person's sessions (end one), passkeys (add, remove), pairing a new device
 * (a code and its QR code, which opens this node's sign-in with the code filled in), recovery codes
 * (how many are left, a new set), and the node's own devices (sync status, a pairing code for
 * another Charter node). Sensitive changes go through the step-up prompt.
 */
import { useEffect, useState } from "preact/hooks";
import { api, type Page } from "../lib/api.ts";
import { useBusy, useLoad } from "../lib/hooks.ts";
import { createPasskey } from "../lib/passkeys.ts";
import { withStepUp } from "../lib/stepup.ts";
import { Button, Empty, ErrorNote, Field, JsonBlock, PageHead, Status, Time } from "../components/ui.tsx";
import { QrCode } from "../components/qr.tsx";

interface Session {
  readonly id: string;
  readonly current: boolean;
  readonly scope: string;
  readonly createdAt: string;
  readonly lastSeenAt: string;
  readonly userAgent: string | null;
  readonly steppedUpUntil: string | null;
}

interface Passkey {
  readonly id: string;
  readonly label: string | null;
  readonly transports: readonly string[];
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

export default function AccountPage() {
  return (
    <>
      <PageHead title="Account">
        <p>How you sign in, and the devices that may.</p>
      </PageHead>
      <Sessions />
      <Passkeys />
      <PairDevice />
      <Recovery />
      <SyncDevices />
      <Conflicts />
    </>
  );
}

function Sessions() {
  const sessions = useLoad(() => api<Page<Session>>("GET", "/api/account/sessions?limit=50"));
  const [run, busy, error] = useBusy();
  const current = sessions.data?.items.find((s) => s.current);
  const steppedUp = current?.steppedUpUntil != null && Date.parse(current.steppedUpUntil) > Date.now();
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p>
        This session is {steppedUp ? "confirmed for sensitive changes until " : "not confirmed for sensitive changes"}
        {steppedUp ? <Time when={current?.steppedUpUntil} /> : null}.
      </p>
      <ErrorNote error={sessions.error ?? error} />
      <ul class="cards">
        {(sessions.data?.items ?? []).map((s) => (
          <li key={s.id} class="card row">
            <div>
              <strong>{s.current ? "This device" : (s.userAgent ?? "A device")}</strong>
              {s.scope === "full" ? null : <span class="badge">{s.scope}</span>}
              <div class="muted">
                signed in <Time when={s.createdAt} />, last seen <Time when={s.lastSeenAt} />
              </div>
            </div>
            {s.current ? null : (
              <Button kind="danger" busy={busy} aria-label={`End the session of ${s.userAgent ?? "a device"}`} onClick={() => void run(() => withStepUp(() => api("POST", `/api/account/sessions/${encodeURIComponent(s.id)}/end`, {}))).then(sessions.reload)}>
                End
              </Button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Passkeys() {
  const passkeys = useLoad(() => api<Page<Passkey>>("GET", "/api/account/passkey?limit=50"));
  const [label, setLabel] = useState("");
  const [run, busy, error] = useBusy();
  const add = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const begin = await withStepUp(() => api<{ options: unknown }>("POST", "/api/account/passkey/begin", {}));
      const response = await createPasskey(begin.options);
      await api("POST", "/api/account/passkey/finish", { response, ...(label.trim() === "" ? {} : { label: label.trim() }) });
      setLabel("");
    }).then(passkeys.reload);
  };
  return (
    <section aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <ErrorNote error={passkeys.error ?? error} />
      <ul class="cards">
        {(passkeys.data?.items ?? []).map((p) => (
          <li key={p.id} class="card row">
            <div>
              <strong>{p.label ?? "A passkey"}</strong>
              <div class="muted">
                added <Time when={p.createdAt} />, last used <Time when={p.lastUsedAt} />
              </div>
            </div>
            <Button kind="danger" busy={busy} aria-label={`Remove the passkey ${p.label ?? p.id}`} onClick={() => void run(() => withStepUp(() => api("DELETE", `/api/account/passkey/${encodeURIComponent(p.id)}`))).then(passkeys.reload)}>
              Remove
            </Button>
          </li>
        ))}
      </ul>
      <form class="inline-form" onSubmit={add}>
        <Field label="Name of the new passkey">{(id) => <input id={id} maxLength={64} value={label} placeholder="e.g. phone" onInput={(e) => setLabel(e.currentTarget.value)} />}</Field>
        <Button type="submit" busy={busy}>
          Add a passkey
        </Button>
      </form>
    </section>
  );
}

function PairDevice() {
  const [pairing, setPairing] = useState<{ code: string; expiresAt: string } | null>(null);
  const [run, busy, error] = useBusy();
  useEffect(() => {
    if (pairing === null) return;
    const left = Date.parse(pairing.expiresAt) - Date.now();
    const timer = setTimeout(() => setPairing(null), Math.max(0, left));
    return () => clearTimeout(timer);
  }, [pairing]);
  const link = pairing === null ? "" : `${location.origin}/#/pair?code=${encodeURIComponent(pairing.code)}`;
  return (
    <section aria-labelledby="pair-title">
      <h2 id="pair-title">Pair a device</h2>
      <p>A phone or another computer signs in with its own passkey: show it this code, or scan the QR code with it.</p>
      <ErrorNote error={error} />
      {pairing === null ? (
        <Button busy={busy} onClick={() => void run(async () => setPairing(await withStepUp(() => api<{ code: string; expiresAt: string }>("POST", "/api/pair/code", {}))))}>
          Show a pairing code
        </Button>
      ) : (
        <div class="pairing">
          <QrCode text={link} label={`QR code of the pairing link for code ${pairing.code}`} />
          <div>
            <p>
              Code: <code class="big">{pairing.code}</code>
            </p>
            <p class="muted">
              Valid once, until <Time when={pairing.expiresAt} />. Or open <code class="wrap">{link}</code> on the new device.
            </p>
          </div>
        </div>
      )}
    </section>
  );
}

function Recovery() {
  const status = useLoad(() => api<{ codesLeft: number; createdAt: string | null }>("GET", "/api/account/recovery"));
  const [codes, setCodes] = useState<readonly string[] | null>(null);
  const [run, busy, error] = useBusy();
  return (
    <section aria-labelledby="recovery-title">
      <h2 id="recovery-title">Recovery codes</h2>
      <ErrorNote error={status.error ?? error} />
      {status.data === null ? null : (
        <p>
          {status.data.codesLeft} codes left, made <Time when={status.data.createdAt} />.
        </p>
      )}
      {codes === null ? (
        <Button busy={busy} onClick={() => void run(async () => setCodes((await withStepUp(() => api<{ recoveryCodes: string[] }>("POST", "/api/account/recovery/regenerate", {}))).recoveryCodes)).then(status.reload)}>
          Make a new set (the old codes stop working)
        </Button>
      ) : (
        <>
          <Status>New codes: write them down, they are shown only now.</Status>
          <ol class="codes" aria-label="New recovery codes">
            {codes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ol>
          <Button onClick={() => setCodes(null)}>I have saved them</Button>
        </>
      )}
    </section>
  );
}

interface PeerStatus {
  readonly did: string;
  readonly name: string;
  readonly role: "home" | "device";
  readonly url: string | null;
  readonly pairedAt: string;
  readonly revokedAt: string | null;
  readonly lastContact: string | null;
  readonly lastError: string | null;
  readonly connected: boolean;
  readonly pendingIn: number | null;
  readonly pendingOut: number | null;
  readonly held: string | null;
}

interface SyncStatus {
  readonly node: string;
  readonly commands: number;
  readonly conflicts: number;
  readonly peers: readonly PeerStatus[];
}

function SyncDevices() {
  const status = useLoad(() => api<SyncStatus>("GET", "/api/sync/status"));
  const [code, setCode] = useState<{ code: string; expiresAt: string } | null>(null);
  const [run, busy, error] = useBusy();
  const peers = status.data?.peers ?? [];
  return (
    <section aria-labelledby="sync-title">
      <h2 id="sync-title">This node's devices</h2>
      <p>Another Charter node of yours (a laptop) keeps its own copy once paired: both work apart, and converge when they meet.</p>
      <ErrorNote error={status.error ?? error} />
      {status.data === null ? null : (
        <p class="muted">
          {status.data.commands} commands synced; {status.data.conflicts} conflicts to settle.
        </p>
      )}
      {peers.length === 0 ? (
        <Empty>No paired node yet.</Empty>
      ) : (
        <ul class="cards">
          {peers.map((peer) => (
            <li key={peer.did} class="card row">
              <div>
                <strong>{peer.name}</strong> <span class="badge">{peer.revokedAt !== null ? "revoked" : peer.connected ? "connected" : "apart"}</span>
                <div class="muted">
                  {peer.role === "home" ? "the home node" : "a device"}, last contact <Time when={peer.lastContact} />
                  {peer.pendingIn === null ? "" : `, ${peer.pendingIn} to receive, ${peer.pendingOut ?? 0} to send`}
                  {peer.held === null ? "" : ` (held: ${peer.held})`}
                </div>
              </div>
              {peer.revokedAt !== null ? null : (
                <Button kind="danger" busy={busy} aria-label={`Revoke ${peer.name}`} onClick={() => void run(() => withStepUp(() => api("POST", `/api/root/devices/${encodeURIComponent(peer.did)}/revoke`, {}))).then(status.reload)}>
                  Revoke
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {code === null ? (
        <Button busy={busy} onClick={() => void run(async () => setCode(await withStepUp(() => api<{ code: string; expiresAt: string }>("POST", "/api/sync/pair", {}))))}>
          Pair another node
        </Button>
      ) : (
        <p>
          On the other node (started, not yet set up), choose "Join a node I already have" and enter this node's address <code class="wrap">{location.origin}</code> and the code{" "}
          <code class="big">{code.code}</code>, valid until <Time when={code.expiresAt} />.
        </p>
      )}
    </section>
  );
}

interface Conflict {
  readonly id: string;
  readonly namespace: string;
  readonly aggregate: string;
  readonly subject: string;
  readonly action: string;
  readonly args: unknown;
  readonly signer: string;
  readonly origin: string;
  readonly at: string;
  readonly state: unknown;
}

/** Changes made apart that a `merge reject` action refused when the devices met: keep the record as merged, or make the refused change now. */
function Conflicts() {
  const conflicts = useLoad(() => api<Page<Conflict>>("GET", "/api/sync/conflicts?limit=50"));
  const [run, busy, error] = useBusy();
  const items = conflicts.data?.items ?? [];
  if (items.length === 0 && error === null && conflicts.error === null) return null;
  return (
    <section aria-labelledby="conflicts-title">
      <h2 id="conflicts-title">Conflicts to settle</h2>
      <p>A change made on one device while another changed the same record first. Keep the record as it is, or make the other change now: either choice syncs to every device.</p>
      <ErrorNote error={conflicts.error ?? error} />
      <ul class="cards">
        {items.map((c) => (
          <li key={c.id} class="card">
            <p>
              <strong>{c.action}</strong> on {c.namespace} {c.aggregate} <code>{c.subject}</code>, made <Time when={c.at} />
            </p>
            <details>
              <summary>The refused change and the record now</summary>
              <JsonBlock value={{ args: c.args, now: c.state }} label={`The refused ${c.action} and the record now`} />
            </details>
            <div class="buttons">
              <Button busy={busy} onClick={() => void run(() => api("POST", `/api/sync/conflicts/${encodeURIComponent(c.id)}`, { choose: "kept" })).then(conflicts.reload)}>
                Keep as it is
              </Button>
              <Button kind="primary" busy={busy} onClick={() => void run(() => api("POST", `/api/sync/conflicts/${encodeURIComponent(c.id)}`, { choose: "theirs" })).then(conflicts.reload)}>
                Make the other change
              </Button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
