/**
 * Memory notes, standing rules, the persona and the content mode on a real `charter node`: every
 * write is a command of `std.memory`, `std.rules` or `std.persona` signed as the person (history
 * names them), the contract refuses what it does not allow (text over a field's length:
 * `text_too_long`, nothing stored), wrong bodies are 400 naming each field, a deletion is an action
 * that erases the text from the state while history keeps both entries, search ranks kept notes
 * only, the persona's sensitive instructions need a step-up (nothing written without one), and
 * `/api/events` carries the commits.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { columnName, quote, tableName } from "../contracts/storage/columns.ts";
import { standardLibrary } from "../contracts/std/library.ts";
import { ApiClient, createAccount, printedSetupCode, stepUp } from "./helpers/api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";
import type { SoftAuthenticator } from "./helpers/soft-authenticator.ts";

const NAMESPACES = ["std.memory", "std.rules", "std.persona"];

/** A history entry as the store keeps it. */
interface Entry {
  seq: number;
  action: string;
  signer: string;
  outcome: string;
  committedAt: string;
  state: Record<string, unknown> | null;
}

describe("memory notes, standing rules and the persona through /api", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";
  let auth: SoftAuthenticator;
  let did = "";
  let tenant = "";
  let events: WebSocket;
  const frames: { namespace: string; action: string; subject: string; outcome: string; seq: number }[] = [];

  before(async () => {
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
    const created = await createAccount(api, printedSetupCode(node));
    cookie = created.cookie;
    auth = created.auth;
    const boot = await api.call("GET", "/api/bootstrap", { cookie });
    did = boot.body.person.did;
    tenant = boot.body.tenant.handle;
    await waitFor("the node's contracts in the personal tenant", async () => {
      const b = await api.call("GET", "/api/bootstrap", { cookie });
      const have = new Set((b.body.tenant.contracts as { namespace: string }[]).map((c) => c.namespace));
      return NAMESPACES.every((n) => have.has(n)) ? true : undefined;
    });
    events = new WebSocket(`${node.url.replace(/^http/, "ws")}/api/events`, { headers: { cookie, origin: api.origin } });
    events.on("message", (data) => {
      const frame = JSON.parse(String(data));
      if (frame.kind === "commit" && NAMESPACES.includes(frame.namespace)) frames.push(frame);
    });
    await once(events, "open");
  });
  after(async () => {
    events?.close();
    if (node !== undefined) {
      await stopCharter(node);
      cleanup(node.dataDir);
    }
  });

  /** Reads the store directly, as an auditor would. */
  function store<T>(fn: (db: DatabaseSync) => T): T {
    const db = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }

  function history(namespace: string, subject: string): Entry[] {
    return store((db) =>
      (db.prepare("SELECT seq, action, signer, outcome, committed_at, receipt FROM history WHERE tenant = ? AND namespace = ? AND subject = ? ORDER BY seq").all(tenant, namespace, subject) as Record<string, unknown>[]).map((r) => ({
        seq: Number(r.seq),
        action: String(r.action),
        signer: String(r.signer),
        outcome: String(r.outcome),
        committedAt: new Date(Number(r.committed_at)).toISOString(),
        state: (JSON.parse(String(r.receipt)) as { state: Record<string, unknown> | null }).state,
      })),
    );
  }

  function historyCount(namespace: string): number {
    return store((db) => Number((db.prepare("SELECT count(*) AS n FROM history WHERE tenant = ? AND namespace = ?").get(tenant, namespace) as { n: number }).n));
  }

  /** The stored state row of `subject` (public and private columns), or undefined. */
  function stateRow(namespace: string, aggregate: string, subject: string): Record<string, unknown> | undefined {
    const artifact = standardLibrary().find((a) => a.namespace === namespace);
    assert.ok(artifact !== undefined);
    const table = tableName(JSON.parse(artifact.schemaJson), aggregate);
    return store((db) => db.prepare(`SELECT * FROM ${quote(table)} WHERE tenant = ? AND subject = ?`).get(tenant, subject) as Record<string, unknown> | undefined);
  }

  async function allNotes(): Promise<{ id: string; text: string }[]> {
    const listed = await api.call("GET", "/api/memory?limit=200", { cookie });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return listed.body.items;
  }

  describe("memory notes", () => {
    let first: any;

    it("POST /api/memory is std.memory's Add signed by the person: 201 with the note, createdAt from its history entry", async () => {
      const added = await api.call("POST", "/api/memory", { cookie, body: { text: "Ada's sister is called Grete", tags: ["family", "names"] } });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      first = added.body;
      assert.match(first.id, /^note-[0-9a-z]{9}-[0-9a-f]{12}$/);
      assert.equal(first.text, "Ada's sister is called Grete");
      assert.deepEqual(first.tags, ["family", "names"]);
      assert.equal(first.createdBy, did);
      assert.equal(first.receipt.outcome, "accepted");
      assert.equal(first.receipt.signer, did);
      assert.deepEqual([first.receipt.namespace, first.receipt.action, first.receipt.subject], ["std.memory", "Add", first.id]);
      const entries = history("std.memory", first.id);
      assert.deepEqual(
        entries.map((e) => [e.action, e.signer, e.outcome]),
        [["Add", did, "accepted"]],
      );
      assert.equal(first.createdAt, entries[0]?.committedAt);

      const untagged = await api.call("POST", "/api/memory", { cookie, body: { text: "prefers tea in the afternoon" } });
      assert.equal(untagged.status, 201, JSON.stringify(untagged.body));
      assert.deepEqual(untagged.body.tags, []);

      const listed = await allNotes();
      const mine = listed.find((n) => n.id === first.id);
      assert.deepEqual(mine, { id: first.id, text: first.text, tags: first.tags, createdAt: first.createdAt, createdBy: did });
      assert.ok(listed.some((n) => n.id === untagged.body.id));
    });

    it("GET /api/memory pages by id with ?after=&limit=", async () => {
      for (const text of ["one", "two", "three"]) assert.equal((await api.call("POST", "/api/memory", { cookie, body: { text: `page note ${text}` } })).status, 201);
      const all = (await allNotes()).map((n) => n.id);
      assert.equal(all.length, 5);
      assert.deepEqual(all, [...all].sort(), "in id order");
      const seen: string[] = [];
      let next: string | null = null;
      let pages = 0;
      do {
        const page = await api.call("GET", `/api/memory?limit=2${next === null ? "" : `&after=${next}`}`, { cookie });
        assert.equal(page.status, 200, JSON.stringify(page.body));
        assert.ok(page.body.items.length <= 2);
        seen.push(...page.body.items.map((n: { id: string }) => n.id));
        next = page.body.next;
        pages++;
      } while (next !== null && pages < 10);
      assert.deepEqual(seen, all);
      assert.equal(pages, 3);
      for (const bad of ["limit=0", "limit=201", "limit=x", "after=%%%"]) {
        const answer = await api.call("GET", `/api/memory?${bad}`, { cookie });
        assert.deepEqual([answer.status, answer.body.code], [400, "bad-parameters"], bad);
      }
    });

    it("text over 4,000 characters is refused by the contract: 422 text_too_long with the receipt, nothing stored", async () => {
      const before = await allNotes();
      const long = await api.call("POST", "/api/memory", { cookie, body: { text: "x".repeat(4001) } });
      assert.equal(long.status, 422, JSON.stringify(long.body).slice(0, 300));
      assert.equal(long.headers.get("content-type"), "application/problem+json");
      assert.deepEqual([long.body.code, long.body.reason], ["refused", "text_too_long"]);
      assert.equal(long.body.receipt.outcome, "refused");
      assert.equal(long.body.receipt.reason.code, "text_too_long");
      assert.equal(long.body.receipt.signer, did);
      assert.equal(stateRow("std.memory", "Note", long.body.receipt.subject), undefined, "no record");
      assert.deepEqual(
        history("std.memory", long.body.receipt.subject).map((e) => e.outcome),
        ["refused"],
      );
      const exactly = await api.call("POST", "/api/memory", { cookie, body: { text: "y".repeat(4000) } });
      assert.equal(exactly.status, 201, "4,000 characters are allowed");
      assert.equal((await api.call("DELETE", `/api/memory/${exactly.body.id}`, { cookie })).status, 204);

      const cases: [unknown, string][] = [
        [{ text: "" }, "condition_failed"],
        [{ text: "tagged", tags: ["t".repeat(41)] }, "text_too_long"],
        [{ text: "tagged", tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, "list_full"],
      ];
      for (const [body, reason] of cases) {
        const answer = await api.call("POST", "/api/memory", { cookie, body });
        assert.deepEqual([answer.status, answer.body.reason], [422, reason], JSON.stringify(answer.body).slice(0, 300));
      }
      assert.deepEqual(await allNotes(), before, "nothing was stored");
    });

    it("unknown fields and wrong types are 400 naming each; nothing is stored", async () => {
      const before = await allNotes();
      const cases: [unknown, string[]][] = [
        [{ text: 5, tags: "family" }, ["#/text", "#/tags"]],
        [{ text: "ok", tags: [1, "fine", null] }, ["#/tags/0", "#/tags/2"]],
        [{ tags: ["a"] }, ["#/text"]],
        [{ text: "ok", colour: "blue", id: "note-mine" }, ["#/colour", "#/id"]],
      ];
      for (const [body, pointers] of cases) {
        const answer = await api.call("POST", "/api/memory", { cookie, body });
        assert.deepEqual([answer.status, answer.body.code], [400, "malformed-body"], JSON.stringify(answer.body));
        assert.deepEqual(
          answer.body.errors.map((e: { pointer: string }) => e.pointer),
          pointers,
        );
      }
      const array = await api.call("POST", "/api/memory", { cookie, body: ["text"] });
      assert.deepEqual([array.status, array.body.code], [400, "malformed-body"]);
      const notJson = await fetch(`${node.url}/api/memory`, { method: "POST", headers: { cookie, origin: api.origin, "content-type": "application/json" }, body: "{text:" });
      assert.equal(notJson.status, 400);
      assert.deepEqual(await allNotes(), before);
    });

    it("DELETE /api/memory/{id} is std.memory's Delete: 204, the state's text erased, history keeps both entries signed by the person", async () => {
      const deleted = await api.call("DELETE", `/api/memory/${first.id}`, { cookie });
      assert.equal(deleted.status, 204, JSON.stringify(deleted.body));
      assert.equal(deleted.body, null);
      const row = stateRow("std.memory", "Note", first.id);
      assert.ok(row !== undefined);
      assert.equal(row[columnName("text")], "", "the text is erased from the state");
      assert.equal(row[columnName("tags")], "[]", "and the tags");
      assert.equal(Number(row[columnName("deleted")]), 1);
      const entries = history("std.memory", first.id);
      assert.deepEqual(
        entries.map((e) => [e.action, e.signer, e.outcome]),
        [
          ["Add", did, "accepted"],
          ["Delete", did, "accepted"],
        ],
      );
      assert.equal(entries[1]?.state?.text, "");
      assert.ok(!(await allNotes()).some((n) => n.id === first.id), "no longer listed");

      for (const id of [first.id, "note-00000000000000000000", "x".repeat(300), "..%2F..%2Fetc"]) {
        const gone = await api.call("DELETE", `/api/memory/${id}`, { cookie });
        assert.deepEqual([gone.status, gone.body.code], [404, "not-found"], id);
      }
      assert.equal(history("std.memory", first.id).length, 2, "a 404 writes nothing");
    });

    it("GET /api/memory?q= ranks kept notes by a word, with a score, and never finds a deleted one", async () => {
      const milk = (await api.call("POST", "/api/memory", { cookie, body: { text: "Buy oat milk on Fridays", tags: ["shopping"] } })).body;
      const plumber = (await api.call("POST", "/api/memory", { cookie, body: { text: "The plumber's number is in the blue folder" } })).body;
      const both = (await api.call("POST", "/api/memory", { cookie, body: { text: "Milk, milk and more milk for the plumber's cat" } })).body;
      const found = await api.call("GET", "/api/memory?q=plumber", { cookie });
      assert.equal(found.status, 200, JSON.stringify(found.body));
      assert.deepEqual(found.body.items.map((n: { id: string }) => n.id).sort(), [plumber.id, both.id].sort());
      assert.equal(found.body.next, null);
      for (const n of found.body.items) assert.equal(typeof n.score, "number");
      assert.ok(found.body.items[0].score >= found.body.items[1].score, "best first");

      const milky = await api.call("GET", "/api/memory?q=milk", { cookie });
      assert.deepEqual(
        milky.body.items.map((n: { id: string }) => n.id),
        [both.id, milk.id],
        "the note that says milk most ranks first",
      );
      assert.deepEqual(milky.body.items[1].tags, ["shopping"]);
      assert.equal(milky.body.items[1].createdAt, milk.createdAt);

      assert.equal((await api.call("DELETE", `/api/memory/${milk.id}`, { cookie })).status, 204);
      const after = await api.call("GET", "/api/memory?q=milk", { cookie });
      assert.deepEqual(
        after.body.items.map((n: { id: string }) => n.id),
        [both.id],
      );
      assert.deepEqual((await api.call("GET", "/api/memory?q=fridays", { cookie })).body.items, []);
      assert.deepEqual((await api.call("GET", "/api/memory?q=%22%3A*%29(", { cookie })).body.items, [], "no words, no match, no error");
      const paged = await api.call("GET", `/api/memory?q=milk&after=${Buffer.from(both.id).toString("base64url")}`, { cookie });
      assert.deepEqual([paged.status, paged.body.code], [400, "bad-parameters"]);
      const long = await api.call("GET", `/api/memory?q=${"w".repeat(401)}`, { cookie });
      assert.deepEqual([long.status, long.body.code], [400, "bad-parameters"]);
    });
  });

  describe("standing rules", () => {
    it("POST /api/rules → 201, listed; over 2,000 characters 422 text_too_long; wrong types 400; DELETE erases the text, history keeps both", async () => {
      const added = await api.call("POST", "/api/rules", { cookie, body: { text: "Answer in French on weekends" } });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      assert.match(added.body.id, /^rule-[0-9a-z]{9}-[0-9a-f]{12}$/);
      assert.equal(added.body.enabled, true);
      assert.equal(added.body.receipt.signer, did);
      assert.equal(added.body.createdAt, history("std.rules", added.body.id)[0]?.committedAt);
      const other = await api.call("POST", "/api/rules", { cookie, body: { text: "Never book flights before 9:00" } });
      assert.equal(other.status, 201);

      const listed = await api.call("GET", "/api/rules", { cookie });
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body.items.map((r: { id: string }) => r.id),
        [added.body.id, other.body.id].sort(),
      );
      assert.deepEqual(
        listed.body.items.find((r: { id: string }) => r.id === added.body.id),
        { id: added.body.id, text: "Answer in French on weekends", enabled: true, createdAt: added.body.createdAt, createdBy: did },
      );
      const page = await api.call("GET", "/api/rules?limit=1", { cookie });
      assert.equal(page.body.items.length, 1);
      assert.equal((await api.call("GET", `/api/rules?limit=1&after=${page.body.next}`, { cookie })).body.next, null);

      const long = await api.call("POST", "/api/rules", { cookie, body: { text: "r".repeat(2001) } });
      assert.deepEqual([long.status, long.body.code, long.body.reason, long.body.receipt?.outcome], [422, "refused", "text_too_long", "refused"]);
      for (const [body, pointer] of [
        [{ text: ["a"] }, "#/text"],
        [{}, "#/text"],
        [{ text: "ok", enabled: false }, "#/enabled"],
      ] as const) {
        const bad = await api.call("POST", "/api/rules", { cookie, body });
        assert.deepEqual([bad.status, bad.body.code, bad.body.errors?.[0]?.pointer], [400, "malformed-body", pointer]);
      }
      assert.equal((await api.call("GET", "/api/rules", { cookie })).body.items.length, 2, "nothing stored");

      assert.equal((await api.call("DELETE", `/api/rules/${added.body.id}`, { cookie })).status, 204);
      const row = stateRow("std.rules", "Rule", added.body.id);
      assert.equal(row?.[columnName("text")], "");
      assert.equal(Number(row?.[columnName("enabled")]), 0);
      assert.deepEqual(
        history("std.rules", added.body.id).map((e) => [e.action, e.signer, e.outcome]),
        [
          ["Add", did, "accepted"],
          ["Delete", did, "accepted"],
        ],
      );
      assert.deepEqual(
        (await api.call("GET", "/api/rules", { cookie })).body.items.map((r: { id: string }) => r.id),
        [other.body.id],
      );
      for (const id of [added.body.id, "rule-nothing"]) {
        const gone = await api.call("DELETE", `/api/rules/${id}`, { cookie });
        assert.deepEqual([gone.status, gone.body.code], [404, "not-found"]);
      }
    });
  });

  describe("persona and content mode", () => {
    it("GET /api/persona answers the contract's defaults before any write", async () => {
      const persona = await api.call("GET", "/api/persona", { cookie });
      assert.equal(persona.status, 200);
      assert.deepEqual(persona.body, { constitution: "", sensitiveInstructions: "", contentMode: "Standard" });
    });

    it("the constitution alone needs no step-up; the sensitive instructions do, and without one nothing of the request is written", async () => {
      const set = await api.call("PUT", "/api/persona", { cookie, body: { constitution: "Be brief and kind." } });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal(set.body.constitution, "Be brief and kind.");
      assert.equal(set.body.updatedBy, did);
      assert.deepEqual(
        set.body.receipts.map((r: { action: string; signer: string; outcome: string }) => [r.action, r.signer, r.outcome]),
        [["SetConstitution", did, "accepted"]],
      );
      const entries = history("std.persona", "persona");
      assert.equal(set.body.updatedAt, entries.at(-1)?.committedAt);

      const count = historyCount("std.persona");
      const refused = await api.call("PUT", "/api/persona", { cookie, body: { constitution: "Be long-winded.", sensitiveInstructions: "Never mention the divorce." } });
      assert.deepEqual([refused.status, refused.body.code], [403, "step-up-required"]);
      assert.equal(historyCount("std.persona"), count, "nothing written");
      assert.equal((await api.call("GET", "/api/persona", { cookie })).body.constitution, "Be brief and kind.", "not even the constitution");

      const unchanged = await api.call("PUT", "/api/persona", { cookie, body: { constitution: "Be brief and kind.", sensitiveInstructions: "" } });
      assert.equal(unchanged.status, 200, "sending the stored values changes nothing, so needs no step-up");
      assert.deepEqual(unchanged.body.receipts, []);
      assert.equal(historyCount("std.persona"), count);
      // Nor through the generic write routes: the step-up is asked wherever the action is signed.
      for (const [path, body] of [
        ["/api/data/act", { namespace: "std.persona", action: "SetSensitiveInstructions", subject: "persona", args: { sensitive_instructions: "x" } }],
        ["/api/personal/std.persona/actions/SetSensitiveInstructions", { subject: "persona", args: { sensitive_instructions: "x" } }],
      ] as const) {
        const generic = await api.call("POST", path, { cookie, body });
        assert.deepEqual([generic.status, generic.body.code], [403, "step-up-required"], path);
      }
      assert.equal(historyCount("std.persona"), count);

      await stepUp(api, auth, cookie);
      const both = await api.call("PUT", "/api/persona", { cookie, body: { constitution: "Be long-winded.", sensitiveInstructions: "Never mention the divorce." } });
      assert.equal(both.status, 200, JSON.stringify(both.body));
      assert.deepEqual(
        { constitution: both.body.constitution, sensitiveInstructions: both.body.sensitiveInstructions, contentMode: both.body.contentMode },
        { constitution: "Be long-winded.", sensitiveInstructions: "Never mention the divorce.", contentMode: "Standard" },
      );
      assert.deepEqual(
        both.body.receipts.map((r: { action: string }) => r.action),
        ["SetConstitution", "SetSensitiveInstructions"],
      );
      assert.deepEqual(
        history("std.persona", "persona").map((e) => [e.action, e.signer, e.outcome]),
        [
          ["SetConstitution", did, "accepted"],
          ["SetConstitution", did, "accepted"],
          ["SetSensitiveInstructions", did, "accepted"],
        ],
      );
      const read = await api.call("GET", "/api/persona", { cookie });
      assert.deepEqual(read.body, { constitution: both.body.constitution, sensitiveInstructions: both.body.sensitiveInstructions, contentMode: "Standard", updatedAt: both.body.updatedAt, updatedBy: did });
    });

    it("over 8,000 characters is 422 text_too_long and unchanged; wrong types and unknown fields are 400", async () => {
      const before = await api.call("GET", "/api/persona", { cookie });
      const count = historyCount("std.persona");
      const long = await api.call("PUT", "/api/persona", { cookie, body: { sensitiveInstructions: "s".repeat(8001) } });
      assert.deepEqual([long.status, long.body.code, long.body.reason], [422, "refused", "text_too_long"]);
      assert.equal(long.body.receipt.action, "SetSensitiveInstructions");
      // Two changes, the second refused: it is signed alone, and the first is not written either.
      const half = await api.call("PUT", "/api/persona", { cookie, body: { constitution: "Be terse.", sensitiveInstructions: "s".repeat(8001) } });
      assert.deepEqual([half.status, half.body.reason, half.body.receipt?.action], [422, "text_too_long", "SetSensitiveInstructions"]);
      for (const [body, pointers] of [
        [{ constitution: 1, sensitiveInstructions: true }, ["#/constitution", "#/sensitiveInstructions"]],
        [{ contentMode: "Strict" }, ["#/contentMode"]],
      ] as const) {
        const bad = await api.call("PUT", "/api/persona", { cookie, body });
        assert.deepEqual([bad.status, bad.body.code], [400, "malformed-body"]);
        assert.deepEqual(
          bad.body.errors.map((e: { pointer: string }) => e.pointer),
          pointers,
        );
      }
      assert.deepEqual((await api.call("GET", "/api/persona", { cookie })).body, before.body);
      assert.equal(historyCount("std.persona"), count + 2, "only the refusals' entries");
    });

    it("PUT /api/content-mode sets the mode as its own action; an unknown mode or a wrong type changes nothing", async () => {
      const set = await api.call("PUT", "/api/content-mode", { cookie, body: { mode: "Strict" } });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal(set.body.contentMode, "Strict");
      assert.deepEqual([set.body.receipt.action, set.body.receipt.signer], ["SetContentMode", did]);
      assert.equal(history("std.persona", "persona").at(-1)?.action, "SetContentMode");
      assert.equal((await api.call("GET", "/api/persona", { cookie })).body.contentMode, "Strict");

      const count = historyCount("std.persona");
      for (const [body, pointer] of [
        [{ mode: "Wild" }, "#/mode"],
        [{ mode: "strict" }, "#/mode"],
        [{ mode: 2 }, "#/mode"],
        [{}, "#/mode"],
        [{ mode: "Relaxed", extra: 1 }, "#/extra"],
      ] as const) {
        const bad = await api.call("PUT", "/api/content-mode", { cookie, body });
        assert.equal(bad.status, 400, `${JSON.stringify(body)} → ${JSON.stringify(bad.body)}`);
        assert.deepEqual(
          bad.body.errors.map((e: { pointer: string }) => e.pointer),
          [pointer],
        );
      }
      assert.equal(historyCount("std.persona"), count);
      assert.equal((await api.call("GET", "/api/persona", { cookie })).body.contentMode, "Strict");
      const relaxed = await api.call("PUT", "/api/content-mode", { cookie, body: { mode: "Relaxed" } });
      assert.equal(relaxed.body.contentMode, "Relaxed");
    });
  });

  it("every route needs a session, and a write the node's Origin", async () => {
    for (const [method, path] of [
      ["GET", "/api/memory"],
      ["POST", "/api/memory"],
      ["DELETE", "/api/memory/note-1"],
      ["GET", "/api/rules"],
      ["POST", "/api/rules"],
      ["DELETE", "/api/rules/rule-1"],
      ["GET", "/api/persona"],
      ["PUT", "/api/persona"],
      ["PUT", "/api/content-mode"],
    ] as const) {
      const anonymous = await api.call(method, path, { body: { text: "x" } });
      assert.deepEqual([anonymous.status, anonymous.body.code], [401, "unauthenticated"], `${method} ${path}`);
      if (method === "GET") continue;
      const foreign = await api.call(method, path, { cookie, origin: "http://evil.example", body: { text: "x" } });
      assert.deepEqual([foreign.status, foreign.body.code], [403, "bad-origin"], `${method} ${path}`);
    }
  });

  it("/api/events carries the commits of every write, refusals included", async () => {
    const seqs = store((db) => (db.prepare("SELECT seq FROM history WHERE tenant = ? AND namespace IN ('std.memory', 'std.rules', 'std.persona') ORDER BY seq").all(tenant) as { seq: number }[]).map((r) => Number(r.seq)));
    await waitFor("every commit on the socket", () => (frames.length >= seqs.length ? true : undefined));
    assert.deepEqual(
      frames.map((f) => f.seq),
      seqs,
    );
    const kinds = new Set(frames.map((f) => `${f.namespace} ${f.action} ${f.outcome}`));
    for (const kind of ["std.memory Add accepted", "std.memory Add refused", "std.memory Delete accepted", "std.rules Add accepted", "std.rules Delete accepted", "std.persona SetConstitution accepted", "std.persona SetSensitiveInstructions accepted", "std.persona SetSensitiveInstructions refused", "std.persona SetContentMode accepted"]) {
      assert.ok(kinds.has(kind), kind);
    }
  });
});
