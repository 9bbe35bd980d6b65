/**
 * @module Exchange (`#/exchange`): the other persons' nodes the person pinned (their did:key, their
 * node's address, a name: pinned and unpinned after a step-up; renamed, or moved to another address
 * after a step-up), a record sent to one of them as a
 * signed document (an invoice of `std.invoices`, from the personal identity or a business one),
 * and the documents sent and received with their state (a failed one tried again). One document
 * (`#/exchange/in/<id>`, `#/exchange/out/<id>`): whether it verifies now, who signed it, the record
 * it carries and the receipt of the command that last changed that record. The lists follow the
 * node's `exchange` frames: a document that arrives, or a delivery that ends, shows by itself.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, messageOf, type Page } from "../lib/api.ts";
import { accountState } from "../lib/account.ts";
import { useFrames, useLoad } from "../lib/hooks.ts";
import { href } from "../lib/router.ts";
import { withStepUp } from "../lib/stepup.ts";
import { useStore } from "../lib/store.ts";
import type { PageProps } from "../routes.ts";
import { Button, Empty, ErrorNote, Field, PageHead, Status, Time } from "../components/ui.tsx";
import { allPages, Did, jwsPayload, shown, useFocusTitleOnChange, useSubmission } from "../components/identities-form.tsx";
import "./exchange.css";

interface Relationship {
  readonly id: string;
  readonly did: string;
  readonly url: string;
  readonly name: string;
  readonly addedAt: string;
  readonly lastContact: string | null;
  readonly lastError: string | null;
}

type Box = "in" | "out";

interface DocumentItem {
  readonly id: string;
  readonly box: Box;
  readonly status: "received" | "delivered" | "failed";
  readonly relationship: string | null;
  readonly peer: string;
  readonly namespace: string;
  readonly aggregate: string;
  readonly subject: string;
  readonly sentAt: string;
  readonly storedAt: string;
  readonly attempts: number;
  readonly error: string | null;
}

interface DocumentView extends DocumentItem {
  readonly document: { readonly from?: string; readonly to?: string; readonly state?: Record<string, unknown>; readonly receipt?: string } | null;
  readonly jws: string;
  readonly verified: boolean;
}

interface Sent {
  readonly id: string;
  readonly status: "delivered" | "failed";
  readonly error?: string;
}

interface IdentityItem {
  readonly handle: string;
  readonly kind: string;
  readonly name?: string;
}

export default function ExchangePage(props: PageProps) {
  const [box, id] = props.rest;
  useFocusTitleOnChange(props.rest.join("/"));
  if ((box === "in" || box === "out") && id !== undefined && id !== "") return <DocumentPage key={`${box}/${id}`} box={box} id={id} />;
  return <Overview />;
}

function Overview() {
  const relationships = useLoad(() => allPages<Relationship>("/api/exchange/relationships"));
  const [box, setBox] = useState<"" | Box>("");
  const documents = useLoad(() => api<Page<DocumentItem>>("GET", `/api/exchange/documents?limit=50${box === "" ? "" : `&box=${box}`}`), [box]);
  /** Older pages of documents, asked for with "Show older". */
  const [older, setOlder] = useState<{ items: readonly DocumentItem[]; next: string | null } | null>(null);
  const [olderError, setOlderError] = useState<string | null>(null);
  useEffect(() => setOlder(null), [documents.data]);
  const next = older === null ? (documents.data?.next ?? null) : older.next;
  const showOlder = () => {
    if (next === null) return;
    api<Page<DocumentItem>>("GET", `/api/exchange/documents?limit=50&after=${encodeURIComponent(next)}${box === "" ? "" : `&box=${box}`}`).then(
      (page) => setOlder({ items: [...(older?.items ?? []), ...page.items], next: page.next }),
      (failure: unknown) => setOlderError(messageOf(failure)),
    );
  };
  const rels = relationships.data?.items ?? [];
  const changed = () => {
    relationships.reload();
    documents.reload();
  };
  // A document received or delivered, a relationship changed (here, on another device, or by a delivery).
  useFrames(changed, (frame) => frame.kind === "exchange");
  return (
    <>
      <PageHead title="Exchange">
        <p>Send a record, signed with your key, to another person's node; see what they sent you.</p>
      </PageHead>
      <YourAddress />
      <Relationships list={rels} error={relationships.error} loaded={relationships.data !== null} onChanged={changed} />
      <SendRecord relationships={rels} onSent={changed} />
      <Documents items={[...(documents.data?.items ?? []), ...(older?.items ?? [])]} loaded={documents.data !== null} error={documents.error ?? olderError} relationships={rels} box={box} onBox={setBox} onChanged={changed} onOlder={next === null ? null : showOlder} />
    </>
  );
}

function YourAddress() {
  const account = useStore(accountState);
  const did = account.phase === "in" ? account.boot.person.did : null;
  return (
    <section aria-labelledby="exch-you-title">
      <h2 id="exch-you-title">What the other person pins</h2>
      <dl class="exch-facts">
        <div>
          <dt>Your did:key</dt>
          <dd>{did === null ? "—" : <Did did={did} />}</dd>
        </div>
        <div>
          <dt>This node's address</dt>
          <dd>
            <code class="wrap">{location.origin}</code>
          </dd>
        </div>
      </dl>
    </section>
  );
}

const RELATIONSHIP_FIELDS = ["name", "did", "url"] as const;

function Relationships(props: { list: readonly Relationship[]; error: string | null; loaded: boolean; onChanged: () => void }) {
  const form = useRef<HTMLFormElement>(null);
  const submit = useSubmission(RELATIONSHIP_FIELDS, form);
  const removing = useSubmission([]);
  const [name, setName] = useState("");
  const [did, setDid] = useState("");
  const [url, setUrl] = useState("");
  const [done, setDone] = useState<string | null>(null);
  /** The relationship whose edit form is open. */
  const [editing, setEditing] = useState<string | null>(null);
  const add = (event: Event) => {
    event.preventDefault();
    setDone(null);
    const body = { name: name.trim(), did: did.trim(), url: url.trim() };
    void submit.run(async () => {
      const added = await withStepUp(() => api<Relationship>("POST", "/api/exchange/relationships", body));
      setDone(`${added.name}'s node is pinned.`);
      setName("");
      setDid("");
      setUrl("");
      props.onChanged();
    });
  };
  const remove = (r: Relationship) => {
    setDone(null);
    void removing.run(async () => {
      await withStepUp(() => api("DELETE", `/api/exchange/relationships/${encodeURIComponent(r.id)}`));
      setDone(`${r.name}'s node is unpinned; its documents stay.`);
      props.onChanged();
    });
  };
  return (
    <section aria-labelledby="exch-rel-title">
      <h2 id="exch-rel-title">Relationships</h2>
      <ErrorNote error={props.error ?? removing.error} />
      {done === null ? null : <Status>{done}</Status>}
      {props.loaded && props.list.length === 0 ? <Empty>No other node pinned yet.</Empty> : null}
      <ul class="cards" aria-labelledby="exch-rel-title">
        {props.list.map((r) => (
          <li key={r.id} class="card exch-rel">
            <div class="exch-rel-main">
              <strong>{r.name}</strong> {r.lastError === null ? null : <span class="badge exch-failed">last delivery failed</span>}
              <div class="muted">
                <Did did={r.did} />
              </div>
              <div class="muted">
                <code class="wrap">{r.url}</code>
              </div>
              <div class="muted">
                pinned <Time when={r.addedAt} />, last contact <Time when={r.lastContact} />
              </div>
              {r.lastError === null ? null : <p class="exch-error">{r.lastError}</p>}
            </div>
            <div class="buttons">
              <Button aria-label={`Edit ${r.name}`} aria-expanded={editing === r.id ? "true" : "false"} onClick={() => setEditing(editing === r.id ? null : r.id)}>
                Edit
              </Button>
              <Button kind="danger" busy={removing.busy} aria-label={`Unpin ${r.name}`} onClick={() => remove(r)}>
                Unpin
              </Button>
            </div>
            {editing === r.id ? (
              <EditRelationship
                relationship={r}
                onDone={(message) => {
                  setEditing(null);
                  if (message !== null) {
                    setDone(message);
                    props.onChanged();
                  }
                }}
              />
            ) : null}
          </li>
        ))}
      </ul>
      <form ref={form} class="stack exch-form" onSubmit={add}>
        <h3>Pin another person's node</h3>
        <Field label="Name" error={submit.field("name")}>
          {(id, describedBy) => <input id={id} data-field="name" value={name} aria-describedby={describedBy} aria-invalid={submit.field("name") ? "true" : undefined} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <Field label="Their did:key" error={submit.field("did")}>
          {(id, describedBy) => (
            <input id={id} data-field="did" autoComplete="off" spellcheck={false} placeholder="did:key:z6Mk…" value={did} aria-describedby={describedBy} aria-invalid={submit.field("did") ? "true" : undefined} onInput={(e) => setDid(e.currentTarget.value)} />
          )}
        </Field>
        <Field label="Their node's address" error={submit.field("url")}>
          {(id, describedBy) => (
            <input id={id} data-field="url" type="url" autoComplete="off" spellcheck={false} placeholder="https://bea.example.org" value={url} aria-describedby={describedBy} aria-invalid={submit.field("url") ? "true" : undefined} onInput={(e) => setUrl(e.currentTarget.value)} />
          )}
        </Field>
        <ErrorNote error={submit.error} />
        <div class="buttons">
          <Button type="submit" kind="primary" busy={submit.busy}>
            Pin their node
          </Button>
        </div>
      </form>
    </section>
  );
}

const EDIT_FIELDS = ["name", "url"] as const;

/** Renames a relationship or moves it to another address (a step-up, asked for only then); its did stays pinned. */
function EditRelationship(props: { relationship: Relationship; onDone: (message: string | null) => void }) {
  const r = props.relationship;
  const form = useRef<HTMLFormElement>(null);
  const submit = useSubmission(EDIT_FIELDS, form);
  const [name, setName] = useState(r.name);
  const [url, setUrl] = useState(r.url);
  const save = (event: Event) => {
    event.preventDefault();
    const change = { ...(name.trim() === r.name ? {} : { name: name.trim() }), ...(url.trim() === r.url ? {} : { url: url.trim() }) };
    if (Object.keys(change).length === 0) {
      props.onDone(null);
      return;
    }
    void submit.run(async () => {
      const edited = await withStepUp(() => api<Relationship>("PATCH", `/api/exchange/relationships/${encodeURIComponent(r.id)}`, change));
      props.onDone(`${edited.name}'s relationship is saved.`);
    });
  };
  return (
    <form ref={form} class="stack exch-edit" aria-label={`Edit ${r.name}`} onSubmit={save}>
      <Field label={`New name for ${r.name}`} error={submit.field("name")}>
        {(id, describedBy) => <input id={id} data-field="name" value={name} aria-describedby={describedBy} aria-invalid={submit.field("name") ? "true" : undefined} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field label={`${r.name}'s node's address`} hint="A new address asks you to confirm it's you: your documents go there next. The did:key stays pinned." error={submit.field("url")}>
        {(id, describedBy) => (
          <input id={id} data-field="url" type="url" autoComplete="off" spellcheck={false} value={url} aria-describedby={describedBy} aria-invalid={submit.field("url") ? "true" : undefined} onInput={(e) => setUrl(e.currentTarget.value)} />
        )}
      </Field>
      <ErrorNote error={submit.error} />
      <div class="buttons">
        <Button type="submit" kind="primary" busy={submit.busy}>
          Save
        </Button>
        <Button onClick={() => props.onDone(null)}>Cancel</Button>
      </div>
    </form>
  );
}

interface RecordItem {
  readonly subject: string;
  readonly state: Record<string, unknown>;
}

function SendRecord(props: { relationships: readonly Relationship[]; onSent: () => void }) {
  const identities = useLoad(() => allPages<IdentityItem>("/api/identities"));
  const ids = identities.data?.items ?? [];
  const personal = ids.find((i) => i.kind === "personal")?.handle ?? "";
  const form = useRef<HTMLFormElement>(null);
  const submit = useSubmission(["relationship", "namespace", "aggregate", "subject", "tenant"], form);
  const [relationship, setRelationship] = useState("");
  const [tenant, setTenant] = useState("");
  const [namespace, setNamespace] = useState("std.invoices");
  const [aggregate, setAggregate] = useState("Invoice");
  const [subject, setSubject] = useState("");
  const [result, setResult] = useState<Sent | null>(null);
  const chosen = relationship === "" ? (props.relationships[0]?.id ?? "") : relationship;
  const business = tenant !== "" && tenant !== personal;
  const ns = namespace.trim();
  const agg = aggregate.trim();
  const records = useLoad(
    () =>
      ns === "" || agg === ""
        ? Promise.resolve<Page<RecordItem>>({ items: [], next: null })
        : api<Page<RecordItem>>("GET", business ? `/api/business/${encodeURIComponent(ns)}/${encodeURIComponent(agg)}?identity=${encodeURIComponent(tenant)}&limit=100` : `/api/personal/${encodeURIComponent(ns)}/${encodeURIComponent(agg)}?limit=100`),
    [ns, agg, tenant, business],
  );
  const send = (event: Event) => {
    event.preventDefault();
    setResult(null);
    const body = { relationship: chosen, namespace: ns, subject: subject.trim(), ...(agg === "" ? {} : { aggregate: agg }), ...(business ? { tenant } : {}) };
    void submit.run(async () => {
      setResult(await api<Sent>("POST", "/api/exchange/documents", body));
      props.onSent();
    });
  };
  const to = props.relationships.find((r) => r.id === chosen);
  return (
    <section aria-labelledby="exch-send-title">
      <h2 id="exch-send-title">Send a record</h2>
      {props.relationships.length === 0 ? (
        <Empty>Pin another person's node first.</Empty>
      ) : (
        <form ref={form} class="stack exch-form" onSubmit={send}>
          <div class="exch-row">
            <Field label="To" error={submit.field("relationship")}>
              {(id, describedBy) => (
                <select id={id} data-field="relationship" value={chosen} aria-describedby={describedBy} onChange={(e) => setRelationship(e.currentTarget.value)}>
                  {props.relationships.map((r) => (
                    <option key={r.id} value={r.id}>
                      {r.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="From the identity" error={submit.field("tenant")}>
              {(id, describedBy) => (
                <select id={id} data-field="tenant" value={tenant === "" ? personal : tenant} aria-describedby={describedBy} onChange={(e) => setTenant(e.currentTarget.value)}>
                  {ids.length === 0 ? <option value="">Personal</option> : null}
                  {ids.map((i) => (
                    <option key={i.handle} value={i.handle}>
                      {i.kind === "personal" ? `Personal (${i.handle})` : (i.name ?? i.handle)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </div>
          <div class="exch-row">
            <Field label="Contract" error={submit.field("namespace")}>
              {(id, describedBy) => <input id={id} data-field="namespace" required autoComplete="off" spellcheck={false} value={namespace} aria-describedby={describedBy} aria-invalid={submit.field("namespace") ? "true" : undefined} onInput={(e) => setNamespace(e.currentTarget.value)} />}
            </Field>
            <Field label="Aggregate" hint="Empty when the contract has one." error={submit.field("aggregate")}>
              {(id, describedBy) => <input id={id} data-field="aggregate" autoComplete="off" spellcheck={false} value={aggregate} aria-describedby={describedBy} aria-invalid={submit.field("aggregate") ? "true" : undefined} onInput={(e) => setAggregate(e.currentTarget.value)} />}
            </Field>
          </div>
          <Field label="Record" hint={records.error ?? (records.data !== null && records.data.items.length > 0 ? `${records.data.items.length} to choose from, or type its subject.` : "Its subject, e.g. inv-1.")} error={submit.field("subject")}>
            {(id, describedBy) => (
              <>
                <input id={id} data-field="subject" list={`${id}-records`} required autoComplete="off" spellcheck={false} value={subject} aria-describedby={describedBy} aria-invalid={submit.field("subject") ? "true" : undefined} onInput={(e) => setSubject(e.currentTarget.value)} />
                <datalist id={`${id}-records`}>
                  {(records.data?.items ?? []).map((r) => (
                    <option key={r.subject} value={r.subject}>
                      {summary(r.state)}
                    </option>
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <ErrorNote error={submit.error} />
          {result === null ? null : result.status === "delivered" ? (
            <Status>
              Delivered to {to?.name ?? "them"} (<a href={href("exchange", "out", result.id)}>{result.id}</a>).
            </Status>
          ) : (
            <p class="error" role="alert">
              Not delivered: {result.error ?? "the other node did not take it"}. It is kept, to try again below.
            </p>
          )}
          <div class="buttons">
            <Button type="submit" kind="primary" busy={submit.busy}>
              Sign and send
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}

/** A few words of a record's state for the record list. */
function summary(state: Record<string, unknown>): string {
  const parts = ["supplier", "number", "title", "name", "status"].map((k) => state[k]).filter((v): v is string => typeof v === "string" && v !== "");
  return parts.join(" · ");
}

const STATUS_LABEL: Record<DocumentItem["status"], string> = { received: "received", delivered: "delivered", failed: "failed" };

function Documents(props: { items: readonly DocumentItem[]; loaded: boolean; error: string | null; relationships: readonly Relationship[]; box: "" | Box; onBox: (box: "" | Box) => void; onChanged: () => void; onOlder: (() => void) | null }) {
  const retrying = useSubmission([]);
  const [retried, setRetried] = useState<string | null>(null);
  const names = useMemo(() => new Map(props.relationships.map((r) => [r.did, r.name])), [props.relationships]);
  const retry = (d: DocumentItem) => {
    setRetried(null);
    void retrying.run(async () => {
      const answer = await api<Sent>("POST", `/api/exchange/documents/${encodeURIComponent(d.id)}/retry`, {});
      setRetried(answer.status === "delivered" ? `${d.subject} is delivered.` : `${d.subject} failed again: ${answer.error ?? "no reason given"}.`);
      props.onChanged();
    });
  };
  return (
    <section aria-labelledby="exch-docs-title">
      <h2 id="exch-docs-title">Documents</h2>
      <div class="inline-form exch-filter">
        <Field label="Show">
          {(id) => (
            <select id={id} value={props.box} onChange={(e) => props.onBox(e.currentTarget.value === "in" ? "in" : e.currentTarget.value === "out" ? "out" : "")}>
              <option value="">Sent and received</option>
              <option value="in">Received</option>
              <option value="out">Sent</option>
            </select>
          )}
        </Field>
        <Button onClick={props.onChanged}>Refresh</Button>
      </div>
      <ErrorNote error={props.error ?? retrying.error} />
      {retried === null ? null : <Status>{retried}</Status>}
      {props.loaded && props.items.length === 0 ? <Empty>No document yet.</Empty> : null}
      <ul class="cards" aria-labelledby="exch-docs-title">
        {props.items.map((d) => {
          const who = names.get(d.peer);
          return (
            <li key={`${d.box}/${d.id}`} class="card exch-doc" data-status={d.status}>
              <div class="exch-doc-main">
                <div>
                  <a href={href("exchange", d.box, d.id)}>
                    {d.aggregate} {d.subject}
                  </a>{" "}
                  <span class={`badge exch-${d.status}`}>{STATUS_LABEL[d.status]}</span>
                </div>
                <div class="muted">
                  {d.box === "in" ? "from " : "to "}
                  {who ?? <Did did={d.peer} />} · {d.namespace} · sent <Time when={d.sentAt} />
                  {d.box === "out" ? `, ${d.attempts} ${d.attempts === 1 ? "attempt" : "attempts"}` : ""}
                </div>
                {d.error === null ? null : <p class="exch-error">{d.error}</p>}
              </div>
              {d.status === "failed" ? (
                <Button busy={retrying.busy} aria-label={`Try again to send ${d.subject}`} onClick={() => retry(d)}>
                  Try again
                </Button>
              ) : null}
            </li>
          );
        })}
      </ul>
      {props.onOlder === null ? null : <Button onClick={props.onOlder}>Show older documents</Button>}
    </section>
  );
}

function DocumentPage(props: { box: Box; id: string }) {
  const doc = useLoad(() => api<DocumentView>("GET", `/api/exchange/documents/${encodeURIComponent(props.id)}?box=${props.box}`), [props.id, props.box]);
  const relationships = useLoad(() => allPages<Relationship>("/api/exchange/relationships"));
  const d = doc.data;
  const who = d === null ? null : (relationships.data?.items.find((r) => r.did === d.peer)?.name ?? null);
  const title = props.box === "in" ? `Received${who === null ? "" : ` from ${who}`}` : `Sent${who === null ? "" : ` to ${who}`}`;
  const receiptJws = typeof d?.document?.receipt === "string" ? d.document.receipt : null;
  const receipt = receiptJws === null ? null : jwsPayload(receiptJws);
  const state = d?.document?.state ?? null;
  return (
    <>
      <PageHead title={d === null ? "Document" : `${title}: ${d.aggregate} ${d.subject}`}>
        <p>
          <a href={href("exchange")}>All documents</a>
        </p>
      </PageHead>
      <ErrorNote error={doc.error} />
      {d === null ? null : (
        <>
          <section aria-labelledby="exch-check-title">
            <h2 id="exch-check-title">Signature</h2>
            <p class={d.verified ? "exch-verified" : "exch-unverified"} data-verified={d.verified ? "true" : "false"}>
              {d.verified
                ? props.box === "in"
                  ? "Verified: signed with the key of the did:key you pinned, and the receipt it carries is signed by the node that wrote the record."
                  : "Verified: signed with your key, and the receipt it carries is signed by the node that wrote the record."
                : "Does not verify now: its sender is no longer pinned, or the signature or its receipt does not hold."}
            </p>
            <dl class="exch-facts">
              <div>
                <dt>From</dt>
                <dd>{typeof d.document?.from === "string" ? <Did did={d.document.from} /> : "—"}</dd>
              </div>
              <div>
                <dt>To</dt>
                <dd>{typeof d.document?.to === "string" ? <Did did={d.document.to} /> : "—"}</dd>
              </div>
              <div>
                <dt>Record</dt>
                <dd>
                  {d.namespace} · {d.aggregate} · <code class="wrap">{d.subject}</code>
                </dd>
              </div>
              <div>
                <dt>State</dt>
                <dd>
                  <span class={`badge exch-${d.status}`}>{STATUS_LABEL[d.status]}</span>
                  {d.box === "out" ? ` after ${d.attempts} ${d.attempts === 1 ? "attempt" : "attempts"}` : ""}
                  {d.error === null ? "" : `: ${d.error}`}
                </dd>
              </div>
              <div>
                <dt>Signed</dt>
                <dd>
                  <Time when={d.sentAt} />
                </dd>
              </div>
              <div>
                <dt>{d.box === "in" ? "Received" : "Kept"}</dt>
                <dd>
                  <Time when={d.storedAt} />
                </dd>
              </div>
            </dl>
          </section>
          <section aria-labelledby="exch-state-title">
            <h2 id="exch-state-title">The record</h2>
            {state === null ? (
              <Empty>The document carries no state.</Empty>
            ) : (
              <dl class="exch-state">
                {Object.entries(state).map(([key, value]) => (
                  <div key={key}>
                    <dt>{key}</dt>
                    <dd>{shown(value)}</dd>
                  </div>
                ))}
              </dl>
            )}
          </section>
          <section aria-labelledby="exch-receipt-title">
            <h2 id="exch-receipt-title">The receipt it carries</h2>
            {receipt === null ? (
              <Empty>No receipt could be read.</Empty>
            ) : (
              <dl class="exch-facts exch-receipt">
                {(["action", "outcome", "signer", "tenant", "namespace", "subject", "seq", "committedAt", "node"] as const).map((key) => (
                  <div key={key}>
                    <dt>{RECEIPT_LABEL[key]}</dt>
                    <dd>{key === "committedAt" && typeof receipt[key] === "string" ? <Time when={receipt[key] as string} /> : shown(receipt[key])}</dd>
                  </div>
                ))}
              </dl>
            )}
            <details class="exch-raw">
              <summary>The signed document (compact JWS)</summary>
              <code class="wrap">{d.jws}</code>
            </details>
          </section>
        </>
      )}
    </>
  );
}

const RECEIPT_LABEL = { action: "Action", outcome: "Outcome", signer: "Signed by", tenant: "Identity", namespace: "Contract", subject: "Subject", seq: "Sequence", committedAt: "Committed", node: "Node" } as const;

