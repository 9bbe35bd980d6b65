/**
 * @module Mail: a new message (`POST /api/comms/compose {account, to, cc, bcc, subject, text}`). The
 * address fields take addresses separated by commas (`Name <a@example.org>` too); each wrong one is
 * named next to its field as the node names it (`#/to/1`). The node answers an approval to decide or
 * the message queued (mail-send.tsx).
 */
import { useState } from "preact/hooks";
import { api, Refusal } from "../lib/api.ts";
import { useBusy } from "../lib/hooks.ts";
import { Button, ErrorNote, Field } from "./ui.tsx";
import { type SendAnswer, SendResult } from "./mail-send.tsx";

export interface MailAccount {
  readonly id: string;
  readonly from: string;
  readonly imap: unknown;
  readonly reading: boolean;
}

/** `text`'s addresses: split at commas and semicolons outside quotes and angle brackets. */
function splitAddresses(text: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  let angle = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (ch === "<" && !quoted) angle = true;
    else if (ch === ">" && !quoted) angle = false;
    if ((ch === "," || ch === ";" || ch === "\n") && !quoted && !angle) {
      out.push(current);
      current = "";
    } else current += ch;
  }
  out.push(current);
  return out.map((a) => a.trim()).filter((a) => a !== "");
}

type FieldName = "account" | "to" | "cc" | "bcc" | "subject" | "text";

/** The node's field errors by field: `#/to/1` is the second address of To. */
function fieldErrors(failure: unknown, lists: Record<"to" | "cc" | "bcc", string[]>): Partial<Record<FieldName, string>> {
  if (!(failure instanceof Refusal)) return {};
  const out: Partial<Record<FieldName, string>> = {};
  for (const e of failure.body?.errors ?? []) {
    const [, field, index] = /^#\/(account|to|cc|bcc|subject|text|html)(?:\/(\d+))?$/.exec(e.pointer ?? "") ?? [];
    if (field === undefined) continue;
    const name = (field === "html" ? "text" : field) as FieldName;
    const which = index !== undefined && name in lists ? lists[name as "to" | "cc" | "bcc"][Number(index)] : undefined;
    const line = which === undefined ? (e.detail ?? "") : `"${which}": ${e.detail ?? ""}`;
    out[name] = out[name] === undefined ? line : `${out[name]}; ${line}`;
  }
  return out;
}

export function Compose(props: { accounts: readonly MailAccount[]; to: string; back: string; onSent: () => void }) {
  const [account, setAccount] = useState(props.accounts[0]?.id ?? "");
  const [to, setTo] = useState(props.to);
  const [cc, setCc] = useState("");
  const [bcc, setBcc] = useState("");
  const [subject, setSubject] = useState("");
  const [text, setText] = useState("");
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [answer, setAnswer] = useState<SendAnswer | null>(null);
  const [run, busy, error] = useBusy();

  const submit = (event: Event) => {
    event.preventDefault();
    setErrors({});
    setAnswer(null);
    const lists = { to: splitAddresses(to), cc: splitAddresses(cc), bcc: splitAddresses(bcc) };
    const body = { account, to: lists.to, ...(lists.cc.length === 0 ? {} : { cc: lists.cc }), ...(lists.bcc.length === 0 ? {} : { bcc: lists.bcc }), subject, text };
    void run(async () => {
      try {
        setAnswer(await api<SendAnswer>("POST", "/api/comms/compose", body));
        setTo("");
        setCc("");
        setBcc("");
        setSubject("");
        setText("");
        props.onSent();
      } catch (failure) {
        setErrors(fieldErrors(failure, lists));
        throw failure;
      }
    });
  };

  return (
    <section class="mail-compose" aria-labelledby="mail-compose-title">
      <p>
        <a href={props.back}>← All mail</a>
      </p>
      <h2 id="mail-compose-title">New message</h2>
      <form class="stack" onSubmit={submit} noValidate>
        <Field label="From" error={errors.account}>
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={account} onChange={(e) => setAccount(e.currentTarget.value)}>
              {props.accounts.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.from === "" ? a.id : `${a.from} (${a.id})`}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="To" hint="Addresses separated by commas: a@example.org, Name <b@example.org>" error={errors.to}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} aria-invalid={errors.to ? "true" : undefined} type="text" autoComplete="email" value={to} onInput={(e) => setTo(e.currentTarget.value)} />}
        </Field>
        <div class="mail-compose-row">
          <Field label="Cc" error={errors.cc}>
            {(id, describedBy) => <input id={id} aria-describedby={describedBy} aria-invalid={errors.cc ? "true" : undefined} type="text" value={cc} onInput={(e) => setCc(e.currentTarget.value)} />}
          </Field>
          <Field label="Bcc" error={errors.bcc}>
            {(id, describedBy) => <input id={id} aria-describedby={describedBy} aria-invalid={errors.bcc ? "true" : undefined} type="text" value={bcc} onInput={(e) => setBcc(e.currentTarget.value)} />}
          </Field>
        </div>
        <Field label="Subject" error={errors.subject}>
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} aria-invalid={errors.subject ? "true" : undefined} type="text" maxLength={500} value={subject} onInput={(e) => setSubject(e.currentTarget.value)} />}
        </Field>
        <Field label="Message" error={errors.text} hint="Plain text; any signature you set for the account is added.">
          {(id, describedBy) => <textarea id={id} aria-describedby={describedBy} aria-invalid={errors.text ? "true" : undefined} rows={10} value={text} onInput={(e) => setText(e.currentTarget.value)} />}
        </Field>
        <div class="buttons">
          <Button type="submit" kind="primary" busy={busy}>
            Send
          </Button>
        </div>
      </form>
      <ErrorNote error={error} />
      {answer === null ? null : <SendResult answer={answer} level={3} onDecided={props.onSent} />}
    </section>
  );
}
