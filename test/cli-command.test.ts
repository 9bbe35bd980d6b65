/**
 * `charter command` and `charter verify` against a real node: a signed write without a JOSE
 * library — accepted (exit 0), refused (exit 3), a problem (exit 1), `--print` for any HTTP client —
 * and a receipt checked against the node's published identity or a given did:key.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { generateKeyPair, receiptOf, saveKeyFile, verifyJws } from "../shared/identity/index.ts";
import { type Charter, cleanup, startCharter, stopCharter } from "./helpers/charter-process.ts";
import { runCharter } from "./helpers/run-charter.ts";

const shipping = fileURLToPath(new URL("../contracts/examples/shipping.charter.md", import.meta.url));
const order = { customer: "Ada", destination: "Oslo", units: 4, crates: 1, credit_terms: false };

describe("charter command and charter verify", () => {
  const ada = generateKeyPair();
  const bob = generateKeyPair();
  const work = mkdtempSync(join(tmpdir(), "charter-command-"));
  const adaKey = join(work, "ada.jwk");
  const bobKey = join(work, "bob.jwk");
  let node: Charter;
  let nodeDid: string;
  const send = (args: string[], stdin?: string) => runCharter(["command", "acme.shipping", ...args, "--tenant", "acme", "--url", node.url], { cwd: work, ...(stdin === undefined ? {} : { stdin }) });

  before(async () => {
    assert.ok((await saveKeyFile(adaKey, ada)).ok);
    assert.ok((await saveKeyFile(bobKey, bob)).ok);
    node = await startCharter();
    const d = ["--data", node.dataDir];
    for (const args of [["tenant", "create", "acme", "--owner", ada.did], ["tenant", "member", "add", "acme", bob.did], ["install", shipping, "--tenant", "acme"]]) {
      const r = await runCharter([...args, ...d]);
      assert.equal(r.code, 0, r.stderr);
    }
    nodeDid = ((await (await fetch(`${node.url}/.well-known/charter.json`)).json()) as { identity: string }).identity;
  });
  after(async () => {
    if (node !== undefined) await stopCharter(node);
    cleanup(work);
  });

  let confirmed: string;

  it("prints an accepted command's state and receipt, exit 0", async () => {
    const r = await send(["Request", "o-1", "--key", adaKey, "--args", JSON.stringify(order)]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^accepted: Request o-1 in acme\/acme\.shipping \(seq \d+\)\nstate: \{"status":"Requested",/);
    const receipt = receiptOf(r.stdout.trim().split("\n").at(-1) as string);
    assert.equal(receipt.signer, ada.did);
    assert.equal(receipt.node, nodeDid);
  });

  it("prints a refusal's reason and line, exit 3", async () => {
    const r = await send(["Confirm", "o-1", "--key", adaKey]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stdout, /^refused: Confirm o-1 in acme\/acme\.shipping \(seq \d+\)\nreason: condition_failed: context\.signer != state\.requested_by \(line \d+\)\n/);
  });

  it("sends another signer's command, exit 0", async () => {
    const r = await send(["Confirm", "o-1", "--key", bobKey]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /"status":"Confirmed"/);
    confirmed = r.stdout;
  });

  it("prints a problem document in one line on stderr, exit 1, and nothing on stdout", async () => {
    const r = await send(["Nope", "o-1", "--key", bobKey]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^charter command: 404 [^\n]+\n$/);
    const bad = await send(["Request", "o-2", "--key", bobKey, "--args", '{"units": "many"}']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^charter command: 400 [^\n]*#\/args\/units[^\n]*\n$/);
  });

  it("says so in one line when no node answers, exit 1", async () => {
    const r = await runCharter(["command", "acme.shipping", "Pay", "o-1", "--tenant", "acme", "--key", bobKey, "--url", "http://127.0.0.1:1"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^charter command: cannot reach the node at http:\/\/127\.0\.0\.1:1 \([^)]+\); is it running\?[^\n]*\n$/);
  });

  it("with --print, prints a JWS that a plain HTTP client can send", async () => {
    const r = await send(["Pay", "o-1", "--key", bobKey, "--print"]);
    assert.equal(r.code, 0, r.stderr);
    const jws = r.stdout.trim();
    const verified = verifyJws(jws, { typ: "charter-command+jws" });
    assert.ok(verified.ok);
    assert.equal(verified.value.header.kid, bob.did);
    const payload = JSON.parse(verified.value.payload.toString("utf8"));
    assert.match(payload.issuedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Nothing was sent: Pay is still open.
    const answer = await fetch(`${node.url}/v1/acme/acme.shipping/actions/Pay`, { method: "POST", headers: { "content-type": "application/jose" }, body: jws });
    assert.equal(answer.status, 200);
    const body = (await answer.json()) as { receipt: { outcome: string; state: { paid: boolean } } };
    assert.equal(body.receipt.outcome, "accepted");
    assert.equal(body.receipt.state.paid, true);
  });

  it("with --key-id, signs with the key's DID URL as kid; one naming another key is a usage error", async () => {
    const didUrl = `${bob.did}#${bob.did.slice("did:key:".length)}`;
    const r = await send(["Pay", "o-1", "--key", bobKey, "--key-id", didUrl, "--print"]);
    assert.equal(r.code, 0, r.stderr);
    const verified = verifyJws(r.stdout.trim(), { typ: "charter-command+jws" });
    assert.equal(verified.ok && verified.value.header.kid, didUrl);
    const other = await send(["Pay", "o-1", "--key", bobKey, "--key-id", ada.did, "--print"]);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /^charter command: --key-id must name the key in [^\n]+\n$/);
  });

  it("with --receipt-only, prints the receipt JWS alone, which charter verify takes as it is", async () => {
    const r = await send(["Request", "o-3", "--key", adaKey, "--args", JSON.stringify(order), "--receipt-only"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    assert.equal(receiptOf(r.stdout.trim()).subject, "o-3");
    const verified = await runCharter(["verify", r.stdout.trim(), "--node", node.url]);
    assert.equal(verified.code, 0, verified.stderr);
  });

  it("are listed by charter --help", async () => {
    const r = await runCharter(["--help"]);
    assert.match(r.stdout, /\n {2}command +sign a command/);
    assert.match(r.stdout, /\n {2}verify +check a receipt/);
  });

  it("with --idempotency-key, sending again answers the first receipt", async () => {
    const request = ["Request", "o-2", "--key", bobKey, "--args", JSON.stringify(order), "--idempotency-key", "order-2"];
    const first = await send(request);
    const again = await send(request);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /replayed/);
    assert.equal(again.stdout.trim().split("\n").at(-1), first.stdout.trim().split("\n").at(-1));
  });

  it("verifies a receipt against the node's published identity: the JWS, or command's output on stdin", async () => {
    const jws = confirmed.trim().split("\n").at(-1) as string;
    const byArg = await runCharter(["verify", jws, "--node", node.url]);
    assert.equal(byArg.code, 0, byArg.stderr);
    assert.equal(JSON.parse(byArg.stdout.slice(0, byArg.stdout.lastIndexOf("}") + 1)).outcome, "accepted");
    assert.match(byArg.stdout, new RegExp(`\\nverified by ${nodeDid}\\n$`));
    const byStdin = await runCharter(["verify", "-"], { stdin: confirmed, env: { CHARTER_URL: node.url } });
    assert.equal(byStdin.code, 0, byStdin.stderr);
    assert.equal(byStdin.stdout, byArg.stdout);
    const byDid = await runCharter(["verify", jws, "--did", nodeDid]);
    assert.equal(byDid.code, 0, byDid.stderr);
  });

  it("refuses a receipt from another signer, or one whose signature fails, exit 1 in one line", async () => {
    const jws = confirmed.trim().split("\n").at(-1) as string;
    const wrong = await runCharter(["verify", jws, "--did", ada.did]);
    assert.equal(wrong.code, 1);
    assert.equal(wrong.stdout, "");
    assert.equal(wrong.stderr, `charter verify: the receipt is signed by ${nodeDid}, not by ${ada.did}\n`);
    const [header, payload] = jws.split(".");
    const forged = `${header}.${payload}.${Buffer.alloc(64, 1).toString("base64url")}`;
    const bad = await runCharter(["verify", forged, "--node", node.url]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^charter verify: not a valid receipt: the signature does not verify[^\n]*\n$/);
  });
});
