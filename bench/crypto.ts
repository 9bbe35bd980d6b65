/**
 * @module Benchmark of the write path's signatures: command verification and receipt signing on
 * libsodium (our fast path) against the same work on node:crypto and on jose, in one run on one
 * core. Run alone: `node bench/crypto.ts [seconds per measurement, default 1]` under Node 24.
 * Prints one `name value (…)` line per figure; nothing asserts on them.
 */
import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify, type KeyObject } from "node:crypto";
import { CompactSign, compactVerify, importJWK } from "jose";
import { base64urlEncode } from "../shared/identity/base64url.ts";
import { parseCommand, signCommand, type CommandPayload } from "../shared/identity/command.ts";
import { publicKeyFromDidKey } from "../shared/identity/did-key.ts";
import { verifyJws } from "../shared/identity/jws.ts";
import { generateKeyPair, toPrivateJwk, toPublicJwk } from "../shared/identity/key-pair.ts";
import { RECEIPT_TYP, signReceipt, type Receipt } from "../shared/identity/receipt.ts";
import { ed25519Verify } from "../shared/identity/sodium.ts";

const seconds = Number(process.argv[2] ?? "1");
const SIGNERS = 64;
const COMMANDS = 4096;

const signers = Array.from({ length: SIGNERS }, () => generateKeyPair());
const now = Date.now();
const path = { tenant: "acme", namespace: "acme.shipping", action: "Request" };
const commands = Array.from({ length: COMMANDS }, (_, i) => {
  const payload: CommandPayload = {
    ...path,
    subject: `order-${i}`,
    args: { customer: "Ada", units: 4, crates: 2, credit_terms: false },
    idempotencyKey: `key-${i}`,
    issuedAt: new Date(now).toISOString(),
  };
  return signCommand(signers[i % SIGNERS] as (typeof signers)[number], payload);
});

const node = generateKeyPair();
const receipt: Receipt = {
  id: "rcpt_0000000001",
  command: "b773d463144ed2d831bc4a2a7372fcb9d6e953efb61c700cb9c1c856c743f8cb",
  seq: 1042,
  ...path,
  subject: "order-17",
  signer: (signers[0] as (typeof signers)[number]).did,
  artifact: "art_0000000001",
  outcome: "accepted",
  reason: null,
  state: { status: "Requested", customer: "Ada", units: 4, crates: 2, credit_terms: false },
  committedAt: new Date(now).toISOString(),
  node: node.did,
};

/** Operations per second of `op` (called with a running index), over about `seconds`, after a warm-up. */
async function rate(op: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < 500; i++) await op(i);
  let count = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    for (let j = 0; j < 100; j++) await op(count++);
  }
  return count / ((performance.now() - start) / 1000);
}

// The same compact-JWS verification on node:crypto: same parsing, key objects cached per did.
const nodeKeys = new Map<string, KeyObject>();
function nodeCryptoVerify(compact: string): boolean {
  const [header, payload, signature] = compact.split(".") as [string, string, string];
  const { alg, kid } = JSON.parse(Buffer.from(header, "base64url").toString()) as { alg: string; kid: string };
  if (alg !== "EdDSA") return false;
  let key = nodeKeys.get(kid);
  if (key === undefined) {
    const publicKey = publicKeyFromDidKey(kid);
    if (!publicKey.ok) return false;
    key = createPublicKey({ key: { ...toPublicJwk(publicKey.value) }, format: "jwk" });
    nodeKeys.set(kid, key);
  }
  return nodeVerify(null, Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, "base64url"));
}

const joseKeys = new Map<string, CryptoKey>();
for (const signer of signers) joseKeys.set(signer.did, (await importJWK({ ...toPublicJwk(signer) }, "EdDSA")) as CryptoKey);

const nodePrivate = createPrivateKey({ key: { ...toPrivateJwk(node) }, format: "jwk" });
function nodeCryptoSignReceipt(r: Receipt): string {
  const input = `${base64urlEncode(JSON.stringify({ alg: "EdDSA", kid: node.did, typ: RECEIPT_TYP }))}.${base64urlEncode(JSON.stringify(r))}`;
  return `${input}.${base64urlEncode(nodeSign(null, Buffer.from(input), nodePrivate))}`;
}
const josePrivate = await importJWK({ ...toPrivateJwk(node) }, "EdDSA");
const encoder = new TextEncoder();

function line(name: string, ours: number, others: [string, number][]): void {
  const rest = others.map(([label, value]) => `${label} ${Math.round(value)}, ratio ${(ours / value).toFixed(1)}x`).join("; ");
  process.stdout.write(`${name} ${Math.round(ours)} (${rest})\n`);
}

const cmd = (i: number) => commands[i % COMMANDS] as string;
const verifyOurs = await rate((i) => verifyJws(cmd(i)).ok || process.exit(1));
const verifyNode = await rate((i) => nodeCryptoVerify(cmd(i)) || process.exit(1));
const verifyJose = await rate((i) => compactVerify(cmd(i), (header) => joseKeys.get(header.kid as string) as CryptoKey, { algorithms: ["EdDSA"] }));
line("crypto.verify_per_s", verifyOurs, [["node:crypto", verifyNode], ["jose", verifyJose]]);

// The bare primitive, to show what the JWS layer around it costs.
const [rawInput, rawSignature] = (() => {
  const compact = cmd(0);
  const dot = compact.lastIndexOf(".");
  return [Buffer.from(compact.slice(0, dot)), Buffer.from(compact.slice(dot + 1), "base64url")];
})();
const rawKey = publicKeyFromDidKey((signers[0] as (typeof signers)[number]).did);
if (!rawKey.ok) throw new Error("bench setup: bad did");
const rawOurs = await rate(() => ed25519Verify(rawSignature, rawInput, rawKey.value));
const rawNode = await rate(() => nodeVerify(null, rawInput, nodeKeys.get((signers[0] as (typeof signers)[number]).did) as KeyObject, rawSignature));
line("crypto.ed25519_verify_per_s", rawOurs, [["node:crypto", rawNode]]);

const parseOurs = await rate((i) => parseCommand(cmd(i), { now, path }).ok || process.exit(1));
process.stdout.write(`crypto.parse_command_per_s ${Math.round(parseOurs)} (verify + payload checks + sha256 digest, ${(1e6 / parseOurs).toFixed(0)} µs each)\n`);

const signOurs = await rate((i) => signReceipt(node, { ...receipt, seq: i }));
const signNode = await rate((i) => nodeCryptoSignReceipt({ ...receipt, seq: i }));
const signJose = await rate((i) =>
  new CompactSign(encoder.encode(JSON.stringify({ ...receipt, seq: i }))).setProtectedHeader({ alg: "EdDSA", kid: node.did, typ: RECEIPT_TYP }).sign(josePrivate),
);
line("crypto.receipt_sign_per_s", signOurs, [["node:crypto", signNode], ["jose", signJose]]);
