/**
 * @module What the assistant did in one turn, shown inline in the conversation: each tool call
 * (which tool, its arguments, its result), an approval waiting for the person (the exact command it
 * would sign — namespace, action, subject, arguments — and the state its dry run said it would
 * leave, with Approve / Deny and edited arguments), what came of a decided one, a question the
 * assistant asked (answered here), the reply as it streams in, and the turn's state (Stop, Retry).
 */
import { useEffect, useId, useState } from "preact/hooks";
import { api, messageOf } from "../lib/api.ts";
import { useBusy } from "../lib/hooks.ts";
import { withStepUp } from "../lib/stepup.ts";
import { Button, ErrorNote, Field, JsonBlock, Time } from "./ui.tsx";

export type TurnStatus = "queued" | "running" | "waiting-approval" | "waiting-ask" | "done" | "failed" | "cancelled";

/** A turn as `GET /api/turns/{id}` answers it. */
export interface TurnDetail {
  readonly id: string;
  readonly status: TurnStatus;
  readonly conversation: string;
  readonly message: string;
  readonly reply: string | null;
  readonly origin: string;
  readonly model: string | null;
  readonly error: { readonly kind: string; readonly message: string } | null;
  readonly steps: readonly Step[];
  readonly approvals: readonly DecidedApproval[];
}

export type Step =
  | { readonly n: number; readonly kind: "model"; readonly text: string; readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly argumentsJson: string }[] }
  | { readonly n: number; readonly kind: "tool"; readonly toolCallId: string; readonly name: string; readonly content: string; readonly isError: boolean; readonly approval?: string };

/** An approval of the turn as the turn's detail shows it (the activity view). */
export interface DecidedApproval {
  readonly id: string;
  readonly kind: string;
  readonly status: string;
  readonly summary: string;
  readonly tool?: string;
  readonly subject?: string;
  readonly args?: Record<string, unknown>;
  readonly editedArgs?: Record<string, unknown> | null;
  readonly dryRun?: Record<string, unknown> | null;
  readonly outcome: string | null;
  readonly decidedAt: string | null;
}

/** An approval as `GET /api/approvals` lists it. */
export interface ApprovalItem {
  readonly id: string;
  readonly kind: string;
  readonly summary: string;
  readonly status: string;
  readonly sensitive: boolean;
  readonly turn: string | null;
  readonly expiresAt: string | null;
  readonly requestedAt: string | null;
}

/** The command an assistant's approval holds (its payload). */
interface ToolCommand {
  readonly tool: string;
  readonly kind: "action" | "query";
  readonly namespace: string;
  readonly member: string;
  readonly subject: string;
  readonly args: Record<string, unknown>;
  readonly dryRun: Record<string, unknown> | null;
  readonly server?: string;
}

/** A receipt, as much of it as the page shows. */
export interface Receipt {
  readonly seq: number;
  readonly namespace: string;
  readonly action: string;
  readonly subject: string;
  readonly outcome: "accepted" | "refused";
  readonly reason: { readonly message?: string } | null;
  readonly state: Record<string, unknown> | null;
  readonly committedAt: string;
}

/** An ask as `GET /api/asks` answers it. */
export interface Ask {
  readonly id: string;
  readonly turn: string;
  readonly question: string;
  readonly options: readonly { readonly label: string; readonly description: string }[];
  readonly multiple: boolean;
  readonly allowOther: boolean;
  readonly status: string;
  readonly expiresAt: string | null;
  readonly answer: { readonly choices: readonly number[]; readonly labels: readonly string[]; readonly text: string } | null;
}

/** What a decision answered: the committed command's receipt (approved), or a denial. */
export interface Decision {
  readonly approved: boolean;
  readonly receipt: Receipt | null;
  /** The turn that proposed it. */
  readonly turn: string | null;
}

const ACTIVE: ReadonlySet<string> = new Set(["queued", "running", "waiting-approval", "waiting-ask"]);

const STATUS_WORDS: Readonly<Record<TurnStatus, string>> = {
  queued: "Queued",
  running: "Working…",
  "waiting-approval": "Waiting for your approval",
  "waiting-ask": "Waiting for your answer",
  done: "Done",
  failed: "Failed",
  cancelled: "Stopped",
};

function statusWords(status: string): string {
  return STATUS_WORDS[status as TurnStatus] ?? status;
}

/** The tool call's arguments as a value (the model's JSON, or its text when it is not JSON). */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** JSON text pretty-printed when it is JSON. */
function pretty(text: string): string {
  const value = parsed(text);
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

export interface TurnBlockProps {
  readonly turn: string;
  readonly detail: TurnDetail | null;
  /** The latest status a frame told, else the detail's. */
  readonly status: TurnStatus | null;
  /** The reply's text streamed so far (shown while the reply is not yet in the conversation). */
  readonly streaming: string | null;
  readonly approvals: readonly ApprovalItem[];
  readonly asks: readonly Ask[];
  readonly decisions: ReadonlyMap<string, Decision>;
  readonly answered: ReadonlyMap<string, Ask>;
  readonly onDecided: (approval: string, decision: Decision) => void;
  readonly onAnswered: (ask: Ask) => void;
  readonly onChanged: () => void;
  /** The failed turn was sent again. */
  readonly onRetried: () => void;
}

/** The turn's tool calls, approvals, asks, streaming reply and state. */
export function TurnBlock(props: TurnBlockProps) {
  const { detail } = props;
  const status = props.status ?? detail?.status ?? null;
  const [run, busy, error] = useBusy();
  const steps = detail?.steps ?? [];
  const results = new Map<string, Extract<Step, { kind: "tool" }>>();
  for (const step of steps) if (step.kind === "tool") results.set(step.toolCallId, step);
  const calls = steps.flatMap((step) => (step.kind === "model" ? step.toolCalls : []));
  const waiting = props.approvals.filter((a) => a.turn === props.turn && a.status === "waiting");
  const decided = (detail?.approvals ?? []).filter((a) => a.status !== "waiting" && !waiting.some((w) => w.id === a.id));
  const asks = props.asks.filter((a) => a.turn === props.turn && a.status === "open");
  const active = status !== null && ACTIVE.has(status);
  const nothing = calls.length === 0 && waiting.length === 0 && decided.length === 0 && asks.length === 0 && props.streaming === null && !active && status !== "failed" && status !== "cancelled";
  if (nothing) return null;

  return (
    <div class="chat-turn" data-turn={props.turn} data-status={status ?? undefined}>
      {calls.map((call) => {
        const result = results.get(call.id);
        if (call.name === "ask_person") return <AskCall key={call.id} args={call.argumentsJson} result={result?.content ?? null} />;
        return <ToolCallView key={call.id} name={call.name} args={call.argumentsJson} result={result ?? null} />;
      })}
      {waiting.map((approval) => (
        <ApprovalCard key={approval.id} approval={approval} onDecided={props.onDecided} />
      ))}
      {decided.map((approval) => (
        <DecidedCard key={approval.id} approval={approval} decision={props.decisions.get(approval.id) ?? null} />
      ))}
      {[...props.decisions.entries()]
        .filter(([id, decision]) => decision.turn === props.turn && !decided.some((a) => a.id === id) && !waiting.some((a) => a.id === id))
        .map(([id, decision]) => (
          <CommittedView key={id} decision={decision} />
        ))}
      {asks.map((ask) => (
        <AskCard key={ask.id} ask={ask} onAnswered={props.onAnswered} />
      ))}
      {[...props.answered.values()]
        .filter((ask) => ask.turn === props.turn && !calls.some((c) => c.name === "ask_person" && results.has(c.id)))
        .map((ask) => (
          <p key={ask.id} class="chat-answered">
            You answered “{ask.question}”: <strong>{[...(ask.answer?.labels ?? []), ask.answer?.text ?? ""].filter((x) => x !== "").join(", ")}</strong>
          </p>
        ))}
      {props.streaming === null ? null : (
        <div class="chat-msg assistant streaming" aria-busy={active ? "true" : "false"} data-streaming={props.turn}>
          <div class="chat-who">Assistant</div>
          <div class="chat-text">{props.streaming}</div>
        </div>
      )}
      {status === null || status === "done" ? null : (
        <div class={`chat-turn-state ${status}`}>
          <span class="chat-state-word">
            {statusWords(status)}
            {status === "failed" && detail?.error ? <span class="chat-error-text">: {detail.error.message}</span> : null}
          </span>
          {active ? (
            <Button kind="danger" busy={busy} onClick={() => void run(() => api("POST", "/api/cancel", { turn: props.turn }).then(props.onChanged))}>
              Stop
            </Button>
          ) : null}
          {status === "failed" ? (
            <Button busy={busy} onClick={() => void run(() => api("POST", `/api/turns/${encodeURIComponent(props.turn)}/retry`, {}).then(props.onRetried))}>
              Retry
            </Button>
          ) : null}
        </div>
      )}
      <ErrorNote error={error} />
    </div>
  );
}

/** A tool call: the tool, its arguments, and what it answered. */
function ToolCallView(props: { name: string; args: string; result: Extract<Step, { kind: "tool" }> | null }) {
  return (
    <div class="chat-tool card">
      <div class="chat-tool-head">
        <span class="chat-tool-label">Used</span> <code>{props.name}</code>
        {props.result === null ? <span class="badge">waiting</span> : props.result.isError ? <span class="badge refused">error</span> : <span class="badge">done</span>}
      </div>
      <details>
        <summary>Arguments and result</summary>
        <div class="chat-kv">
          <div class="chat-k">Arguments</div>
          <pre class="json" tabIndex={0} aria-label={`Arguments of ${props.name}`}>
            {pretty(props.args)}
          </pre>
          {props.result === null ? null : (
            <>
              <div class="chat-k">Result</div>
              <pre class="json" tabIndex={0} aria-label={`Result of ${props.name}`}>
                {pretty(props.result.content)}
              </pre>
            </>
          )}
        </div>
      </details>
    </div>
  );
}

/** The assistant's question (the `ask_person` tool), and once answered, the answer. */
function AskCall(props: { args: string; result: string | null }) {
  const value = parsed(props.args) as { question?: unknown } | string;
  const question = typeof value === "object" && value !== null && typeof value.question === "string" ? value.question : "a question";
  if (props.result === null) return null;
  const answer = parsed(props.result) as { choices?: unknown; text?: unknown } | string;
  const words = typeof answer === "object" && answer !== null ? [...(Array.isArray(answer.choices) ? answer.choices.map(String) : []), typeof answer.text === "string" ? answer.text : ""].filter((x) => x !== "").join(", ") : String(answer);
  return (
    <p class="chat-answered">
      The assistant asked “{question}” — <strong>{words}</strong>
    </p>
  );
}

/** A waiting approval: the exact command, the dry run's state, and the decision. */
function ApprovalCard(props: { approval: ApprovalItem; onDecided: (approval: string, decision: Decision) => void }) {
  const { approval } = props;
  const [command, setCommand] = useState<ToolCommand | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [edited, setEdited] = useState("");
  const [editError, setEditError] = useState<string | null>(null);
  const [run, busy, error] = useBusy();
  const titleId = useId();

  useEffect(() => {
    api<{ payload?: string }>("GET", `/api/approvals/${encodeURIComponent(approval.id)}`).then(
      (full) => {
        try {
          const value = JSON.parse(full.payload ?? "null") as ToolCommand | null;
          if (value !== null && typeof value === "object" && typeof value.namespace === "string") {
            setCommand(value);
            setEdited(JSON.stringify(value.args, null, 2));
          }
        } catch {
          setCommand(null);
        }
      },
      (failure: unknown) => setLoadError(messageOf(failure)),
    );
  }, [approval.id]);

  const decide = (approve: boolean, editedArgs?: Record<string, unknown>) =>
    void run(async () => {
      const body = approve ? { approve: true, ...(editedArgs === undefined ? {} : { editedArgs }) } : { approve: false };
      const answer = await withStepUp(() => api<{ receipt?: Receipt; denied?: boolean }>("POST", `/api/approvals/${encodeURIComponent(approval.id)}`, body));
      props.onDecided(approval.id, { approved: approve, receipt: approve ? (answer.receipt ?? null) : null, turn: approval.turn });
    });

  const approveEdited = () => {
    let value: unknown;
    try {
      value = JSON.parse(edited);
    } catch (failure) {
      setEditError(`The arguments are not JSON: ${messageOf(failure)}`);
      return;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      setEditError("The arguments are a JSON object.");
      return;
    }
    setEditError(null);
    decide(true, value as Record<string, unknown>);
  };

  return (
    <section class="chat-approval card" aria-labelledby={titleId} data-approval={approval.id}>
      <h3 id={titleId}>Approve this change?</h3>
      <p class="chat-summary muted">{approval.summary}</p>
      <ErrorNote error={loadError} />
      {command === null ? null : (
        <>
          <p class="muted">The assistant would send this command, signed as you:</p>
          <dl class="chat-command">
            <dt>Namespace</dt>
            <dd>
              <code>{command.namespace}</code>
            </dd>
            <dt>{command.kind === "query" ? "Query" : "Action"}</dt>
            <dd>
              <code>{command.member}</code>
            </dd>
            {command.subject === "" ? null : (
              <>
                <dt>Subject</dt>
                <dd>
                  <code class="wrap">{command.subject}</code>
                </dd>
              </>
            )}
            {command.server === undefined ? null : (
              <>
                <dt>Tool server</dt>
                <dd>
                  <code>{command.server}</code>
                </dd>
              </>
            )}
          </dl>
          <div class="chat-k">Arguments</div>
          <JsonBlock value={command.args} label="The command's arguments" />
          {command.dryRun === null ? null : (
            <>
              <div class="chat-k">The record afterwards (dry run)</div>
              <JsonBlock value={command.dryRun} label="The record's state after the command (dry run)" />
            </>
          )}
        </>
      )}
      {approval.expiresAt === null ? null : (
        <p class="muted">
          Expires <Time when={approval.expiresAt} />.
        </p>
      )}
      {editing && command !== null ? (
        <div class="stack">
          <Field label="Arguments to approve (JSON)" hint="Fields you change replace the proposed ones; the node dry-runs them before anything is decided." error={editError}>
            {(id, describedBy) => (
              <textarea
                id={id}
                aria-describedby={describedBy}
                class="chat-code"
                rows={6}
                value={edited}
                onInput={(e) => {
                  setEdited(e.currentTarget.value);
                  setEditError(null);
                }}
              />
            )}
          </Field>
        </div>
      ) : null}
      <div class="buttons">
        {editing ? (
          <Button kind="primary" busy={busy} onClick={approveEdited}>
            Approve with these arguments
          </Button>
        ) : (
          <Button kind="primary" busy={busy} onClick={() => decide(true)}>
            Approve
          </Button>
        )}
        <Button kind="danger" busy={busy} onClick={() => decide(false)}>
          Deny
        </Button>
        {command?.kind === "action" && command.server === undefined ? (
          <Button busy={busy} aria-expanded={editing ? "true" : "false"} onClick={() => setEditing(!editing)}>
            {editing ? "Keep the proposed arguments" : "Edit the arguments"}
          </Button>
        ) : null}
      </div>
      <ErrorNote error={error} />
    </section>
  );
}

/** A decided approval of the turn: what was proposed, the decision, and what came of it. */
function DecidedCard(props: { approval: DecidedApproval; decision: Decision | null }) {
  const { approval } = props;
  const args = approval.editedArgs ?? approval.args;
  return (
    <div class={`chat-decided card ${approval.status}`} data-approval={approval.id}>
      <div>
        <strong>{approval.status === "approved" ? "Approved" : approval.status === "denied" ? "Denied" : approval.status === "expired" ? "Expired" : approval.status}</strong>: <code>{approval.tool ?? approval.kind}</code>
        {approval.subject ? (
          <>
            {" "}
            on <code class="wrap">{approval.subject}</code>
          </>
        ) : null}
        {approval.outcome === null ? null : <span class={`badge ${approval.outcome.startsWith("accepted") ? "accepted" : "refused"}`}>{approval.outcome}</span>}
      </div>
      {args === undefined ? null : (
        <details>
          <summary>Arguments{approval.editedArgs ? " (as you edited them)" : ""}</summary>
          <JsonBlock value={args} label={approval.status === "approved" ? "The approved arguments" : "The proposed arguments"} />
        </details>
      )}
      {props.decision?.receipt ? <CommittedView decision={props.decision} /> : null}
    </div>
  );
}

/** What an approved command committed: its receipt and the record's state. */
function CommittedView(props: { decision: Decision }) {
  const receipt = props.decision.receipt;
  if (!props.decision.approved) return <p class="chat-committed muted">Denied: nothing was done.</p>;
  if (receipt === null) return <p class="chat-committed">Approved.</p>;
  return (
    <div class={`chat-committed ${receipt.outcome}`}>
      <p>
        {receipt.outcome === "accepted" ? "Committed" : "Refused"}: <code>{receipt.namespace}</code> <code>{receipt.action}</code> on <code class="wrap">{receipt.subject}</code> <span class="muted">#{receipt.seq}</span>
        {receipt.reason?.message ? <span> — {receipt.reason.message}</span> : null}
      </p>
      {receipt.state === null ? null : <JsonBlock value={receipt.state} label="The record as committed" />}
    </div>
  );
}

/** A question the assistant asks: its options (one or several), maybe an answer of one's own. */
function AskCard(props: { ask: Ask; onAnswered: (ask: Ask) => void }) {
  const { ask } = props;
  const [chosen, setChosen] = useState<readonly number[]>([]);
  const [text, setText] = useState("");
  const [run, busy, error] = useBusy();
  const legendId = useId();
  const name = useId();
  const toggle = (i: number) => setChosen(ask.multiple ? (chosen.includes(i) ? chosen.filter((c) => c !== i) : [...chosen, i]) : [i]);
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const answered = await api<Ask>("POST", `/api/asks/${encodeURIComponent(ask.id)}/answer`, { choices: chosen, ...(ask.allowOther && text.trim() !== "" ? { text } : {}) });
      props.onAnswered(answered);
    });
  };
  return (
    <form class="chat-ask card" onSubmit={submit} data-ask={ask.id}>
      <fieldset>
        <legend id={legendId}>{ask.question}</legend>
        <p class="muted">{ask.multiple ? "Choose one or more." : "Choose one."}</p>
        {ask.options.map((option, i) => (
          <label key={i} class="chat-option">
            <input type={ask.multiple ? "checkbox" : "radio"} name={name} checked={chosen.includes(i)} onChange={() => toggle(i)} />
            <span>
              {option.label}
              {option.description === "" ? null : <span class="muted"> — {option.description}</span>}
            </span>
          </label>
        ))}
        {ask.allowOther ? (
          <Field label="Or your own answer">{(id, describedBy) => <input id={id} aria-describedby={describedBy} value={text} onInput={(e) => setText(e.currentTarget.value)} />}</Field>
        ) : null}
      </fieldset>
      <div class="buttons">
        <Button kind="primary" type="submit" busy={busy}>
          Answer
        </Button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}
