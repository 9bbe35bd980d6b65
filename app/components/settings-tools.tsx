/**
 * @module Settings → Tools: each tool of the assistant's catalogue with its mode (off, read, ask)
 * and whether approving it asks for a passkey (`/api/settings/tools`), and the tool servers (MCP:
 * `/api/settings/integrations/tools`) — add one from the catalogue, list its tools and set their
 * modes, authorize, remove. The node says which mode a tool may have.
 */
import { useEffect, useState } from "preact/hooks";
import { api, messageOf } from "../lib/api.ts";
import { useLoad } from "../lib/hooks.ts";
import { takeOAuthReturn } from "../lib/oauth-return.ts";
import { Button, Empty, ErrorNote, Field, Status, Time } from "./ui.tsx";
import { invalid, RowField, SaveNote, useSave } from "./settings-form.tsx";

type Mode = "off" | "read" | "ask";
const MODES: readonly Mode[] = ["off", "read", "ask"];

/** A tool's mode (off, read, ask), with the refusal of its row. */
function ModeField(props: { id: string; name: string; error: string | null | undefined; value: Mode; onChange: (mode: Mode) => void }) {
  return (
    <RowField id={props.id} label="Mode" name={props.name} error={props.error}>
      {(describedBy) => (
        <select id={props.id} value={props.value} aria-describedby={describedBy} aria-invalid={invalid(props.error)} onChange={(e) => props.onChange(e.currentTarget.value as Mode)}>
          {MODES.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      )}
    </RowField>
  );
}

interface Tool {
  readonly name: string;
  readonly callName: string;
  readonly kind: "action" | "query";
  readonly mode: Mode;
  readonly sensitive: boolean;
  readonly description: string;
}

interface Tools {
  readonly tools: Readonly<Record<string, Mode>>;
  readonly items: readonly Tool[];
}

export function ToolSettings() {
  return (
    <>
      <ToolModes />
      <ToolServers />
    </>
  );
}

function ToolModes() {
  const stored = useLoad(() => api<Tools>("GET", "/api/settings/tools"));
  const [modes, setModes] = useState<Record<string, Mode>>({});
  const [sensitive, setSensitive] = useState<Record<string, boolean>>({});
  const save = useSave();
  useEffect(() => {
    if (stored.data === null) return;
    setModes(Object.fromEntries(stored.data.items.map((t) => [t.name, t.mode])));
    setSensitive(Object.fromEntries(stored.data.items.map((t) => [t.name, t.sensitive])));
  }, [stored.data]);
  const items = stored.data?.items ?? [];
  const submit = (event: Event) => {
    event.preventDefault();
    const tools = Object.fromEntries(items.filter((t) => modes[t.name] !== t.mode).map((t) => [t.name, modes[t.name]]));
    const marks = Object.fromEntries(items.filter((t) => sensitive[t.name] !== t.sensitive).map((t) => [t.name, sensitive[t.name]]));
    void save.run(async () => stored.set(await api<Tools>("PUT", "/api/settings/tools", { tools, sensitive: marks })), "The tools are saved.");
  };
  // Grouped by contract (the name's part before its last dot).
  const groups = new Map<string, Tool[]>();
  for (const t of items) {
    const contract = t.name.includes(".") ? t.name.slice(0, t.name.lastIndexOf(".")) : t.name;
    groups.set(contract, [...(groups.get(contract) ?? []), t]);
  }
  return (
    <section aria-labelledby="tools-title">
      <h3 id="tools-title">The assistant's tools</h3>
      <p class="muted">
        <strong>off</strong>: the assistant does not see it; <strong>read</strong>: it runs the query on its own; <strong>ask</strong>: every call waits for your approval. A sensitive tool also asks for your passkey when you approve.
      </p>
      <ErrorNote error={stored.error} />
      {stored.data !== null && items.length === 0 ? <Empty>No tool: no contract offers one.</Empty> : null}
      <form class="stack" onSubmit={submit}>
        {[...groups].map(([contract, tools]) => (
          <fieldset key={contract} class="settings-kind">
            <legend>{contract}</legend>
            <ul class="settings-tools">
              {tools.map((t) => {
                const id = `tool-${t.callName}`;
                const error = save.at(`#/tools/${t.name}`);
                const markError = save.at(`#/sensitive/${t.name}`);
                return (
                  <li key={t.name} class="settings-tool">
                    <div class="settings-grow">
                      <strong>{t.name.slice(contract.length + 1) || t.name}</strong> <span class="badge">{t.kind}</span>
                      <details>
                        <summary>What it does</summary>
                        <p class="muted">{t.description}</p>
                      </details>
                    </div>
                    <ModeField id={`${id}-mode`} name={t.name} error={error} value={modes[t.name] ?? t.mode} onChange={(mode) => setModes((was) => ({ ...was, [t.name]: mode }))} />
                    <div class="field inline">
                      <input id={`${id}-sensitive`} type="checkbox" checked={sensitive[t.name] ?? t.sensitive} aria-invalid={invalid(markError)} onChange={(e) => setSensitive((was) => ({ ...was, [t.name]: e.currentTarget.checked }))} />
                      <label for={`${id}-sensitive`}>
                        Sensitive<span class="settings-vh"> ({t.name})</span>
                      </label>
                      {markError === null ? null : <small class="field-error">{markError}</small>}
                    </div>
                  </li>
                );
              })}
            </ul>
          </fieldset>
        ))}
        <div class="settings-sticky">
          <SaveNote save={save} />
          <div class="buttons">
            <Button type="submit" kind="primary" busy={save.busy} disabled={items.length === 0}>
              Save the tools
            </Button>
          </div>
        </div>
      </form>
    </section>
  );
}

interface CatalogueEntry {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly transport: "stdio" | "http";
  readonly args?: { readonly required: boolean; readonly description: string };
}

interface Server {
  readonly id: string;
  readonly name: string;
  readonly catalogue: string;
  readonly transport: "stdio" | "http";
  readonly command: readonly string[] | null;
  readonly url: string | null;
  readonly ceiling: number;
  readonly usage: { readonly day: string; readonly calls: number; readonly ceiling: number };
  readonly status: { readonly running: boolean; readonly lastError: string | null; readonly retryAt: string | null } | null;
  readonly auth: { readonly authorized: boolean } | null;
  readonly tools: { readonly listedAt: string | null; readonly count: number; readonly on: number; readonly changed: number };
}

interface ServerTool {
  readonly name: string;
  readonly title?: string | null;
  readonly description?: string | null;
  readonly suggested: Mode;
  readonly mode: Mode;
  readonly changed: boolean;
  readonly callsToday: number;
}

function ToolServers() {
  const servers = useLoad(() => api<{ items: readonly Server[] }>("GET", "/api/settings/integrations/tools"));
  const catalogue = useLoad(() => api<{ items: readonly CatalogueEntry[] }>("GET", "/api/settings/integrations/tools/catalogue"));
  const [open, setOpen] = useState<string | null>(null);
  const row = useSave();
  const [authUrl, setAuthUrl] = useState<{ id: string; url: string } | null>(null);
  // Back from an authorization server: hand what it sent to the node (with this session).
  const [returned, setReturned] = useState<{ ok: true; server: string } | { ok: false; text: string } | null>(null);
  useEffect(() => {
    const back = takeOAuthReturn();
    if (back === null) return;
    if (back.error !== null || back.code === null || back.state === null) {
      setReturned({ ok: false, text: `The authorization was not given${back.error === null ? "" : ` (${back.error.slice(0, 300)})`}.` });
      return;
    }
    api<{ server: string; authorized: boolean }>("POST", "/api/settings/integrations/tools/oauth/callback", { code: back.code, state: back.state }).then(
      (done) => {
        setReturned({ ok: true, server: done.server });
        servers.reload();
      },
      (failure: unknown) => setReturned({ ok: false, text: `The authorization could not be finished: ${messageOf(failure)}` }),
    );
  }, []);
  return (
    <section aria-labelledby="servers-title">
      <h3 id="servers-title">Tool servers</h3>
      <p class="muted">Programs or services that give the assistant more tools (Model Context Protocol). Each new tool starts off until you set it.</p>
      <ErrorNote error={servers.error ?? catalogue.error ?? (returned?.ok === false ? returned.text : null)} />
      {returned?.ok === true ? <Status>{`${servers.data?.items.find((s) => s.id === returned.server)?.name ?? returned.server} is authorized: its tools can be listed and set.`}</Status> : null}
      {servers.data === null ? null : servers.data.items.length === 0 ? (
        <Empty>No tool server.</Empty>
      ) : (
        <ul class="cards">
          {servers.data.items.map((s) => (
            <li key={s.id} class="card">
              <div class="row settings-server">
                <div class="settings-grow">
                  <strong>{s.name}</strong> <span class="badge">{s.transport}</span>
                  <span class="badge">{s.status?.running ? "running" : "stopped"}</span>
                  {s.auth === null ? null : <span class="badge">{s.auth.authorized ? "authorized" : "not authorized"}</span>}
                  <div class="muted wrap">{s.url ?? s.command?.join(" ")}</div>
                  <div class="muted">
                    {s.tools.count} tools, {s.tools.on} on{s.tools.changed > 0 ? `, ${s.tools.changed} changed since you set them` : ""}; {s.usage.calls} of {s.usage.ceiling} calls today
                  </div>
                  {s.status?.lastError ? <div class="refused">Last error: {s.status.lastError}</div> : null}
                </div>
                <div class="buttons">
                  <Button aria-expanded={open === s.id ? "true" : "false"} aria-label={`${open === s.id ? "Hide its tools" : "Its tools"} (${s.name})`} onClick={() => setOpen(open === s.id ? null : s.id)}>
                    {open === s.id ? "Hide its tools" : "Its tools"}
                  </Button>
                  {s.auth !== null && !s.auth.authorized ? (
                    <Button
                      busy={row.busy}
                      aria-label={`Authorize ${s.name}`}
                      onClick={() =>
                        void row.run(async () => {
                          const answer = await api<{ authorized: boolean; authorizationUrl?: string }>("POST", `/api/settings/integrations/tools/${encodeURIComponent(s.id)}/authorize`, {});
                          setAuthUrl(answer.authorizationUrl === undefined ? null : { id: s.id, url: answer.authorizationUrl });
                          servers.reload();
                        })
                      }
                    >
                      Authorize
                    </Button>
                  ) : null}
                  <Button kind="danger" busy={row.busy} aria-label={`Remove the tool server ${s.name}`} onClick={() => void row.run(() => api("DELETE", `/api/settings/integrations/tools/${encodeURIComponent(s.id)}`)).then(servers.reload)}>
                    Remove
                  </Button>
                </div>
              </div>
              {authUrl?.id === s.id ? (
                <p>
                  Sign in at the provider to authorize it; it sends you back here:{" "}
                  <a class="wrap" href={authUrl.url} rel="noreferrer">
                    {authUrl.url}
                  </a>
                </p>
              ) : null}
              {open === s.id ? <ServerTools server={s} onSaved={servers.reload} /> : null}
            </li>
          ))}
        </ul>
      )}
      <SaveNote save={row} />
      <AddServer catalogue={catalogue.data?.items ?? []} onAdded={servers.reload} />
    </section>
  );
}

function ServerTools(props: { server: Server; onSaved: () => void }) {
  const base = `/api/settings/integrations/tools/${encodeURIComponent(props.server.id)}/tools`;
  const listed = useLoad(() => api<{ listedAt: string; dropped: number; items: readonly ServerTool[] }>("GET", base), [base]);
  const [modes, setModes] = useState<Record<string, Mode>>({});
  const save = useSave();
  useEffect(() => {
    if (listed.data !== null) setModes(Object.fromEntries(listed.data.items.map((t) => [t.name, t.mode])));
  }, [listed.data]);
  const items = listed.data?.items ?? [];
  const submit = (event: Event) => {
    event.preventDefault();
    const tools = Object.fromEntries(items.filter((t) => modes[t.name] !== t.mode).map((t) => [t.name, modes[t.name]]));
    void save.run(async () => {
      listed.set(await api("PUT", base, { tools }));
      props.onSaved();
    }, "Saved.");
  };
  if (listed.loading && listed.data === null) return <p class="muted">Asking the server for its tools…</p>;
  return (
    <form class="stack" onSubmit={submit}>
      <ErrorNote error={listed.error} />
      {listed.data === null ? null : (
        <p class="muted">
          Listed <Time when={listed.data.listedAt} />
          {listed.data.dropped > 0 ? `; ${listed.data.dropped} left out` : ""}.
        </p>
      )}
      {items.length === 0 && listed.data !== null ? <Empty>The server offers no tool.</Empty> : null}
      <ul class="settings-tools">
        {items.map((t) => {
          const id = `server-${props.server.id}-${t.name}`.replace(/[^A-Za-z0-9_-]/g, "_");
          const error = save.at(`#/tools/${t.name}`);
          return (
            <li key={t.name} class="settings-tool">
              <div class="settings-grow">
                <strong>{t.title ?? t.name}</strong>
                {t.changed ? <span class="badge">changed since you set it</span> : null}
                <div class="muted">
                  suggested: {t.suggested}; {t.callsToday} calls today
                </div>
                {t.description ? <p class="muted">{t.description}</p> : null}
              </div>
              <ModeField id={id} name={`${props.server.name} ${t.name}`} error={error} value={modes[t.name] ?? t.mode} onChange={(mode) => setModes((was) => ({ ...was, [t.name]: mode }))} />
            </li>
          );
        })}
      </ul>
      <SaveNote save={save} />
      {items.length === 0 ? null : (
        <div class="buttons">
          <Button type="submit" busy={save.busy}>
            Save the modes of {props.server.name}
          </Button>
        </div>
      )}
    </form>
  );
}

function AddServer(props: { catalogue: readonly CatalogueEntry[]; onAdded: () => void }) {
  const [entry, setEntry] = useState("");
  const [name, setName] = useState("");
  const [args, setArgs] = useState("");
  const save = useSave();
  const chosen = props.catalogue.find((c) => c.id === entry) ?? props.catalogue[0];
  const submit = (event: Event) => {
    event.preventDefault();
    if (chosen === undefined) return;
    const list = args
      .split("\n")
      .map((a) => a.trim())
      .filter((a) => a !== "");
    const body = { catalogue: chosen.id, ...(name.trim() === "" ? {} : { name: name.trim() }), ...(list.length === 0 ? {} : { args: list }) };
    void save.run(() => api("POST", "/api/settings/integrations/tools", body), "The server is added; set its tools' modes.").then((ok) => {
      if (!ok) return;
      setName("");
      setArgs("");
      props.onAdded();
    });
  };
  if (props.catalogue.length === 0) return null;
  return (
    <form class="stack settings-form" onSubmit={submit}>
      <h4>Add a tool server</h4>
      <Field label="Server" hint={chosen?.description} error={save.at("#/catalogue")}>
        {(id, describedBy) => (
          <select id={id} value={chosen?.id} aria-describedby={describedBy} onChange={(e) => setEntry(e.currentTarget.value)}>
            {props.catalogue.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Name (optional)" error={save.at("#/name") ?? save.at("#/id")}>
        {(id, describedBy) => <input id={id} maxLength={80} value={name} placeholder={chosen?.name} aria-describedby={describedBy} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      {chosen?.args === undefined ? null : (
        <Field label="Arguments, one a line" hint={chosen.args.description} error={save.at("#/args")}>
          {(id, describedBy) => <textarea id={id} value={args} aria-describedby={describedBy} aria-invalid={invalid(save.at("#/args"))} onInput={(e) => setArgs(e.currentTarget.value)} />}
        </Field>
      )}
      <SaveNote save={save} />
      <div class="buttons">
        <Button type="submit" busy={save.busy}>
          Add the server
        </Button>
      </div>
    </form>
  );
}
