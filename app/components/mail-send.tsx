/**
 * @module Mail: what the node answered when a message was sent (`POST /api/comms/compose`, `…/reply`),
 * shared by the reply and the new message. While the comms settings ask first, the answer is an
 * approval of kind `email`: its card shows the exact message (the approval's payload) and decides it
 * (`POST /api/approvals/{id}`, through the step-up prompt when the node asks for one). Queued, the
 * message is an outbox effect whose state (`GET /api/outbox/{effect}`) is shown until it is done or
 * dead. The answer types are declared here (the app imports nothing of the node's).
 */
import { useEffect, useId, useState } from "preact/hooks";
import { api, messageOf } from "../lib/api.ts";
import { useBusy } from "../lib/hooks.ts";
import { withStepUp } from "../lib/stepup.ts";
import { Button, ErrorNote, Time } from "./ui.tsx";

/** A message as `/api/comms` answers it. */
export interface MailMessage {
  readonly id: string;
  readonly account: string;
  readonly messageId: string;
  readonly thread: string;
  readonly direction: "received" | "sent";
  readonly from: { readonly address: string; readonly name: string };
  readonly replyTo: string | null;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly subject: string;
  readonly date: string | null;
  readonly text: string;
  readonly truncated: boolean;
  readonly snippet: string;
  readonly seen: boolean;
  readonly held: boolean;
  readonly effect: string | null;
}

/** An approval as `/api/approvals` answers it. */
export interface MailApproval {
  readonly id: string;
  readonly kind: string;
  readonly summary: string;
  readonly status: string;
  readonly sensitive: boolean;
  readonly requestedAt?: string | null;
  readonly expiresAt?: string | null;
  readonly outcome: string | null;
}

/** What sending answers: an approval to decide, or the effect queued and the message recorded. */
export type SendAnswer = { readonly approval: MailApproval } | { readonly effect: string; readonly message: MailMessage | null };

/** The message an email approval holds (its payload), as far as it is shown. */
interface Payload {
  readonly from?: string;
  readonly to?: readonly string[];
  readonly cc?: readonly string[];
  readonly bcc?: readonly string[];
  readonly subject?: string;
  readonly text?: string;
}

/** The node's answer to a send, in words: the approval to decide, or the message's way out. */
export function SendResult(props: { answer: SendAnswer; level: 3 | 4; onDecided?: () => void }) {
  const { answer } = props;
  if ("approval" in answer) return <ApprovalCard approval={answer.approval} level={props.level} onDecided={props.onDecided} />;
  return (
    <div class="mail-result card" role="status">
      <p>
        Queued to send as <code>{answer.effect}</code>.
      </p>
      <EffectState effect={answer.effect} />
    </div>
  );
}

/** An email approval: the exact message, approve (sent once) or not. */
export function ApprovalCard(props: { approval: MailApproval; level: 3 | 4; onDecided?: (() => void) | undefined }) {
  const [approval, setApproval] = useState(props.approval);
  const [payload, setPayload] = useState<Payload | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [effect, setEffect] = useState<string | null>(null);
  const [run, busy, error] = useBusy();
  const titleId = useId();
  useEffect(() => {
    api<{ payload?: string }>("GET", `/api/approvals/${encodeURIComponent(approval.id)}`).then(
      (full) => {
        try {
          const value = JSON.parse(full.payload ?? "null") as Payload | null;
          setPayload(value !== null && typeof value === "object" ? value : null);
        } catch {
          setPayload(null);
        }
      },
      (failure: unknown) => setLoadError(messageOf(failure)),
    );
  }, [approval.id]);

  const decide = (approve: boolean) =>
    void run(async () => {
      const answer = await withStepUp(() => api<{ approval?: MailApproval; effect?: string; denied?: boolean }>("POST", `/api/approvals/${encodeURIComponent(approval.id)}`, { approve }));
      if (answer.approval !== undefined) setApproval(answer.approval);
      else setApproval({ ...approval, status: approve ? "approved" : "denied" });
      if (typeof answer.effect === "string") setEffect(answer.effect);
      props.onDecided?.();
    });

  const Heading = props.level === 3 ? "h3" : "h4";
  const waiting = approval.status === "waiting";
  return (
    <section class="mail-approval card" aria-labelledby={titleId} data-approval={approval.id}>
      <Heading id={titleId}>{waiting ? "Waiting for your approval" : approval.status === "denied" ? "Not sent" : "Approved"}</Heading>
      <p class="muted wrap">{approval.summary}</p>
      <ErrorNote error={loadError} />
      {payload === null ? null : (
        <dl class="mail-fields">
          <Row name="From" value={payload.from ?? ""} />
          <Row name="To" value={(payload.to ?? []).join(", ")} />
          <Row name="Cc" value={(payload.cc ?? []).join(", ")} />
          <Row name="Bcc" value={(payload.bcc ?? []).join(", ")} />
          <Row name="Subject" value={payload.subject ?? ""} />
        </dl>
      )}
      {payload?.text === undefined ? null : (
        <div class="mail-text" tabIndex={0} role="region" aria-label="The message to send">
          {payload.text}
        </div>
      )}
      {waiting && approval.sensitive ? <p class="muted">The node marks this one sensitive: it may ask you to confirm it's you with your passkey.</p> : null}
      {waiting && approval.expiresAt ? (
        <p class="muted">
          Expires <Time when={approval.expiresAt} />.
        </p>
      ) : null}
      {waiting ? (
        <div class="buttons">
          <Button kind="primary" busy={busy} onClick={() => decide(true)}>
            Approve and send
          </Button>
          <Button kind="danger" busy={busy} onClick={() => decide(false)}>
            Don't send
          </Button>
        </div>
      ) : (
        <div role="status">
          <p>{approval.status === "denied" ? "You decided not to send it: nothing was sent." : `The node says: ${approval.outcome ?? approval.status}.`}</p>
          {effect === null ? null : <EffectState effect={effect} />}
        </div>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

function Row(props: { name: string; value: string }) {
  if (props.value === "") return null;
  return (
    <>
      <dt>{props.name}</dt>
      <dd class="wrap">{props.value}</dd>
    </>
  );
}

interface Effect {
  readonly id: string;
  readonly state: "pending" | "running" | "done" | "dead" | string;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly doneAt: string | null;
  readonly nextAttemptAt: string | null;
}

/** How often an effect still on its way is looked at again: 1 s, doubling to 16 s, then on request. */
const CHECKS = [1000, 2000, 4000, 8000, 16000];

/** A queued message's outbox state: on its way, sent, or given up (with the server's reason). */
export function EffectState(props: { effect: string }) {
  const [effect, setEffect] = useState<Effect | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = (n: number) => {
      api<Effect>("GET", `/api/outbox/${encodeURIComponent(props.effect)}`).then(
        (value) => {
          if (stopped) return;
          setEffect(value);
          setError(null);
          const delay = CHECKS[n];
          if ((value.state === "pending" || value.state === "running") && delay !== undefined) timer = setTimeout(() => check(n + 1), delay);
        },
        (failure: unknown) => {
          if (!stopped) setError(messageOf(failure));
        },
      );
    };
    check(0);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [props.effect, round]);
  if (error !== null) return <ErrorNote error={`Its state could not be read: ${error}`} />;
  if (effect === null) return null;
  const onItsWay = effect.state === "pending" || effect.state === "running";
  return (
    <p class={`mail-effect ${effect.state}`} data-effect-state={effect.state}>
      {effect.state === "done" ? (
        <>
          Sent <Time when={effect.doneAt} />.
        </>
      ) : effect.state === "dead" ? (
        `Not sent: given up after ${effect.attempts} attempts${effect.lastError === null ? "" : ` (${effect.lastError})`}.`
      ) : (
        `On its way (${effect.state}${effect.attempts > 0 ? `, ${effect.attempts} attempts` : ""}${effect.lastError === null ? "" : `: ${effect.lastError}`}).`
      )}{" "}
      {onItsWay ? (
        <button type="button" class="link" onClick={() => setRound((r) => r + 1)}>
          Check again
        </button>
      ) : null}
    </p>
  );
}
