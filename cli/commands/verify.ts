/**
 * @module `charter verify RECEIPT [--node URL | --did DID]`: check that a receipt was signed by a
 * node — the one at URL, by the identity it publishes at `/.well-known/charter.json`, or the given
 * did:key — and print what it certifies. Anyone holding a receipt can check it this way, offline
 * with `--did`.
 */
import { parseArgs } from "node:util";
import { isDidKey, verifyReceipt } from "../../shared/identity/index.ts";
import { DEFAULT_URL, nodeUrlFrom, UsageError } from "../options.ts";

const usage = [
  "Usage: charter verify RECEIPT [--node URL | --did DID]",
  "",
  "Checks a receipt's signature and its signer, prints the receipt and the did:key that signed it.",
  "RECEIPT is the receipt's compact JWS, or - to read it from stdin (the output of `charter command`",
  "will do: its last line is the receipt). Exit 0 verified, 1 not.",
  "",
  `  --node URL  the node whose published identity must have signed it (default: $CHARTER_URL,`,
  `              else ${DEFAULT_URL}); any voter of a replicated engine counts`,
  "  --did DID   the did:key that must have signed it (no node is asked)",
  "",
].join("\n");

export default async function verify(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { node: { type: "string" }, did: { type: "string" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    return usageError((error as Error).message.split("\n")[0] as string);
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  if (positionals.length !== 1) return usageError(`expected one RECEIPT (a JWS, or - for stdin), got ${positionals.length} arguments`);
  if (values.node !== undefined && values.did !== undefined) return usageError("give --node or --did, not both");
  if (values.did !== undefined && !isDidKey(values.did)) return usageError(`--did expects a did:key:z…, got '${values.did}'`);
  const jws = positionals[0] === "-" ? lastLine(await readStdin()) : (positionals[0] as string).trim();
  if (jws === "") return failure("no receipt on stdin");

  const verified = verifyReceipt(jws);
  if (!verified.ok) return failure(`not a valid receipt: ${verified.error.message}`);
  // verifyReceipt holds the receipt's `node` to the key that signed it.
  const signer = verified.value.receipt.node;

  let expected: { readonly signers: readonly string[]; readonly what: string };
  if (values.did !== undefined) {
    expected = { signers: [values.did], what: values.did };
  } else {
    let url: string;
    try {
      url = nodeUrlFrom(values.node, "node");
    } catch (error) {
      if (error instanceof UsageError) return usageError(error.message);
      throw error;
    }
    const published = await publishedSigners(url);
    if (typeof published === "string") return failure(published);
    expected = { signers: published, what: `the node at ${url} (${published.join(", ")})` };
  }
  if (!expected.signers.includes(signer)) return failure(`the receipt is signed by ${signer}, not by ${expected.what}`);
  process.stdout.write(`${JSON.stringify(verified.value.receipt, null, 2)}\nverified by ${signer}\n`);
  return 0;
}

/** The did:keys whose receipts the node at `url` vouches for: its identity and its voters; or why they are unknown. */
async function publishedSigners(url: string): Promise<string[] | string> {
  const where = `${url}/.well-known/charter.json`;
  let body: unknown;
  try {
    const response = await fetch(where);
    if (!response.ok) return `${where} answered ${response.status}`;
    body = await response.json();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return `cannot read the node's identity from ${where} (${cause?.code ?? (error as Error).message}); is it running? (or give --did)`;
  }
  const info = (typeof body === "object" && body !== null ? body : {}) as { identity?: unknown; voters?: unknown };
  if (typeof info.identity !== "string") return `${where} names no identity`;
  const voters = Array.isArray(info.voters) ? info.voters.filter((v): v is string => typeof v === "string") : [];
  return [...new Set([info.identity, ...voters])];
}

async function readStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

/** The last non-empty line, trimmed: a receipt file, or the whole output of `charter command`. */
export function lastLine(text: string): string {
  return text.split("\n").map((line) => line.trim()).filter((line) => line !== "").at(-1) ?? "";
}

function usageError(message: string): number {
  process.stderr.write(`charter verify: ${message} (run \`charter verify --help\`)\n`);
  return 2;
}

function failure(message: string): number {
  process.stderr.write(`charter verify: ${message}\n`);
  return 1;
}
