/**
 * @module Settings → Models: the model connections (provider, base URL, key — never shown back —
 * and whether the provider may see memory notes), which model does each kind of work
 * (`/api/settings/models`), trying one, and the fallbacks tried in turn (`/api/settings/routing`).
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { useLoad } from "../lib/hooks.ts";
import { Button, Empty, ErrorNote, Field, Status, Time } from "./ui.tsx";
import { invalid, RowField, SaveNote, useSave } from "./settings-form.tsx";

interface Provider {
  readonly provider: string;
  readonly examples: readonly { readonly name: string; readonly baseUrl: string; readonly needsKey: boolean }[];
}

interface Connection {
  readonly id: string;
  readonly provider: string;
  readonly baseUrl: string | null;
  readonly hasKey: boolean;
  readonly memory: boolean;
  readonly createdAt: number | string;
  readonly updatedAt: number | string;
}

interface Choice {
  readonly connection: string;
  readonly model: string;
}

const KINDS = [
  { kind: "conversation", label: "Conversation" },
  { kind: "summaries", label: "Summaries" },
  { kind: "planning", label: "Planning" },
] as const;
type Kind = (typeof KINDS)[number]["kind"];

type Models = Partial<Record<Kind, Choice | null>>;
type Routing = Partial<Record<Kind, readonly Choice[]>>;

export function ModelSettings() {
  const connections = useLoad(() => api<{ items: readonly Connection[] }>("GET", "/api/connections"));
  // The models each connection's provider lists, once asked.
  const [listed, setListed] = useState<Readonly<Record<string, readonly string[]>>>({});
  const ids = (connections.data?.items ?? []).map((c) => c.id);
  return (
    <>
      <Connections connections={connections.data?.items ?? null} error={connections.error} reload={connections.reload} />
      <ModelChoice ids={ids} listed={listed} onListed={(id, models) => setListed((was) => ({ ...was, [id]: models }))} />
      <Fallbacks ids={ids} listed={listed} />
    </>
  );
}

function Connections(props: { connections: readonly Connection[] | null; error: string | null; reload: () => void }) {
  const providers = useLoad(() => api<{ items: readonly Provider[] }>("GET", "/api/setup/model/providers"));
  const row = useSave();
  const form = useSave();
  const [id, setId] = useState("local");
  const [provider, setProvider] = useState("openai");
  const [baseUrl, setBaseUrl] = useState("");
  const [key, setKey] = useState("");
  const [memory, setMemory] = useState(false);
  const examples = providers.data?.items.find((p) => p.provider === provider)?.examples ?? [];

  const submit = (event: Event) => {
    event.preventDefault();
    const body = { provider, key, ...(baseUrl.trim() === "" ? {} : { baseUrl: baseUrl.trim() }), memory };
    void form.run(() => api("PUT", `/api/connections/${encodeURIComponent(id.trim())}/key`, body), `The connection ${id.trim()} is saved.`).then((ok) => {
      if (!ok) return;
      setKey("");
      props.reload();
    });
  };

  return (
    <section aria-labelledby="connections-title">
      <h3 id="connections-title">Model connections</h3>
      <p class="muted">A connection is a model provider and the key to it. The key is kept sealed on this node; no page shows it again.</p>
      <ErrorNote error={props.error ?? providers.error} />
      {props.connections === null ? null : props.connections.length === 0 ? (
        <Empty>No connection yet.</Empty>
      ) : (
        <ul class="cards">
          {props.connections.map((c) => (
            <li key={c.id} class="card row">
              <div class="settings-grow">
                <strong>{c.id}</strong> <span class="badge">{c.provider}</span>
                <span class="badge">{c.hasKey ? "key set" : "no key"}</span>
                {c.memory ? <span class="badge">sees memory notes</span> : null}
                <div class="muted wrap">{c.baseUrl ?? "the provider's own address"}</div>
                <div class="muted">
                  changed <Time when={c.updatedAt} />
                </div>
              </div>
              <div class="buttons">
                <Button busy={row.busy} aria-label={c.memory ? `Hide memory notes from ${c.id}` : `Share memory notes with ${c.id}`} onClick={() => void row.run(() => api("PATCH", `/api/connections/${encodeURIComponent(c.id)}`, { memory: !c.memory })).then(props.reload)}>
                  {c.memory ? "Hide memory notes" : "Share memory notes"}
                </Button>
                <Button kind="danger" busy={row.busy} aria-label={`Remove the connection ${c.id}`} onClick={() => void row.run(() => api("DELETE", `/api/connections/${encodeURIComponent(c.id)}/key`)).then(props.reload)}>
                  Remove
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <SaveNote save={row} />
      <form class="stack settings-form" onSubmit={submit}>
        <h4>Connect a provider (or change a connection's key)</h4>
        <Field label="Connection name" hint="Letters, digits, . _ -; the same name replaces that connection." error={form.at("#/id")}>
          {(fid, describedBy) => <input id={fid} required maxLength={64} value={id} aria-describedby={describedBy} aria-invalid={invalid(form.at("#/id"))} onInput={(e) => setId(e.currentTarget.value)} />}
        </Field>
        <Field label="Provider" error={form.at("#/provider")}>
          {(fid, describedBy) => (
            <select id={fid} value={provider} aria-describedby={describedBy} aria-invalid={invalid(form.at("#/provider"))} onChange={(e) => setProvider(e.currentTarget.value)}>
              {(providers.data?.items ?? [{ provider: "openai", examples: [] }]).map((p) => (
                <option key={p.provider} value={p.provider}>
                  {p.provider}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Base URL" hint={examples.length === 0 ? "Empty for the provider's own address." : `Empty for the provider's own address; e.g. ${examples.map((x) => `${x.name}: ${x.baseUrl}`).join(", ")}.`} error={form.at("#/baseUrl")}>
          {(fid, describedBy) => (
            <>
              <input id={fid} inputMode="url" list={`${fid}-examples`} value={baseUrl} placeholder={examples[0]?.baseUrl} aria-describedby={describedBy} aria-invalid={invalid(form.at("#/baseUrl"))} onInput={(e) => setBaseUrl(e.currentTarget.value)} />
              <datalist id={`${fid}-examples`}>
                {examples.map((x) => (
                  <option key={x.baseUrl} value={x.baseUrl}>
                    {x.name}
                  </option>
                ))}
              </datalist>
            </>
          )}
        </Field>
        <Field label="Key" hint="Empty for a local server that needs none." error={form.at("#/key")}>
          {(fid, describedBy) => <input id={fid} type="password" autoComplete="off" value={key} aria-describedby={describedBy} aria-invalid={invalid(form.at("#/key"))} onInput={(e) => setKey(e.currentTarget.value)} />}
        </Field>
        <div class="field inline">
          <input id="connection-memory" type="checkbox" checked={memory} onChange={(e) => setMemory(e.currentTarget.checked)} />
          <label for="connection-memory">Let this provider see memory notes</label>
        </div>
        {form.at("#/memory") === null ? null : <small class="field-error">{form.at("#/memory")}</small>}
        <SaveNote save={form} />
        <div class="buttons">
          <Button type="submit" kind="primary" busy={form.busy}>
            Save the connection
          </Button>
        </div>
      </form>
    </section>
  );
}

function ModelChoice(props: { ids: readonly string[]; listed: Readonly<Record<string, readonly string[]>>; onListed: (id: string, models: readonly string[]) => void }) {
  const stored = useLoad(() => api<Models>("GET", "/api/settings/models"));
  const [draft, setDraft] = useState<Record<Kind, Choice>>({ conversation: { connection: "", model: "" }, summaries: { connection: "", model: "" }, planning: { connection: "", model: "" } });
  const save = useSave();
  const lister = useSave();
  const [tried, setTried] = useState<{ kind: Kind; text: string; ms: number; model: string } | null>(null);
  useEffect(() => {
    if (stored.data === null) return;
    const data = stored.data;
    setDraft({
      conversation: data.conversation ?? { connection: "", model: "" },
      summaries: data.summaries ?? { connection: "", model: "" },
      planning: data.planning ?? { connection: "", model: "" },
    });
  }, [stored.data]);

  const set = (kind: Kind, change: Partial<Choice>) => setDraft((was) => ({ ...was, [kind]: { ...was[kind], ...change } }));
  const submit = (event: Event) => {
    event.preventDefault();
    const body: Record<string, Choice | null> = {};
    for (const { kind } of KINDS) body[kind] = draft[kind].connection === "" ? null : { connection: draft[kind].connection, model: draft[kind].model.trim() };
    void save.run(async () => stored.set(await api<Models>("PUT", "/api/settings/models", body)), "The models are saved.");
  };
  const list = (connection: string) => void lister.run(async () => props.onListed(connection, (await api<{ items: readonly string[] }>("POST", "/api/setup/model/models", { connection })).items));
  const tryIt = (kind: Kind) => {
    setTried(null);
    const { connection, model } = draft[kind];
    void lister.run(async () => setTried({ kind, model, ...(await api<{ text: string; ms: number }>("POST", "/api/setup/model/try", { connection, model: model.trim() })) }));
  };

  return (
    <section aria-labelledby="models-title">
      <h3 id="models-title">Which model does what</h3>
      <p class="muted">The conversation's model answers you; summaries and planning use the conversation's when none is chosen.</p>
      <ErrorNote error={stored.error} />
      <form class="stack settings-form" onSubmit={submit}>
        {KINDS.map(({ kind, label }) => {
          const choice = draft[kind];
          const models = props.listed[choice.connection] ?? [];
          return (
            <fieldset key={kind} class="settings-kind">
              <legend>{label}</legend>
              <div class="settings-pair">
                <RowField id={`model-${kind}-connection`} label="Connection" name={label.toLowerCase()} error={save.at(`#/${kind}/connection`) ?? save.at(`#/${kind}`)}>
                  {(describedBy) => (
                    <select id={`model-${kind}-connection`} value={choice.connection} aria-describedby={describedBy} aria-invalid={invalid(save.at(`#/${kind}/connection`))} onChange={(e) => set(kind, { connection: e.currentTarget.value })}>
                      <option value="">{kind === "conversation" ? "None" : "The conversation's"}</option>
                      {[...new Set([...props.ids, ...(choice.connection === "" ? [] : [choice.connection])])].map((id) => (
                        <option key={id} value={id}>
                          {id}
                        </option>
                      ))}
                    </select>
                  )}
                </RowField>
                <RowField id={`model-${kind}-model`} label="Model" name={label.toLowerCase()} error={save.at(`#/${kind}/model`)}>
                  {(describedBy) => (
                    <>
                      <input id={`model-${kind}-model`} list={`model-${kind}-listed`} value={choice.model} disabled={choice.connection === ""} aria-describedby={describedBy} aria-invalid={invalid(save.at(`#/${kind}/model`))} onInput={(e) => set(kind, { model: e.currentTarget.value })} />
                      <datalist id={`model-${kind}-listed`}>
                        {models.map((m) => (
                          <option key={m} value={m} />
                        ))}
                      </datalist>
                    </>
                  )}
                </RowField>
              </div>
              {choice.connection === "" ? null : (
                <div class="buttons">
                  <Button busy={lister.busy} aria-label={`List its models (${choice.connection}, ${label.toLowerCase()})`} onClick={() => list(choice.connection)}>
                    List its models
                  </Button>
                  <Button busy={lister.busy} disabled={choice.model.trim() === ""} aria-label={`Try it (${label.toLowerCase()})`} onClick={() => tryIt(kind)}>
                    Try it
                  </Button>
                </div>
              )}
              {models.length === 0 ? null : (
                <p class="muted wrap">
                  {choice.connection} offers: {models.join(", ")}
                </p>
              )}
              {tried?.kind === kind ? (
                <Status>
                  {tried.model} answered in {tried.ms} ms: “{tried.text}”
                </Status>
              ) : null}
            </fieldset>
          );
        })}
        <ErrorNote error={lister.rest()} />
        <SaveNote save={save} />
        <div class="buttons">
          <Button type="submit" kind="primary" busy={save.busy}>
            Save the models
          </Button>
        </div>
      </form>
    </section>
  );
}

function Fallbacks(props: { ids: readonly string[]; listed: Readonly<Record<string, readonly string[]>> }) {
  const stored = useLoad(() => api<Routing>("GET", "/api/settings/routing"));
  const [draft, setDraft] = useState<Record<Kind, Choice[]>>({ conversation: [], summaries: [], planning: [] });
  const save = useSave();
  useEffect(() => {
    if (stored.data === null) return;
    const data = stored.data;
    setDraft({ conversation: [...(data.conversation ?? [])], summaries: [...(data.summaries ?? [])], planning: [...(data.planning ?? [])] });
  }, [stored.data]);
  const change = (kind: Kind, index: number, value: Partial<Choice> | null) =>
    setDraft((was) => ({ ...was, [kind]: value === null ? was[kind].filter((_, i) => i !== index) : was[kind].map((c, i) => (i === index ? { ...c, ...value } : c)) }));
  const submit = (event: Event) => {
    event.preventDefault();
    const body = Object.fromEntries(KINDS.map(({ kind }) => [kind, draft[kind].map((c) => ({ connection: c.connection, model: c.model.trim() }))]));
    void save.run(async () => stored.set(await api<Routing>("PUT", "/api/settings/routing", body)), "The fallbacks are saved.");
  };
  return (
    <section aria-labelledby="routing-title">
      <h3 id="routing-title">Fallbacks</h3>
      <p class="muted">When the chosen model fails, these are tried in turn.</p>
      <ErrorNote error={stored.error} />
      <form class="stack settings-form" onSubmit={submit}>
        {KINDS.map(({ kind, label }) => (
          <fieldset key={kind} class="settings-kind">
            <legend>{label}</legend>
            {draft[kind].length === 0 ? <Empty>No fallback.</Empty> : null}
            {save.at(`#/${kind}`) === null ? null : <small class="field-error">{save.at(`#/${kind}`)}</small>}
            {draft[kind].map((c, i) => {
              const name = `${label.toLowerCase()} fallback ${i + 1}`;
              return (
                <div key={i} class="settings-pair">
                  <RowField id={`routing-${kind}-${i}-connection`} label="Connection" name={name} error={save.at(`#/${kind}/${i}/connection`) ?? save.at(`#/${kind}/${i}`)}>
                    {(describedBy) => (
                      <select id={`routing-${kind}-${i}-connection`} value={c.connection} aria-describedby={describedBy} onChange={(e) => change(kind, i, { connection: e.currentTarget.value })}>
                        {[...new Set([...props.ids, c.connection])].map((id) => (
                          <option key={id} value={id}>
                            {id === "" ? "Choose…" : id}
                          </option>
                        ))}
                      </select>
                    )}
                  </RowField>
                  <RowField id={`routing-${kind}-${i}-model`} label="Model" name={name} error={save.at(`#/${kind}/${i}/model`)}>
                    {(describedBy) => (
                      <>
                        <input id={`routing-${kind}-${i}-model`} list={`routing-${kind}-${i}-listed`} value={c.model} aria-describedby={describedBy} onInput={(e) => change(kind, i, { model: e.currentTarget.value })} />
                        <datalist id={`routing-${kind}-${i}-listed`}>
                          {(props.listed[c.connection] ?? []).map((m) => (
                            <option key={m} value={m} />
                          ))}
                        </datalist>
                      </>
                    )}
                  </RowField>
                  <Button aria-label={`Remove the ${name}`} onClick={() => change(kind, i, null)}>
                    Remove
                  </Button>
                </div>
              );
            })}
            <div class="buttons">
              <Button onClick={() => setDraft((was) => ({ ...was, [kind]: [...was[kind], { connection: props.ids[0] ?? "", model: "" }] }))}>Add a {label.toLowerCase()} fallback</Button>
            </div>
          </fieldset>
        ))}
        <SaveNote save={save} />
        <div class="buttons">
          <Button type="submit" kind="primary" busy={save.busy}>
            Save the fallbacks
          </Button>
        </div>
      </form>
    </section>
  );
}
