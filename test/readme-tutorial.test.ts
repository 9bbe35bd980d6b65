/**
 * The README's "A signed write, step by step", followed literally: each command is taken from the
 * tutorial's text (so the two cannot drift apart), run with the CLI from a fresh directory against a
 * real node started there (`npm start` runs `charter node`, on ./data), and its outcome checked
 * against what the tutorial says it prints. Only the node's address differs: a free port, passed
 * to the commands as CHARTER_URL.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { verifyJws } from "../shared/identity/index.ts";
import { charterBin, cleanup, waitFor } from "./helpers/charter-process.ts";
import { type Run, runCharter } from "./helpers/run-charter.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(join(repo, "README.md"), "utf8");
const start = readme.indexOf("## A signed write, step by step");
const tutorial = readme.slice(start, readme.indexOf("\n## ", start + 1));

/** `text` as the tutorial has it; fails when the tutorial no longer says it. */
function said(text: string): string {
  assert.ok(tutorial.includes(text), `the tutorial no longer contains:\n${text}`);
  return text;
}

/** The words of one `npx charter …` line as the shell splits them: '…' quoting, $NAME, `\` continuations. */
function words(line: string, vars: Record<string, string>): string[] {
  const out: string[] = [];
  for (const match of line.replaceAll("\\\n", " ").matchAll(/'([^']*)'|(\S+)/g)) {
    out.push(match[1] ?? (match[2] as string).replace(/\$([A-Z]+)/g, (_, name: string) => vars[name] ?? assert.fail(`$${name} is not set`)));
  }
  assert.deepEqual(out.slice(0, 2), ["npx", "charter"]);
  return out.slice(2);
}

describe("README: A signed write, step by step", () => {
  const cwd = mkdtempSync(join(tmpdir(), "charter-tutorial-"));
  const vars: Record<string, string> = {};
  let node: ChildProcess;
  let url = "";
  let nodeDid = "";
  const files = new Map<string, string>();

  /** Runs one tutorial line: `npx charter …`, with `< FILE` as stdin and `| tee FILE` kept. */
  async function step(line: string, redirect: { stdin?: string; tee?: string; echoExit?: boolean } = {}): Promise<Run> {
    said(`${line}${redirect.stdin === undefined ? "" : ` < ${redirect.stdin}`}${redirect.tee === undefined ? "" : ` | tee ${redirect.tee}`}${redirect.echoExit === true ? '; echo "exit $?"' : ""}`);
    const stdin = redirect.stdin === undefined ? undefined : files.get(redirect.stdin);
    const r = await runCharter(words(line, vars), { cwd, env: { CHARTER_URL: url }, ...(stdin === undefined ? {} : { stdin }) });
    if (redirect.tee !== undefined) {
      files.set(redirect.tee, r.stdout);
      writeFileSync(join(cwd, redirect.tee), r.stdout);
    }
    return r;
  }

  before(async () => {
    // A fresh clone has the contract at this path; the tutorial's commands run where it is.
    mkdirSync(join(cwd, "contracts", "examples"), { recursive: true });
    for (const file of ["shipping.charter.md", "shipping-v2.charter.md"]) copyFileSync(join(repo, "contracts", "examples", file), join(cwd, "contracts", "examples", file));
    said("npm start");
    const scripts = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    assert.equal(scripts.start, "node bin/charter.js node");
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.CHARTER_DATA;
    node = spawn(process.execPath, [charterBin, "node", "--listen", "127.0.0.1:0"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    node.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    url = await waitFor("the node's URL", () => /listening on (http:\/\/\S+)/.exec(out)?.[1], 20_000);
    nodeDid = ((await (await fetch(`${url}/.well-known/charter.json`)).json()) as { identity: string }).identity;
  });
  after(async () => {
    if (node !== undefined && node.exitCode === null) {
      node.kill("SIGTERM");
      await new Promise((resolve) => node.once("exit", resolve));
    }
    cleanup(cwd);
  });

  it("1. two identities", async () => {
    for (const [name, file] of [["ADA", "ada.jwk"], ["BOB", "bob.jwk"]] as const) {
      const line = `npx charter keygen --out ${file}`;
      said(`${name}=$(${line})`);
      const r = await step(line);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^did:key:z6Mk\w+\n$/);
      vars[name] = r.stdout.trim();
    }
  });

  it("2. a tenant (Ada owner, Bob member) and the shipping contract", async () => {
    const created = await step("npx charter tenant create acme --owner $ADA");
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^did:key:z6Mk\w+\n$/);
    const member = await step("npx charter tenant member add acme $BOB");
    assert.equal(member.code, 0, member.stderr);
    const installed = await step("npx charter install contracts/examples/shipping.charter.md --tenant acme");
    assert.equal(installed.code, 0, installed.stderr);
    assert.match(installed.stdout, /^art_[0-9a-f]{64}\n$/);
  });

  it("3. Ada requests an order: accepted, exit 0", async () => {
    const r = await step(`npx charter command acme.shipping Request o-1 --tenant acme --key ada.jwk \\
  --args '{"customer": "Ada", "destination": "Oslo", "units": 4, "crates": 1, "credit_terms": false}'`);
    assert.equal(r.code, 0, r.stderr);
    const [head, state, signedBy, jws] = r.stdout.trimEnd().split("\n");
    assert.equal(head, "accepted: Request o-1 in acme/acme.shipping (seq 1)");
    const record = JSON.parse((state as string).slice("state: ".length)) as Record<string, unknown>;
    assert.deepEqual([record.status, record.customer, record.units, record.requested_by, record.confirmed_by], ["Requested", "Ada", 4, vars.ADA, null]);
    assert.equal(signedBy, `receipt (signed by ${nodeDid}):`);
    assert.match(jws as string, /^eyJhbGciOiJFZERTQSIsImtpZCI6ImRpZDprZXk6/);
  });

  it("4. Ada may not confirm it: refused with the condition and its line, exit 3", async () => {
    const r = await step("npx charter command acme.shipping Confirm o-1 --tenant acme --key ada.jwk", { echoExit: true });
    assert.equal(r.code, 3, r.stderr);
    const [head, reason] = r.stdout.split("\n");
    assert.equal(head, "refused: Confirm o-1 in acme/acme.shipping (seq 2)");
    assert.equal(reason, "reason: condition_failed: context.signer != state.requested_by (line 61)");
    said("# reason: condition_failed: context.signer != state.requested_by (line 61)");
  });

  it("5. Bob confirms it: accepted, exit 0", async () => {
    const r = await step("npx charter command acme.shipping Confirm o-1 --tenant acme --key bob.jwk", { tee: "confirm.txt" });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^accepted: Confirm o-1 in acme\/acme\.shipping \(seq 3\)\nstate: \{"status":"Confirmed",/);
    assert.match(r.stdout, new RegExp(`"confirmed_by":"${vars.BOB}"`));
  });

  it("6. the JWS header (alg, kid, typ) and the payload's issuedAt", async () => {
    const r = await step("npx charter command acme.shipping Pay o-1 --tenant acme --key bob.jwk --decode");
    assert.equal(r.code, 0, r.stderr);
    const [header, payload] = r.stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(header, { alg: "EdDSA", kid: vars.BOB, typ: "charter-command+jws" });
    said('# {"alg":"EdDSA","kid":"did:key:z6Mk…(Bob)","typ":"charter-command+jws"}');
    assert.deepEqual(Object.keys(payload ?? {}), ["tenant", "namespace", "action", "subject", "args", "idempotencyKey", "issuedAt"]);
    assert.match(payload?.issuedAt as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(payload?.idempotencyKey as string, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("7. curl with --print: the node accepts the printed JWS", async () => {
    const line = "npx charter command acme.shipping Pay o-1 --tenant acme --key bob.jwk --print";
    said(`curl -s http://127.0.0.1:8787/v1/acme/acme.shipping/actions/Pay -H 'content-type: application/jose' \\
  --data-binary "$(${line})"`);
    const printed = await step(line);
    assert.equal(printed.code, 0, printed.stderr);
    const jws = printed.stdout.trim(); // "$(…)" drops the trailing newline
    const verified = verifyJws(jws, { typ: "charter-command+jws" });
    assert.ok(verified.ok && verified.value.header.kid === vars.BOB);
    // What curl sends: the same path on the node, the same header, the JWS as the body.
    const answer = await fetch(`${url}/v1/acme/acme.shipping/actions/Pay`, { method: "POST", headers: { "content-type": "application/jose" }, body: jws });
    assert.equal(answer.status, 200);
    const body = (await answer.json()) as { receipt: { action: string; outcome: string; state: { paid: boolean } }; jws: string };
    assert.equal(body.receipt.action, "Pay");
    assert.equal(body.receipt.outcome, "accepted");
    assert.equal(body.receipt.state.paid, true);
  });

  it("8. charter verify: the node's signature checks out; another did:key's does not", async () => {
    const ok = await step("npx charter verify -", { stdin: "confirm.txt" });
    assert.equal(ok.code, 0, ok.stderr);
    const receipt = JSON.parse(ok.stdout.slice(0, ok.stdout.lastIndexOf("}") + 1)) as { action: string; outcome: string; node: string; signer: string };
    assert.deepEqual([receipt.action, receipt.outcome, receipt.node, receipt.signer], ["Confirm", "accepted", nodeDid, vars.BOB]);
    assert.ok(ok.stdout.endsWith(`\nverified by ${nodeDid}\n`));
    const wrong = await step("npx charter verify - --did $ADA", { stdin: "confirm.txt", echoExit: true });
    assert.equal(wrong.code, 1);
    assert.equal(wrong.stderr, `charter verify: the receipt is signed by ${nodeDid}, not by ${vars.ADA}\n`);
  });
  it("9. a carrier with the shipping delegation ships; a member's action is refused to her", async () => {
    const line = "npx charter keygen --out carol.jwk";
    said(`CAROL=$(${line})`);
    const key = await step(line);
    assert.equal(key.code, 0, key.stderr);
    vars.CAROL = key.stdout.trim();
    const delegated = await step("npx charter tenant delegate acme $CAROL --scope shipping");
    assert.equal(delegated.code, 0, delegated.stderr);
    const requested = await step(`npx charter command acme.shipping Request o-2 --tenant acme --key ada.jwk \\
  --args '{"customer": "Ada", "destination": "Bergen", "units": 2, "crates": 1, "credit_terms": true}'`);
    assert.equal(requested.code, 0, requested.stderr);
    const checked = await step("npx charter command acme.shipping CheckCrate o-2 --tenant acme --key bob.jwk");
    assert.equal(checked.code, 0, checked.stderr);
    const shipped = await step("npx charter command acme.shipping Ship o-2 --tenant acme --key carol.jwk");
    assert.equal(shipped.code, 0, shipped.stderr);
    assert.match(shipped.stdout, /^accepted: Ship o-2 in acme\/acme\.shipping \(seq 7\)\nstate: \{"status":"Shipped",/);
    said("# accepted: Ship o-2 in acme/acme.shipping (seq 7)");
    const refused = await step(`npx charter command acme.shipping Request o-3 --tenant acme --key carol.jwk \\
  --args '{"customer": "Carol", "destination": "Oslo", "units": 1, "crates": 1, "credit_terms": true}'`, { echoExit: true });
    assert.equal(refused.code, 3, refused.stderr);
    const [head, reason] = refused.stdout.split("\n");
    assert.equal(head, said("refused: Request o-3 in acme/acme.shipping (seq 8)"));
    assert.equal(reason, said("reason: unauthorized: only a member or owner of the tenant may do this"));
  });

  it("10. the upgrade to v2 migrates the orders, and its new action is served", async () => {
    const upgraded = await step("npx charter install contracts/examples/shipping-v2.charter.md --tenant acme");
    assert.equal(upgraded.code, 0, upgraded.stderr);
    assert.match(upgraded.stdout, /^art_[0-9a-f]{64}\n/);
    assert.match(upgraded.stdout + upgraded.stderr, /upgraded art_\w+ → art_\w+: 2 record\(s\) migrated/);
    const prioritized = await step(`npx charter command acme.shipping Prioritize o-1 --tenant acme --key bob.jwk --args '{"priority": 9}'`);
    assert.equal(prioritized.code, 0, prioritized.stderr);
    assert.match(prioritized.stdout, /^accepted: Prioritize o-1 in acme\/acme\.shipping \(seq 11\)\n/);
    said("# accepted: Prioritize o-1 in acme/acme.shipping (seq 11)");
    const state = JSON.parse(prioritized.stdout.split("\n")[1]?.slice("state: ".length) ?? "") as Record<string, unknown>;
    assert.deepEqual([state.status, state.paid, state.priority], ["Confirmed", true, 9]);
  });
});
