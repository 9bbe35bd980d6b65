/**
 * Live co-editing on a real `charter node`: two signed-in devices (two sessions) open the same
 * note with the `y-websocket` client over `/api/collab/{id}`, type at once, converge on the same
 * text, and the vault gets the merged text as a new revision (`origin: collab`); an edit made in
 * the vault's folder meanwhile is merged into the live document, not lost; the upgrade refuses a
 * missing session, a foreign Origin and an unknown note; a message that is not the protocol
 * closes its socket only.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import WebSocket from "ws";
import { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";
import { type Answer, ApiClient, createAccount, printedSetupCode, signIn } from "./helpers/api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";

describe("live co-editing of a note", () => {
  let node: Charter;
  let api: ApiClient;
  let phone = "";
  let laptop = "";
  const open: WebsocketProvider[] = [];
  const k = (operation: string, args: Record<string, unknown>): Promise<Answer> => api.call("POST", "/api/knowledge", { cookie: phone, body: { operation, args } });

  /** A device's shared document on note `id`, connected with the y-websocket client. */
  async function device(cookie: string, id: string): Promise<{ doc: Y.Doc; text: Y.Text; provider: WebsocketProvider }> {
    const headers = { cookie, origin: api.origin };
    class Signed extends WebSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols, { headers });
      }
    }
    const doc = new Y.Doc();
    const provider = new WebsocketProvider(`${node.url.replace("http:", "ws:")}/api/collab`, id, doc, { WebSocketPolyfill: Signed as unknown as typeof globalThis.WebSocket, disableBc: true, maxBackoffTime: 500 });
    open.push(provider);
    await new Promise<void>((resolve) => provider.once("sync", () => resolve()));
    return { doc, text: doc.getText("text"), provider };
  }

  /** The status of an upgrade attempt (a refusal is plain HTTP with a problem). */
  function upgradeStatus(path: string, headers: Record<string, string>): Promise<number> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`${node.url.replace("http:", "ws:")}${path}`, { headers });
      ws.on("unexpected-response", (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on("open", () => {
        resolve(101);
        ws.close();
      });
      ws.on("error", () => undefined);
    });
  }

  before(async () => {
    node = await startCharter({ edition: "node", env: { CHARTER_COLLAB_SAVE_MS: "100" } });
    api = new ApiClient(node);
    const made = await createAccount(api, printedSetupCode(node));
    phone = made.cookie;
    laptop = await signIn(api, made.auth);
    await waitFor("the personal vault open", async () => ((await k("list", {})).status === 200 ? true : undefined), 30_000);
  });
  after(async () => {
    // The client's awareness keeps a timer until it is destroyed with its document.
    for (const provider of open) {
      provider.destroy();
      provider.awareness.destroy();
      provider.doc.destroy();
    }
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("two devices type at once, converge, and the vault keeps the merged text", async () => {
    assert.equal((await k("write", { path: "Shared/Plan", text: "Plan:\n" })).status, 200);
    const opened = await api.call("POST", "/api/collab", { cookie: phone, body: { path: "Shared/Plan" } });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const id = String(opened.body.id);
    assert.equal(opened.body.socket, `/api/collab/${id}`);

    const a = await device(phone, id);
    const b = await device(laptop, id);
    assert.equal(a.text.toString(), "Plan:\n");
    assert.equal(b.text.toString(), "Plan:\n");
    assert.equal((await api.call("GET", `/api/collab/${id}`, { cookie: laptop })).body.clients, 2);

    // Both type at the same moment, at the same place and elsewhere.
    a.text.insert(a.text.length, "- buy seeds\n");
    b.text.insert(b.text.length, "- fix the fence\n");
    b.text.insert(0, "# ");
    await waitFor("both devices converged", () => (a.text.toString() === b.text.toString() && a.text.toString().includes("seeds") && a.text.toString().includes("fence") ? true : undefined), 5000);
    const merged = a.text.toString();
    assert.match(merged, /^# Plan:\n/);

    await waitFor("the merged text saved to the vault", async () => ((await k("read", { path: "Shared/Plan" })).body.text === merged ? true : undefined), 5000);
    assert.equal(readFileSync(join(node.dataDir, "vaults", "personal", "Shared", "Plan.md"), "utf8"), merged);
    const history = await k("history", { path: "Shared/Plan" });
    assert.ok(history.body.items.some((h: { origin: string; action: string }) => h.origin === "collab" && h.action === "Write"), JSON.stringify(history.body.items));

    // An edit made in the folder while both are connected is merged in, and their typing kept.
    const disk = join(node.dataDir, "vaults", "personal", "Shared", "Plan.md");
    writeFileSync(disk, `${merged}- from the editor\n`);
    a.text.insert(a.text.length, "- typed meanwhile\n");
    await waitFor(
      "the folder's edit in both documents",
      () => {
        const t = a.text.toString();
        return t === b.text.toString() && t.includes("- from the editor") && t.includes("- typed meanwhile") ? true : undefined;
      },
      5000,
    );
    await waitFor("the vault has both", async () => {
      const text = String((await k("read", { path: "Shared/Plan" })).body.text);
      return text.includes("- from the editor") && text.includes("- typed meanwhile") && text === a.text.toString() ? true : undefined;
    }, 5000);

    // The last device to leave saves what is left.
    b.text.insert(b.text.length, "- last words\n");
    a.provider.destroy();
    b.provider.destroy();
    await waitFor("the last edit saved once both left", async () => (String((await k("read", { path: "Shared/Plan" })).body.text).endsWith("- last words\n") ? true : undefined), 5000);
  });

  it("refuses an upgrade without a session, from another origin, or for a note that is not there", async () => {
    await k("write", { path: "Shared/Guarded", text: "x" });
    const id = String((await api.call("POST", "/api/collab", { cookie: phone, body: { path: "Shared/Guarded" } })).body.id);
    assert.equal(await upgradeStatus(`/api/collab/${id}`, { origin: api.origin }), 401);
    assert.equal(await upgradeStatus(`/api/collab/${id}`, { cookie: phone, origin: "http://evil.example" }), 403);
    assert.equal(await upgradeStatus("/api/collab/note-missing", { cookie: phone, origin: api.origin }), 404);
    assert.equal(await upgradeStatus("/api/collab/note-a%2F..%2Fevents", { cookie: phone, origin: api.origin }), 400);
    assert.equal(await upgradeStatus(`/api/collab/${id}`, { cookie: phone, origin: api.origin }), 101);
    assert.equal((await api.call("POST", "/api/collab", { cookie: phone, body: { path: "../x" } })).status, 400);
    assert.equal((await api.call("POST", "/api/collab", { cookie: phone, body: { path: "Nowhere" } })).status, 404);
    assert.equal((await api.call("GET", "/api/collab/not-a-note", { cookie: phone })).status, 400);
    assert.equal((await api.call("GET", `/api/collab/${id}`, {})).status, 401);
  });

  it("closes a socket whose messages are not the protocol, and only that one", async () => {
    await k("write", { path: "Shared/Noise", text: "steady" });
    const id = String((await api.call("POST", "/api/collab", { cookie: phone, body: { path: "Shared/Noise" } })).body.id);
    const good = await device(phone, id);
    for (const junk of [Buffer.from([0, 2, 200, 200, 200, 200, 200, 200, 200, 200, 1]), Buffer.from([7, 1, 2]), Buffer.from([1, 255, 255, 255, 255, 15]), Buffer.alloc(0)]) {
      const closed = await new Promise<number>((resolve) => {
        const ws = new WebSocket(`${node.url.replace("http:", "ws:")}/api/collab/${id}`, { headers: { cookie: laptop, origin: api.origin } });
        ws.on("open", () => ws.send(junk));
        ws.on("close", (code) => resolve(code));
        setTimeout(() => resolve(-1), 5000).unref();
        ws.on("error", () => undefined);
      });
      assert.ok([1003, 1002, 1008].includes(closed), `closed with ${closed}`);
    }
    good.text.insert(good.text.length, " and still here");
    await waitFor("the good device's edit saved", async () => ((await k("read", { path: "Shared/Noise" })).body.text === "steady and still here" ? true : undefined), 5000);
    good.provider.destroy();
  });
});
