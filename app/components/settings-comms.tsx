/**
 * @module Settings → Email (`/api/comms/settings`: ask before sending, which accounts are read;
 * `/api/comms/signatures`) and Webhooks (`/api/settings/integrations/webhooks`: the listener, each
 * source's address and secret, the mappings from an event to a command, the deliveries).
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { useLoad } from "../lib/hooks.ts";
import { Button, Empty, ErrorNote, Field, Time } from "./ui.tsx";
import { invalid, RowField, SaveNote, useSave } from "./settings-form.tsx";

interface CommsSettings {
  readonly ask: boolean;
  readonly accounts: readonly { readonly id: string; readonly from: string; readonly imap: unknown; readonly reading: boolean }[];
}

export function EmailSettings() {
  const stored = useLoad(() => api<CommsSettings>("GET", "/api/comms/settings"));
  const signatures = useLoad(() => api<{ signatures: Readonly<Record<string, string>> }>("GET", "/api/comms/signatures"));
  const [ask, setAsk] = useState(true);
  const [reading, setReading] = useState<Record<string, boolean>>({});
  const [texts, setTexts] = useState<Record<string, string>>({});
  const save = useSave();
  const saveSignatures = useSave();
  useEffect(() => {
    if (stored.data === null) return;
    setAsk(stored.data.ask);
    setReading(Object.fromEntries(stored.data.accounts.map((a) => [a.id, a.reading])));
  }, [stored.data]);
  useEffect(() => {
    if (signatures.data !== null) setTexts({ ...signatures.data.signatures });
  }, [signatures.data]);
  const accounts = stored.data?.accounts ?? [];
  const submit = (event: Event) => {
    event.preventDefault();
    const changed = Object.fromEntries(accounts.filter((a) => reading[a.id] !== a.reading).map((a) => [a.id, reading[a.id]]));
    const body = { ...(ask === stored.data?.ask ? {} : { ask }), ...(Object.keys(changed).length === 0 ? {} : { reading: changed }) };
    void save.run(async () => stored.set(await api<CommsSettings>("PUT", "/api/comms/settings", body)), "Saved.");
  };
  const submitSignatures = (event: Event) => {
    event.preventDefault();
    const body = Object.fromEntries(accounts.map((a) => [a.id, (texts[a.id] ?? "").trim() === "" ? null : (texts[a.id] ?? "")]));
    void saveSignatures.run(async () => signatures.set(await api("PUT", "/api/comms/signatures", { signatures: body })), "The signatures are saved.");
  };
  return (
    <div class="settings-body">
      <ErrorNote error={stored.error ?? signatures.error} />
      <form class="stack settings-form" onSubmit={submit}>
        <div class="field inline">
          <input id="email-ask" type="checkbox" checked={ask} aria-describedby="email-ask-hint" aria-invalid={invalid(save.at("#/ask"))} onChange={(e) => setAsk(e.currentTarget.checked)} />
          <label for="email-ask">Ask me before any email is sent</label>
        </div>
        <small id="email-ask-hint" class="hint">
          Otherwise what the assistant writes goes out at once.
        </small>
        {save.at("#/ask") === null ? null : <small class="field-error">{save.at("#/ask")}</small>}
        <h3>Accounts</h3>
        {stored.data !== null && accounts.length === 0 ? <Empty>No email account: they are set up on the node.</Empty> : null}
        {accounts.map((a) => {
          const error = save.at(`#/reading/${a.id}`);
          return (
            <div key={a.id} class="field inline">
              <input id={`email-reading-${a.id}`} type="checkbox" checked={reading[a.id] ?? a.reading} aria-invalid={invalid(error)} onChange={(e) => setReading((was) => ({ ...was, [a.id]: e.currentTarget.checked }))} />
              <label for={`email-reading-${a.id}`}>
                Read the mail of {a.from} <span class="muted">({a.id})</span>
              </label>
              {error === null ? null : <small class="field-error">{error}</small>}
            </div>
          );
        })}
        <SaveNote save={save} />
        <div class="buttons">
          <Button type="submit" kind="primary" busy={save.busy}>
            Save the email settings
          </Button>
        </div>
      </form>
      {accounts.length === 0 ? null : (
        <form class="stack settings-form" onSubmit={submitSignatures}>
          <h3>Signatures</h3>
          {accounts.map((a) => (
            <RowField key={a.id} id={`signature-${a.id}`} label="Signature" name={a.from} error={saveSignatures.at(`#/signatures/${a.id}`)}>
              {(describedBy) => (
                <>
                  <span class="muted">{a.from}</span>
                  <textarea id={`signature-${a.id}`} value={texts[a.id] ?? ""} aria-describedby={describedBy} aria-invalid={invalid(saveSignatures.at(`#/signatures/${a.id}`))} onInput={(e) => setTexts((was) => ({ ...was, [a.id]: e.currentTarget.value }))} />
                </>
              )}
            </RowField>
          ))}
          <SaveNote save={saveSignatures} />
          <div class="buttons">
            <Button type="submit" busy={saveSignatures.busy}>
              Save the signatures
            </Button>
          </div>
        </form>
      )}
    </div>
  );
}

interface Source {
  readonly source: string;
  readonly path: string;
  readonly hasSecret: boolean;
  readonly updatedAt: number | string | null;
}

interface Delivery {
  readonly id: string;
  readonly source: string;
  readonly event: string;
  readonly action: string;
  readonly status: string;
  readonly reason: string | null;
  readonly attempts: number;
  readonly receivedAt: number;
  readonly command: { readonly namespace: string; readonly action: string; readonly subject: string } | null;
}

interface Webhooks {
  readonly listener: { readonly url: string | null; readonly error: string | null };
  readonly sources: readonly Source[];
  readonly mappings: readonly unknown[];
  readonly deliveries: readonly Delivery[];
}

export function WebhookSettings() {
  const stored = useLoad(() => api<Webhooks>("GET", "/api/settings/integrations/webhooks"));
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [mappings, setMappings] = useState("");
  const [secretFor, setSecretFor] = useState<string | null>(null);
  const row = useSave();
  const saveMappings = useSave();
  useEffect(() => {
    if (stored.data !== null) setMappings(JSON.stringify(stored.data.mappings, null, 2));
  }, [stored.data]);
  const d = stored.data;
  const setSecret = (source: string) => (event: Event) => {
    event.preventDefault();
    setSecretFor(source);
    void row.run(() => api("PUT", `/api/settings/integrations/webhooks/secrets/${encodeURIComponent(source)}`, { secret: secrets[source] ?? "" }), `The secret of ${source} is saved.`).then((ok) => {
      if (!ok) return;
      setSecrets((was) => ({ ...was, [source]: "" }));
      stored.reload();
    });
  };
  const submitMappings = (event: Event) => {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(mappings);
    } catch (error) {
      // Not JSON: sent as the text it is, so the node says what it expects.
      parsed = mappings;
      void error;
    }
    void saveMappings.run(() => api("PUT", "/api/settings/integrations/webhooks/mappings", { mappings: parsed }).then(stored.reload), "The mappings are saved.");
  };
  return (
    <div class="settings-body">
      <p class="muted">Other services (GitHub, Mastodon) tell this node what happened; a mapping turns an event into an action, signed as you.</p>
      <ErrorNote error={stored.error} />
      {d === null ? null : (
        <p>
          Listener: {d.listener.url === null ? "not listening" : <code class="wrap">{d.listener.url}</code>}
          {d.listener.error === null ? null : <span class="refused"> ({d.listener.error})</span>}
        </p>
      )}
      <ul class="cards">
        {(d?.sources ?? []).map((s) => (
          <li key={s.source} class="card">
            <div class="row settings-server">
              <div class="settings-grow">
                <strong>{s.source}</strong> <span class="badge">{s.hasSecret ? "secret set" : "no secret"}</span>
                <div class="muted wrap">{d?.listener.url == null ? s.path : `${d.listener.url}${s.path}`}</div>
                {s.updatedAt === null ? null : (
                  <div class="muted">
                    secret set <Time when={s.updatedAt} />
                  </div>
                )}
              </div>
              {s.hasSecret ? (
                <Button kind="danger" busy={row.busy} aria-label={`Remove the secret of ${s.source}`} onClick={() => void row.run(() => api("DELETE", `/api/settings/integrations/webhooks/secrets/${encodeURIComponent(s.source)}`)).then(stored.reload)}>
                  Remove the secret
                </Button>
              ) : null}
            </div>
            <form class="inline-form" onSubmit={setSecret(s.source)}>
              <RowField id={`hook-secret-${s.source}`} label="Secret" name={s.source} error={secretFor === s.source ? row.at("#/secret") : null}>
                {(describedBy) => <input id={`hook-secret-${s.source}`} type="password" autoComplete="off" required value={secrets[s.source] ?? ""} aria-describedby={describedBy} onInput={(e) => setSecrets((was) => ({ ...was, [s.source]: e.currentTarget.value }))} />}
              </RowField>
              <Button type="submit" busy={row.busy} aria-label={`Save the secret of ${s.source}`}>
                Save
              </Button>
            </form>
          </li>
        ))}
      </ul>
      <SaveNote save={row} />
      <form class="stack settings-form" onSubmit={submitMappings}>
        <h3>Mappings</h3>
        <Field label="Mappings (JSON)" hint="Each: {source, event, action, command: {namespace, action, args}}; an argument is {path} into the event or a {value}." error={saveMappings.within("#/mappings")}>
          {(id, describedBy) => <textarea id={id} class="settings-code" spellcheck={false} value={mappings} aria-describedby={describedBy} aria-invalid={invalid(saveMappings.within("#/mappings"))} onInput={(e) => setMappings(e.currentTarget.value)} />}
        </Field>
        <SaveNote save={saveMappings} />
        <div class="buttons">
          <Button type="submit" busy={saveMappings.busy}>
            Save the mappings
          </Button>
        </div>
      </form>
      <h3>Recent deliveries</h3>
      {d === null ? null : d.deliveries.length === 0 ? (
        <Empty>No delivery yet.</Empty>
      ) : (
        <ul class="cards">
          {d.deliveries.map((x) => (
            <li key={x.id} class="card row">
              <div class="settings-grow">
                <strong>
                  {x.source} {x.event}
                  {x.action === "" ? "" : `.${x.action}`}
                </strong>{" "}
                <span class="badge">{x.status}</span> <Time when={x.receivedAt} />
                <div class="muted wrap">
                  {x.command === null ? "" : `${x.command.namespace}.${x.command.action} ${x.command.subject}`}
                  {x.reason === null ? "" : ` ${x.reason}`}
                  {x.attempts > 1 ? ` (${x.attempts} attempts)` : ""}
                </div>
              </div>
              {x.status === "failed" ? (
                <Button busy={row.busy} aria-label={`Try again (delivery ${x.id})`} onClick={() => void row.run(() => api("POST", `/api/settings/integrations/webhooks/deliveries/${encodeURIComponent(x.id)}/retry`, {})).then(stored.reload)}>
                  Try again
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
