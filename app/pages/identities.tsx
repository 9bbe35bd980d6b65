/**
 * @module Identities: the person's personal identity and each business or household they made or
 * belong to (`#/identities`), a new one (handle, kind, display name), and one identity
 * (`#/identities/<handle>`): its did:key and public key (the vault; a new key pair after a
 * step-up), its owners, members and delegations (added and taken back), and a did's scopes set in
 * one step. Every change of roles, delegations, scopes or keys goes through the step-up prompt; the
 * node decides what may be done and its refusals are shown in its words, next to the field it names.
 */
import { useRef, useState } from "preact/hooks";
import { api, messageOf, type Page, Refusal } from "../lib/api.ts";
import { accountState } from "../lib/account.ts";
import { useLoad } from "../lib/hooks.ts";
import { href, navigate } from "../lib/router.ts";
import { withStepUp } from "../lib/stepup.ts";
import { useStore } from "../lib/store.ts";
import type { PageProps } from "../routes.ts";
import { Button, Empty, ErrorNote, Field, JsonBlock, PageHead, Status, Time } from "../components/ui.tsx";
import { allPages, Did, useFocusTitleOnChange, useSubmission } from "../components/identities-form.tsx";
import "./identities.css";

type Kind = "personal" | "business" | "household";

interface IdentityItem {
  readonly handle: string;
  readonly did: string;
  readonly kind: Kind;
  readonly name?: string;
  readonly role: "owner" | "member";
}

interface Delegation {
  readonly did: string;
  readonly scope: string;
  readonly until: string | null;
}

interface IdentityView {
  readonly handle: string;
  readonly did: string;
  readonly kind: Kind;
  readonly name?: string;
  readonly role: "owner" | "member" | null;
  readonly createdAt: string;
  readonly owners: readonly string[];
  readonly members: readonly string[];
  readonly delegations: readonly Delegation[];
  readonly retiredDids: readonly { readonly did: string; readonly retiredAt: string }[];
}

const KIND_LABEL: Record<Kind, string> = { personal: "personal", business: "business", household: "household" };

export default function IdentitiesPage(props: PageProps) {
  const handle = props.rest[0];
  useFocusTitleOnChange(handle ?? "");
  return handle === undefined || handle === "" ? <IdentityList /> : <IdentityDetail key={handle} handle={handle} />;
}

function IdentityList() {
  const list = useLoad(() => allPages<IdentityItem>("/api/identities"));
  const items = list.data?.items ?? [];
  return (
    <>
      <PageHead title="Identities">
        <p>You, and each business or household you run here: each has its own did:key, owners, members and delegations.</p>
      </PageHead>
      <section aria-labelledby="ident-list-title">
        <h2 id="ident-list-title">Your identities</h2>
        <ErrorNote error={list.error} />
        {list.data !== null && items.length === 0 ? <Empty>No identity yet.</Empty> : null}
        <ul class="cards ident-list">
          {items.map((item) => (
            <li key={item.handle} class="card ident-item">
              <div class="ident-item-head">
                <a href={href("identities", item.handle)}>{item.name ?? item.handle}</a>
                <span class="badge">{KIND_LABEL[item.kind]}</span>
                <span class="badge">{item.role}</span>
              </div>
              <div class="muted">
                {item.name === undefined ? null : <span class="ident-handle">{item.handle} · </span>}
                <Did did={item.did} />
              </div>
            </li>
          ))}
        </ul>
      </section>
      <CreateIdentity onCreated={(handle) => navigate("identities", handle)} />
    </>
  );
}

const CREATE_FIELDS = ["handle", "kind", "name"] as const;

function CreateIdentity(props: { onCreated: (handle: string) => void }) {
  const form = useRef<HTMLFormElement>(null);
  const submit = useSubmission(CREATE_FIELDS, form);
  const [handle, setHandle] = useState("");
  const [kind, setKind] = useState<"business" | "household">("business");
  const [name, setName] = useState("");
  const create = (event: Event) => {
    event.preventDefault();
    const body = { handle: handle.trim(), kind, ...(name.trim() === "" ? {} : { name: name.trim() }) };
    void submit.run(async () => {
      const made = await withStepUp(() => api<IdentityView>("POST", "/api/identities", body));
      props.onCreated(made.handle);
    });
  };
  return (
    <section aria-labelledby="ident-new-title">
      <h2 id="ident-new-title">A new identity</h2>
      <form ref={form} class="stack ident-form" onSubmit={create}>
        <Field label="Handle" hint="Its short name on this node, e.g. ada-works." error={submit.field("handle")}>
          {(id, describedBy) => (
            <input id={id} data-field="handle" required autoComplete="off" spellcheck={false} value={handle} aria-describedby={describedBy} aria-invalid={submit.field("handle") ? "true" : undefined} onInput={(e) => setHandle(e.currentTarget.value)} />
          )}
        </Field>
        <Field label="Kind" error={submit.field("kind")}>
          {(id, describedBy) => (
            <select id={id} data-field="kind" value={kind} aria-describedby={describedBy} onChange={(e) => setKind(e.currentTarget.value === "household" ? "household" : "business")}>
              <option value="business">Business</option>
              <option value="household">Household</option>
            </select>
          )}
        </Field>
        <Field label="Display name" hint="Optional." error={submit.field("name")}>
          {(id, describedBy) => <input id={id} data-field="name" value={name} aria-describedby={describedBy} aria-invalid={submit.field("name") ? "true" : undefined} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <ErrorNote error={submit.error} />
        <div class="buttons">
          <Button type="submit" kind="primary" busy={submit.busy}>
            Create the identity
          </Button>
        </div>
      </form>
    </section>
  );
}

function IdentityDetail(props: { handle: string }) {
  const { handle } = props;
  const path = `/api/identities/${encodeURIComponent(handle)}`;
  const account = useStore(accountState);
  const me = account.phase === "in" ? account.boot.person.did : null;
  const identity = useLoad(() => api<IdentityView>("GET", path), [handle]);
  const listed = useLoad(() => allPages<IdentityItem>("/api/identities"), []);
  const item = listed.data?.items.find((i) => i.handle === handle) ?? null;
  const view = identity.data;
  const title = view?.name ?? item?.name ?? handle;
  const notOwner = identity.error !== null && item !== null && item.role !== "owner";
  const [saved, setSaved] = useState<string | null>(null);
  const changed = (next: IdentityView, what: string) => {
    identity.set(next);
    setSaved(what);
  };
  return (
    <>
      <PageHead title={title}>
        <p>
          <a href={href("identities")}>All identities</a>
        </p>
      </PageHead>
      {notOwner ? <p>You are a member of this identity: its owners see and change its roles.</p> : <ErrorNote error={identity.error} />}
      {view === null && item !== null ? <Summary did={item.did} kind={item.kind} handle={handle} role={item.role} /> : null}
      {view === null ? null : (
        <>
          <Summary did={view.did} kind={view.kind} handle={handle} role={view.role} createdAt={view.createdAt} />
          {saved === null ? null : <Status>{saved}</Status>}
          <Vault handle={handle} retired={view.retiredDids} onRotated={identity.reload} />
          <Role title="Owners" role="owners" handle={handle} dids={view.owners} me={me} onChanged={changed} />
          <Role title="Members" role="members" handle={handle} dids={view.members} me={me} onChanged={changed} />
          <Delegations handle={handle} delegations={view.delegations} onChanged={changed} />
          <Scopes handle={handle} onChanged={identity.reload} onSaved={setSaved} />
        </>
      )}
    </>
  );
}

function Summary(props: { did: string; kind: Kind; handle: string; role: string | null; createdAt?: string }) {
  return (
    <dl class="ident-summary">
      <div>
        <dt>Handle</dt>
        <dd>{props.handle}</dd>
      </div>
      <div>
        <dt>Kind</dt>
        <dd>{KIND_LABEL[props.kind]}</dd>
      </div>
      <div>
        <dt>You are</dt>
        <dd>{props.role === null ? "neither owner nor member" : `${props.role === "owner" ? "an owner" : "a member"}`}</dd>
      </div>
      <div>
        <dt>Its did:key</dt>
        <dd>
          <Did did={props.did} />
        </dd>
      </div>
      {props.createdAt === undefined ? null : (
        <div>
          <dt>Made</dt>
          <dd>
            <Time when={props.createdAt} />
          </dd>
        </div>
      )}
    </dl>
  );
}

interface Exported {
  readonly did: string;
  readonly publicJwk: unknown;
  readonly createdAt?: string;
}

function Vault(props: { handle: string; retired: IdentityView["retiredDids"]; onRotated: () => void }) {
  const path = `/api/identities/${encodeURIComponent(props.handle)}/vault`;
  const [exported, setExported] = useState<Exported | null>(null);
  const [asking, setAsking] = useState(false);
  const [rotated, setRotated] = useState<{ did: string; previous: string } | null>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const submit = useSubmission([]);
  const rotate = () =>
    void submit
      .run(async () => {
        const answer = await withStepUp(() => api<{ did: string; previous: { did: string } }>("POST", path, { operation: "rotate" }));
        setAsking(false);
        setExported(null);
        setRotated({ did: answer.did, previous: answer.previous.did });
      })
      .then((ok) => (ok ? props.onRotated() : undefined));
  return (
    <section aria-labelledby="ident-vault-title">
      <h2 id="ident-vault-title">Key</h2>
      <p class="muted">The node keeps the identity's private key; only its public key leaves.</p>
      <ErrorNote error={submit.error} />
      {rotated === null ? null : (
        <Status>
          A new key pair: the identity is now <Did did={rotated.did} />; <Did did={rotated.previous} /> is retired.
        </Status>
      )}
      <div class="buttons">
        <Button busy={submit.busy} onClick={() => void submit.run(async () => setExported(await api<Exported>("POST", path, { operation: "export" })))}>
          Show the public key
        </Button>
        <Button kind="danger" aria-expanded={asking ? "true" : "false"} aria-controls="ident-rotate" ref={toggle} onClick={() => setAsking(!asking)}>
          Rotate the key…
        </Button>
      </div>
      {asking ? (
        <div id="ident-rotate" class="card ident-confirm" role="group" aria-label="Rotate the key">
          <p>A new key pair gives this identity a new did:key; whoever pinned the old one must pin the new. Records, roles and delegations stay.</p>
          <div class="buttons">
            <Button kind="danger" busy={submit.busy} onClick={rotate}>
              Rotate now
            </Button>
            <Button
              onClick={() => {
                setAsking(false);
                toggle.current?.focus();
              }}
            >
              Keep this key
            </Button>
          </div>
        </div>
      ) : null}
      {exported === null ? null : <JsonBlock value={exported.publicJwk} label={`The public key of ${props.handle}, as a JWK`} />}
      {props.retired.length === 0 ? null : (
        <>
          <h3>Retired did:keys</h3>
          <ul class="ident-dids">
            {props.retired.map((r) => (
              <li key={r.did}>
                <Did did={r.did} /> <span class="muted">retired <Time when={r.retiredAt} /></span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function Role(props: { title: string; role: "owners" | "members"; handle: string; dids: readonly string[]; me: string | null; onChanged: (view: IdentityView, what: string) => void }) {
  const path = `/api/identities/${encodeURIComponent(props.handle)}/${props.role}`;
  const one = props.role === "owners" ? "owner" : "member";
  const form = useRef<HTMLFormElement>(null);
  const submit = useSubmission(["did"], form);
  const [did, setDid] = useState("");
  const titleId = `ident-${props.role}-title`;
  const add = (event: Event) => {
    event.preventDefault();
    const value = did.trim();
    void submit.run(async () => {
      props.onChanged(await withStepUp(() => api<IdentityView>("POST", path, { did: value })), `Added as ${one}.`);
      setDid("");
    });
  };
  const remove = (who: string) => void submit.run(async () => props.onChanged(await withStepUp(() => api<IdentityView>("POST", path, { did: who, remove: true })), `No longer ${one}.`));
  return (
    <section aria-labelledby={titleId}>
      <h2 id={titleId}>{props.title}</h2>
      {props.dids.length === 0 ? <Empty>None.</Empty> : null}
      <ul class="cards" aria-labelledby={titleId}>
        {props.dids.map((d) => (
          <li key={d} class="card row ident-did-row">
            <span class="ident-did">
              <Did did={d} />
              {d === props.me ? <span class="badge">you</span> : null}
            </span>
            <Button kind="danger" busy={submit.busy} aria-label={`Remove ${d === props.me ? "yourself" : d} from the ${props.role}`} onClick={() => remove(d)}>
              Remove
            </Button>
          </li>
        ))}
      </ul>
      <ErrorNote error={submit.error} />
      <form ref={form} class="inline-form" onSubmit={add}>
        <Field label={`New ${one}'s did:key`} error={submit.field("did")}>
          {(id, describedBy) => (
            <input id={id} data-field="did" required autoComplete="off" spellcheck={false} placeholder="did:key:z6Mk…" value={did} aria-describedby={describedBy} aria-invalid={submit.field("did") ? "true" : undefined} onInput={(e) => setDid(e.currentTarget.value)} />
          )}
        </Field>
        <Button type="submit" busy={submit.busy}>
          Add {one}
        </Button>
      </form>
    </section>
  );
}

function Delegations(props: { handle: string; delegations: readonly Delegation[]; onChanged: (view: IdentityView, what: string) => void }) {
  const path = `/api/identities/${encodeURIComponent(props.handle)}/delegations`;
  const form = useRef<HTMLFormElement>(null);
  const submit = useSubmission(["did", "scope", "until"], form);
  const [did, setDid] = useState("");
  const [scope, setScope] = useState("");
  const [until, setUntil] = useState("");
  const give = (event: Event) => {
    event.preventDefault();
    const body = { did: did.trim(), scope: scope.trim(), ...(until === "" ? {} : { until }) };
    void submit.run(async () => {
      props.onChanged(await withStepUp(() => api<IdentityView>("POST", path, body)), `Delegated ${body.scope}.`);
      setScope("");
      setUntil("");
    });
  };
  const takeBack = (d: Delegation) => void submit.run(async () => props.onChanged(await withStepUp(() => api<IdentityView>("POST", path, { did: d.did, scope: d.scope, remove: true })), `Took back ${d.scope}.`));
  return (
    <section aria-labelledby="ident-delegations-title">
      <h2 id="ident-delegations-title">Delegations</h2>
      <p class="muted">A delegation lets a did:key take the actions a contract gives to a scope.</p>
      {props.delegations.length === 0 ? (
        <Empty>No delegation.</Empty>
      ) : (
        <ul class="cards" aria-labelledby="ident-delegations-title">
          {props.delegations.map((d) => (
            <li key={`${d.did} ${d.scope}`} class="card row ident-did-row">
              <div class="ident-did">
                <strong>{d.scope}</strong> to <Did did={d.did} />
                <div class="muted">{d.until === null ? "no end" : <>until <Time when={d.until} /></>}</div>
              </div>
              <Button kind="danger" busy={submit.busy} aria-label={`Take back ${d.scope} from ${d.did}`} onClick={() => takeBack(d)}>
                Take back
              </Button>
            </li>
          ))}
        </ul>
      )}
      <ErrorNote error={submit.error} />
      <form ref={form} class="stack ident-form" onSubmit={give}>
        <h3>Delegate a scope</h3>
        <Field label="To did:key" error={submit.field("did")}>
          {(id, describedBy) => <input id={id} data-field="did" required autoComplete="off" spellcheck={false} placeholder="did:key:z6Mk…" value={did} aria-describedby={describedBy} aria-invalid={submit.field("did") ? "true" : undefined} onInput={(e) => setDid(e.currentTarget.value)} />}
        </Field>
        <div class="ident-row">
          <Field label="Scope" error={submit.field("scope")}>
            {(id, describedBy) => <input id={id} data-field="scope" required autoComplete="off" spellcheck={false} placeholder="shipping" value={scope} aria-describedby={describedBy} aria-invalid={submit.field("scope") ? "true" : undefined} onInput={(e) => setScope(e.currentTarget.value)} />}
          </Field>
          <Field label="Until" hint="Empty: no end." error={submit.field("until")}>
            {(id, describedBy) => <input id={id} data-field="until" type="date" value={until} aria-describedby={describedBy} aria-invalid={submit.field("until") ? "true" : undefined} onInput={(e) => setUntil(e.currentTarget.value)} />}
          </Field>
        </div>
        <div class="buttons">
          <Button type="submit" busy={submit.busy}>
            Delegate
          </Button>
        </div>
      </form>
    </section>
  );
}

/** `PUT /api/scopes`: exactly these scopes for one did, the others it holds taken back, in one step. */
function Scopes(props: { handle: string; onChanged: () => void; onSaved: (what: string) => void }) {
  const form = useRef<HTMLFormElement>(null);
  const submit = useSubmission(["did", "scopes", "until"], form);
  const [did, setDid] = useState("");
  const [scopes, setScopes] = useState("");
  const [until, setUntil] = useState("");
  const [current, setCurrent] = useState<readonly Delegation[] | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const look = async () => {
    setReadError(null);
    try {
      const page = await api<Page<Delegation>>("GET", `/api/scopes?tenant=${encodeURIComponent(props.handle)}&did=${encodeURIComponent(did.trim())}&limit=64`);
      setCurrent(page.items);
      setScopes(page.items.map((d) => d.scope).join(", "));
    } catch (error) {
      setCurrent(null);
      setReadError(error instanceof Refusal ? error.message : messageOf(error));
    }
  };
  const set = (event: Event) => {
    event.preventDefault();
    const list = scopes.split(/[\s,]+/).filter((s) => s !== "");
    const body = { tenant: props.handle, did: did.trim(), scopes: list, ...(until === "" ? {} : { until }) };
    void submit.run(async () => {
      const answer = await withStepUp(() => api<{ delegations: readonly Delegation[] }>("PUT", "/api/scopes", body));
      setCurrent(answer.delegations.filter((d) => d.did === body.did));
      props.onSaved(list.length === 0 ? "Every scope of that did:key taken back." : `That did:key now holds exactly: ${list.join(", ")}.`);
      props.onChanged();
    });
  };
  return (
    <section aria-labelledby="ident-scopes-title">
      <h2 id="ident-scopes-title">Scopes of one did:key</h2>
      <p class="muted">Give a did:key exactly these scopes: the missing ones are given, the others taken back, all at once or not at all.</p>
      <form ref={form} class="stack ident-form" onSubmit={set}>
        <Field label="did:key" error={submit.field("did")}>
          {(id, describedBy) => <input id={id} data-field="did" required autoComplete="off" spellcheck={false} placeholder="did:key:z6Mk…" value={did} aria-describedby={describedBy} aria-invalid={submit.field("did") ? "true" : undefined} onInput={(e) => setDid(e.currentTarget.value)} />}
        </Field>
        <div class="buttons">
          <Button onClick={() => void look()}>Show its scopes</Button>
        </div>
        <ErrorNote error={readError} />
        {current === null ? null : <p>{current.length === 0 ? "It holds no scope here." : `It holds: ${current.map((d) => d.scope).join(", ")}.`}</p>}
        <div class="ident-row">
          <Field label="Scopes" hint="Separated by commas or spaces; empty takes every one back." error={submit.field("scopes")}>
            {(id, describedBy) => <input id={id} data-field="scopes" autoComplete="off" spellcheck={false} value={scopes} aria-describedby={describedBy} aria-invalid={submit.field("scopes") ? "true" : undefined} onInput={(e) => setScopes(e.currentTarget.value)} />}
          </Field>
          <Field label="Each until" hint="Empty: no end." error={submit.field("until")}>
            {(id, describedBy) => <input id={id} data-field="until" type="date" value={until} aria-describedby={describedBy} aria-invalid={submit.field("until") ? "true" : undefined} onInput={(e) => setUntil(e.currentTarget.value)} />}
          </Field>
        </div>
        <ErrorNote error={submit.error} />
        <div class="buttons">
          <Button type="submit" busy={submit.busy}>
            Set exactly these scopes
          </Button>
        </div>
      </form>
    </section>
  );
}
