/**
 * @module `charter command NAMESPACE ACTION SUBJECT --tenant T --key FILE [--args JSON]`: sign a
 * command with a key from `charter keygen` and send it to a node's `/v1` API, so that a first
 * write needs no JOSE library. Prints the receipt (exit 0), the refusal (exit 3) or the problem
 * (exit 1); `--print` only prints the signed command, for curl or any other client.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { COMMAND_TYP, type CommandPayload, loadKeyFile, type Receipt, signJws, verifyReceipt } from "../../shared/identity/index.ts";
import { DEFAULT_URL, nodeUrlFrom, UsageError } from "../options.ts";

const usage = [
  "Usage: charter command NAMESPACE ACTION SUBJECT --tenant TENANT --key FILE [--args JSON] [options]",
  "",
  "Signs a command as the identity in FILE (from `charter keygen`) and sends it to",
  "POST URL/v1/TENANT/NAMESPACE/actions/ACTION. Prints the outcome, the new state or the",
  "refusal's reason, and the receipt signed by the node on a line of its own (give it, or this",
  "whole output, to `charter verify`). Exit 0 accepted, 3 refused, 1 a problem, 2 a usage mistake.",
  "",
  "  --tenant TENANT          the tenant's handle (required)",
  "  --key FILE               the signer's private key, a JWK file (required)",
  "  --args JSON              the action's arguments, a JSON object (default: {})",
  `  --url URL                the node (default: $CHARTER_URL, else ${DEFAULT_URL})`,
  "  --idempotency-key KEY    1–128 printable ASCII characters (default: a random UUID);",
  "                           sending the same command with the same key answers the first receipt",
  "  --key-id KID             the JWS header's kid: the key's did:key (default) or its DID URL",
  "                           form did:key:z…#z…",
  "  --receipt-only           print only the receipt JWS",
  "  --print                  do not send: print the signed command (a compact JWS) and exit",
  "  --decode                 do not send: print the signed command's header and payload as JSON",
  "",
].join("\n");

const OPTIONS = {
  tenant: { type: "string" },
  key: { type: "string" },
  args: { type: "string" },
  url: { type: "string" },
  "idempotency-key": { type: "string" },
  "key-id": { type: "string" },
  "receipt-only": { type: "boolean" },
  print: { type: "boolean" },
  decode: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** Exit codes: the command was accepted, refused by the contract, or never became a command. */
export const EXIT = { accepted: 0, problem: 1, usage: 2, refused: 3 } as const;

export default async function command(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    return usageError((error as Error).message.split("\n")[0] as string);
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  if (positionals.length !== 3) return usageError(`expected NAMESPACE ACTION SUBJECT, got ${positionals.length} argument${positionals.length === 1 ? "" : "s"}`);
  const [namespace, action, subject] = positionals as [string, string, string];
  if (values.tenant === undefined) return usageError("--tenant TENANT is required");
  if (values.key === undefined) return usageError("--key FILE is required (make one with `charter keygen --out FILE`)");
  const args = parseArgsObject(values.args ?? "{}");
  if (typeof args === "string") return usageError(args);
  let url: string;
  try {
    url = nodeUrlFrom(values.url);
  } catch (error) {
    if (error instanceof UsageError) return usageError(error.message);
    throw error;
  }

  const key = await loadKeyFile(values.key);
  if (!key.ok) return failure(key.error.message);
  const kid = values["key-id"] ?? key.value.did;
  if (kid !== key.value.did && kid !== `${key.value.did}#${key.value.did.slice("did:key:".length)}`) {
    return usageError(`--key-id must name the key in ${values.key}: ${key.value.did} or ${key.value.did}#${key.value.did.slice("did:key:".length)}`);
  }
  const payload: CommandPayload = {
    tenant: values.tenant,
    namespace,
    action,
    subject,
    args,
    idempotencyKey: values["idempotency-key"] ?? randomUUID(),
    issuedAt: new Date().toISOString(),
  };
  const jws = signJws({ kid, typ: COMMAND_TYP }, JSON.stringify(payload), key.value.secretKey);
  if (values.print === true) {
    process.stdout.write(`${jws}\n`);
    return 0;
  }
  if (values.decode === true) {
    // Decoded from the JWS itself: exactly what was signed.
    const [header, body] = jws.split(".").slice(0, 2).map((part) => Buffer.from(part, "base64url").toString("utf8"));
    process.stdout.write(`${header}\n${body}\n`);
    return 0;
  }

  const target = `${url}/v1/${encodeURIComponent(payload.tenant)}/${encodeURIComponent(namespace)}/actions/${encodeURIComponent(action)}`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ command: jws }) });
    text = await response.text();
  } catch (error) {
    return failure(`cannot reach the node at ${url} (${reachError(error)}); is it running? (\`charter node\`, or --url / CHARTER_URL)`);
  }
  const answer = readAnswer(response.status, text);
  if (answer.kind === "problem") return failure(answer.line);
  if (values["receipt-only"] === true) process.stdout.write(`${answer.jws}\n`);
  else process.stdout.write(formatReceipt(answer.receipt, answer.jws, response.headers.get("idempotent-replayed") === "true"));
  return answer.receipt.outcome === "accepted" ? EXIT.accepted : EXIT.refused;
}

/** `--args`: a JSON object, or why not. */
export function parseArgsObject(text: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `--args is not JSON (${(error as Error).message})`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `--args must be a JSON object such as '{"units": 4}', got ${text}`;
  return value as Record<string, unknown>;
}

/** What the node answered: a receipt whose signature verifies, or a problem as one line. */
export type Answer = { readonly kind: "receipt"; readonly receipt: Receipt; readonly jws: string } | { readonly kind: "problem"; readonly line: string };

/** Reads the node's answer to a command: `{receipt, jws}` (200, 422) or a problem document. */
export function readAnswer(status: number, text: string): Answer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: "problem", line: `the node answered ${status} with a body that is not JSON: ${text.slice(0, 200)}` };
  }
  const fields = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  if ((status === 200 || status === 422) && typeof fields.jws === "string") {
    const verified = verifyReceipt(fields.jws);
    if (!verified.ok) return { kind: "problem", line: `the node answered ${status} with a receipt that does not verify: ${verified.error.message}` };
    return { kind: "receipt", receipt: verified.value.receipt, jws: fields.jws };
  }
  return { kind: "problem", line: formatProblem(status, fields) };
}

/** A problem document as one line: status, title, detail, and each field problem. */
export function formatProblem(status: number, problem: Record<string, unknown>): string {
  const title = typeof problem.title === "string" ? problem.title : "Error";
  const detail = typeof problem.detail === "string" ? problem.detail : JSON.stringify(problem);
  const errors = Array.isArray(problem.errors) ? problem.errors : [];
  const fields = errors.map((e: { pointer?: unknown; detail?: unknown; message?: unknown }) => `${typeof e.pointer === "string" ? `${e.pointer}: ` : ""}${String(e.detail ?? e.message ?? "")}`);
  return `${status} ${title}: ${detail}${fields.length === 0 ? "" : ` (${fields.join("; ")})`}`;
}

/** The receipt for a reader: outcome, the new state or the reason, then the receipt JWS alone on the last line. */
export function formatReceipt(receipt: Receipt, jws: string, replayed: boolean): string {
  const head = `${receipt.outcome}: ${receipt.action} ${receipt.subject} in ${receipt.tenant}/${receipt.namespace} (seq ${receipt.seq}${replayed ? ", replayed: the first receipt for this idempotency key" : ""})`;
  const lines = [head];
  if (receipt.outcome === "accepted") lines.push(`state: ${JSON.stringify(receipt.state)}`);
  else lines.push(`reason: ${formatReason(receipt.reason)}`);
  lines.push(`receipt (signed by ${receipt.node}):`, jws);
  return `${lines.join("\n")}\n`;
}

/** A refusal's reason: its code, the condition or message, and the line. */
export function formatReason(reason: Receipt["reason"]): string {
  if (reason === null) return "none given";
  const what = reason.condition ?? reason.message;
  return `${reason.code}${what ? `: ${what}` : ""}${typeof reason.line === "number" ? ` (line ${reason.line})` : ""}`;
}

function reachError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

function usageError(message: string): number {
  process.stderr.write(`charter command: ${message} (run \`charter command --help\`)\n`);
  return EXIT.usage;
}

function failure(message: string): number {
  process.stderr.write(`charter command: ${message}\n`);
  return EXIT.problem;
}
