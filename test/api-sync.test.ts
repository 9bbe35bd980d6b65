/**
 * Two real `charter node`s on loopback, paired: a home node and a device that joins it with the
 * code the home shows. They sync both ways; apart (each stopped while the other writes) they
 * diverge, and when they meet again they converge by the contracts' merge modes — a `replay`
 * command that no longer holds refused with `merge_conflict` on both, a `merge reject` change kept
 * as a conflict on both and settled from one; deletions sync. A wrong pairing code is refused, a
 * forged command from the paired device is refused and not propagated, and a revoked device cannot
 * sync again.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { join } from "node:path";
import { compileContract } from "../contracts/compile.ts";
import { connectChannel } from "../shared/channel/socket.ts";
import { generateKeyPair, loadOrCreateNodeKey, signCommand } from "../shared/identity/index.ts";
import type { AdminRequests } from "../shared/protocol/admin.ts";
import { jwsDigest, signStamp } from "../shared/devices/entries.ts";
import { newNonce, signMessage, SYNC_TYP } from "../shared/devices/peer-protocol.ts";
import { ApiClient, createAccount, printedSetupCode, stepUp } from "./helpers/api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";
import { freePort } from "./helpers/ports.ts";
import { SOURCE } from "./sync/simulation.ts";
import type { SoftAuthenticator } from "./helpers/soft-authenticator.ts";

interface Side {
  node: Charter;
  api: ApiClient;
  cookie: string;
  auth: SoftAuthenticator;
  dataDir: string;
  port: number;
}

describe("paired devices: /api/sync, /api/root, /sync/*", () => {
  const home = { dataDir: tempDataDir("charter-home-"), port: 0 } as Side;
  const device = { dataDir: tempDataDir("charter-device-"), port: 0 } as Side;
  let tenant = "";

  const call = (s: Side, method: string, path: string, body?: unknown) => s.api.call(method, path, { cookie: s.cookie, ...(body === undefined ? {} : { body }) });
  const act = async (s: Side, action: string, subject: string, args: Record<string, unknown> = {}) => call(s, "POST", "/api/data/act", { namespace: "sim.boxes", action, subject, args });
  const box = async (s: Side, subject: string) => (await call(s, "GET", `/api/personal/sim.boxes/Box/${subject}`)).body?.record ?? null;
  const start = async (s: Side) => {
    s.node = await startCharter({ edition: "node", dataDir: s.dataDir, args: ["--listen", `127.0.0.1:${s.port}`] });
    s.api = new ApiClient(s.node);
  };
  const install = async (s: Side, by: string) => {
    const compiled = compileContract(SOURCE).artifact;
    assert.ok(compiled !== undefined);
    const admin = await connectChannel<AdminRequests, Record<string, never>>(join(s.dataDir, "admin.sock"));
    try {
      const installed = await admin.request("install", { tenant, artifact: { id: compiled.id, schemaJson: new TextDecoder().decode(compiled.schemaBytes), wasm: Buffer.from(compiled.wasm).toString("base64"), source: SOURCE }, by });
      assert.ok(installed.ok, JSON.stringify(installed));
    } finally {
      admin.close();
    }
  };
  const contracts = async (s: Side) => ((await call(s, "GET", "/api/bootstrap")).body.tenant?.contracts ?? []) as { namespace: string }[];
  const status = async (s: Side) => (await call(s, "GET", "/api/sync/status")).body;

  before(async () => {
    home.port = await freePort();
    device.port = await freePort();
    await start(home);
    const made = await createAccount(home.api, printedSetupCode(home.node));
    home.cookie = made.cookie;
    home.auth = made.auth;
    const boot = (await call(home, "GET", "/api/bootstrap")).body;
    tenant = boot.tenant.handle;
    await waitFor("the personal contracts on the home node", async () => ((await contracts(home)).some((c) => c.namespace === "std.sync") ? true : undefined), 30_000);
    await install(home, boot.person.did);
    await start(device);
  });

  after(async () => {
    for (const s of [home, device]) if (s.node !== undefined) await stopCharter(s.node);
    cleanup(home.dataDir);
    cleanup(device.dataDir);
  });

  it("pairs a device with the code the home node shows; a wrong code is refused", async () => {
    assert.equal((await call(home, "POST", "/api/sync/pair")).status, 403, "making a code needs a step-up");
    await stepUp(home.api, home.auth, home.cookie);
    const code = await call(home, "POST", "/api/sync/pair");
    assert.equal(code.status, 201, JSON.stringify(code.body));
    assert.match(code.body.code, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const setupCode = printedSetupCode(device.node);
    // Bad input is named field by field, and nothing is paired.
    const bad = await device.api.call("POST", "/api/sync/join", { body: { url: "ftp://example.com", code: "nope", setupCode, name: "" } });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.deepEqual(bad.body.errors.map((e: { pointer: string }) => e.pointer), ["#/url", "#/code", "#/name"]);
    const http = await device.api.call("POST", "/api/sync/join", { body: { url: "http://example.com", code: "AAAA-AAAA", setupCode } });
    assert.equal(http.status, 400, "plain http is only for loopback");
    assert.equal((await device.api.call("POST", "/api/sync/join", { body: { url: home.node.url, code: "AAAA-AAAA", setupCode, extra: 1 } })).status, 400, "an unknown field");
    const wrong = await device.api.call("POST", "/api/sync/join", { body: { url: home.node.url, code: code.body.code === "AAAA-AAAA" ? "BBBB-BBBB" : "AAAA-AAAA", setupCode } });
    assert.equal(wrong.status, 403, JSON.stringify(wrong.body));
    assert.equal(wrong.body.code, "bad-pairing-code");
    const noSetupCode = await device.api.call("POST", "/api/sync/join", { body: { url: home.node.url, code: code.body.code, setupCode: "WRONG-CODE" } });
    assert.equal(noSetupCode.status, 403);
    assert.equal(noSetupCode.body.code, "bad-setup-code");
    const joined = await device.api.call("POST", "/api/sync/join", { body: { url: home.node.url, code: code.body.code, setupCode, name: "laptop" } });
    assert.equal(joined.status, 201, JSON.stringify(joined.body));
    assert.equal(joined.body.tenant, tenant);
    // The code is spent: a second device cannot use it.
    const again = await call(home, "POST", "/api/sync/pair");
    assert.equal(again.status, 201);
    // The person sets the device up as usual: the same identity and personal tenant.
    const made = await createAccount(device.api, setupCode, undefined, "Ada");
    device.cookie = made.cookie;
    device.auth = made.auth;
    const boot = (await call(device, "GET", "/api/bootstrap")).body;
    assert.equal(boot.tenant.handle, tenant);
    assert.equal(boot.person.did, (await call(home, "GET", "/api/bootstrap")).body.person.did, "the same person on both");
    await waitFor("the personal contracts on the device", async () => ((await contracts(device)).some((c) => c.namespace === "std.sync") ? true : undefined), 30_000);
    await install(device, boot.person.did);
    const st = await status(home);
    assert.equal(st.peers.length, 1);
    assert.equal(st.peers[0].name, "laptop");
  });

  it("syncs both ways, live", async () => {
    assert.equal((await act(home, "Add", "b1", { k: 2 })).status, 200);
    await waitFor("b1 on the device", async () => ((await box(device, "b1"))?.state?.n === 2 ? true : undefined), 30_000);
    assert.equal((await act(device, "Add", "b1", { k: 3 })).status, 200);
    await waitFor("b1 back on the home node", async () => ((await box(home, "b1"))?.state?.n === 5 ? true : undefined), 15_000);
    // The person's records too: a memory note made on the device is on the home node; deleting it there deletes it here.
    const note = await call(device, "POST", "/api/memory", { text: "the spare key is under the blue pot" });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    const notes = async (s: Side) => ((await call(s, "GET", "/api/memory")).body.items as { id: string }[]).map((n) => n.id);
    await waitFor("the note on the home node", async () => ((await notes(home)).includes(note.body.id) ? true : undefined), 15_000);
    assert.equal((await call(home, "DELETE", `/api/memory/${note.body.id}`)).status, 204);
    await waitFor("the deletion on the device", async () => (!(await notes(device)).includes(note.body.id) ? true : undefined), 15_000);
    const st = await status(device);
    assert.equal(st.peers[0].role, "home");
    assert.ok(st.peers[0].lastContact !== null);
  });

  it("converges after both wrote apart: replay refusals and a reject conflict on both, settled from one", async () => {
    await stopCharter(device.node);
    // Apart: the home labels b2 and fills b3; then the device, with the home stopped, does the same.
    assert.equal((await act(home, "Label", "b2", { text: "home" })).status, 200);
    assert.equal((await act(home, "Add", "b3", { k: 8 })).status, 200);
    await stopCharter(home.node);
    await start(device);
    assert.equal((await act(device, "Label", "b2", { text: "laptop" })).status, 200, "accepted offline");
    assert.equal((await act(device, "Add", "b3", { k: 7 })).status, 200, "accepted offline");
    await start(home);
    // They meet: every command on both, decided the same way.
    const entries = async (s: Side) => (await status(s)).commands as number;
    await waitFor("both hold every command", async () => {
      const [a, b] = [await entries(home), await entries(device)];
      return a === b && (await status(home)).peers[0].pendingOut === 0 ? true : undefined;
    }, 45_000);
    const [h3, d3] = [await box(home, "b3"), await box(device, "b3")];
    assert.deepEqual(h3.state, d3.state, "b3 is the same on both");
    assert.ok(h3.state.n === 8 || h3.state.n === 7, `one Add holds (n ${h3.state.n}); the other no longer fits under 12`);
    const refusedAdd = async (s: Side) => ((await call(s, "GET", `/api/personal/sim.boxes/Box/b3?limit=200`)).body.history.items as { outcome: string; reason: { code: string } | null }[]).filter((e) => e.outcome === "refused").map((e) => e.reason?.code);
    await waitFor("the replay refusal recorded on both", async () => ((await refusedAdd(home)).includes("merge_conflict") && (await refusedAdd(device)).includes("merge_conflict") ? true : undefined), 10_000);
    const conflicts = async (s: Side) => (await call(s, "GET", "/api/sync/conflicts")).body.items as { id: string; args: { text: string }; subject: string }[];
    const [ch, cd] = [await conflicts(home), await conflicts(device)];
    assert.equal(ch.length, 1, JSON.stringify(ch));
    assert.deepEqual(ch.map((c) => c.id), cd.map((c) => c.id), "the same conflict on both");
    const kept = (await box(home, "b2")).state.label;
    assert.notEqual(kept, ch[0]?.args.text, "the first label is kept");
    // Settled on the device by taking the refused change: on both, the conflict is gone and the label is the one chosen.
    const settled = await call(device, "POST", `/api/sync/conflicts/${ch[0]?.id}`, { choose: "theirs" });
    assert.equal(settled.status, 200, JSON.stringify(settled.body));
    await waitFor("the settlement on the home node", async () => ((await conflicts(home)).length === 0 && (await box(home, "b2")).state.label === ch[0]?.args.text ? true : undefined), 15_000);
    assert.equal((await conflicts(device)).length, 0);
    assert.equal((await box(device, "b2")).state.label, ch[0]?.args.text);
  });

  it("refuses a forged command from the paired device, and passes nothing of it on", async () => {
    const deviceKey = await loadOrCreateNodeKey(device.dataDir);
    assert.ok(deviceKey.ok);
    const homeDid = (await status(home)).node as string;
    const forger = generateKeyPair();
    // The person's command signed by someone else, stamped by the device: the command's signature is the person's kid but not their key.
    const person = (await call(home, "GET", "/api/bootstrap")).body.person.did as string;
    const forged = signCommand(forger, { tenant, namespace: "sim.boxes", action: "Add", subject: "b9", args: { k: 1 }, idempotencyKey: "forged-1", issuedAt: new Date().toISOString() });
    const parts = forged.split(".");
    const header = Buffer.from(JSON.stringify({ alg: "EdDSA", kid: person, typ: "charter-command+jws" })).toString("base64url");
    const jws = `${header}.${parts[1]}.${parts[2]}`;
    const top = ((await status(device)).commands as number) + 1000;
    const entry = { origin: deviceKey.value.did, oseq: top, lamport: top, time: Date.now(), seen: {}, outcome: "accepted" as const, reason: null };
    const stamp = signStamp(tenant, entry, jwsDigest(jws), deviceKey.value.secretKey);
    const request = signMessage(deviceKey.value, SYNC_TYP, { from: deviceKey.value.did, to: homeDid, at: Date.now(), nonce: newNonce(), tenant, vv: {}, entries: [{ ...entry, jws, stamp }], wait: 0, revoked: [] });
    const answer = await fetch(`${home.node.url}/sync/exchange`, { method: "POST", headers: { "content-type": "application/jose" }, body: request });
    assert.equal(answer.status, 400);
    const body = (await answer.json()) as { code: string; detail: string };
    assert.equal(body.code, "bad-entry");
    assert.match(body.detail, /does not verify|signature/);
    assert.equal((await box(home, "b9"))?.state ?? null, null, "nothing applied");
    // Garbage of every kind is a 400 problem, and the node goes on serving.
    for (const body of ["", "not a jws", "a.b.c", JSON.stringify({ jws: 1 }), "x".repeat(100_000)]) {
      const r = await fetch(`${home.node.url}/sync/exchange`, { method: "POST", headers: { "content-type": "application/jose" }, body });
      assert.equal(r.status, 400, body.slice(0, 20));
      assert.equal(((await r.json()) as { code: string }).code, "bad-exchange");
    }
    const garbagePair = await fetch(`${home.node.url}/sync/pair`, { method: "POST", body: "a.b.c" });
    assert.equal(garbagePair.status, 400);
    assert.equal((await call(home, "GET", "/api/sync/status")).status, 200);
    const badChoice = await call(home, "POST", "/api/sync/conflicts/whatever", { choose: "both" });
    assert.equal(badChoice.status, 400);
    assert.equal((await call(home, "POST", "/api/sync/conflicts/whatever", { choose: "kept" })).status, 404);
    // A replayed exchange (the same nonce) is refused too, and an unpaired node is not known.
    const again = await fetch(`${home.node.url}/sync/exchange`, { method: "POST", headers: { "content-type": "application/jose" }, body: request });
    assert.equal(again.status, 400);
    const stranger = generateKeyPair();
    const unknown = await fetch(`${home.node.url}/sync/exchange`, { method: "POST", body: signMessage(stranger, SYNC_TYP, { from: stranger.did, to: homeDid, at: Date.now(), nonce: newNonce(), tenant, vv: {}, entries: [], wait: 0, revoked: [] }) });
    assert.equal(unknown.status, 401);
  });

  it("revokes the device: it cannot sync again", async () => {
    const deviceDid = (await status(device)).node as string;
    await stepUp(home.api, home.auth, home.cookie);
    const revoked = await call(home, "POST", `/api/root/devices/${deviceDid}/revoke`);
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    assert.equal(revoked.body.revoked, true);
    const keys = (await call(home, "GET", "/api/root/keys")).body;
    assert.notEqual(keys.devices.find((d: { did: string }) => d.did === deviceDid)?.revokedAt ?? null, null, JSON.stringify(keys));
    assert.equal((await act(device, "Add", "b4", { k: 1 })).status, 200);
    await waitFor("the device learns it was revoked", async () => ((await status(device)).peers[0].revokedAt !== null ? true : undefined), 40_000);
    assert.equal((await box(home, "b4"))?.state ?? null, null, "the revoked device's command did not reach the home node");
  });
});
