/**
 * Knowledge vaults on a real `charter node`: notes written, read, appended, moved and deleted
 * through `POST /api/knowledge`, each change a `std.knowledge` command signed as the person and
 * each revision readable again; a stale write refused; notes edited, added, renamed and removed in
 * the vault's folder with no route at all, picked up by the watcher; full-text search with
 * snippets, links and backlinks (after a move too), tags; and bad input (paths that leave the
 * vault, unknown operations and arguments) refused with nothing written.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Answer, ApiClient, createAccount, printedSetupCode } from "./helpers/api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";

describe("knowledge vaults", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";
  const vaultDir = () => join(node.dataDir, "vaults", "personal");
  const k = (operation: string, args: Record<string, unknown> = {}, vault?: string): Promise<Answer> =>
    api.call("POST", "/api/knowledge", { cookie, body: { operation, args, ...(vault === undefined ? {} : { vault }) } });
  const ok = async (operation: string, args: Record<string, unknown> = {}) => {
    const answer = await k(operation, args);
    assert.equal(answer.status, 200, `${operation} ${JSON.stringify(args).slice(0, 200)}: ${JSON.stringify(answer.body)}`);
    return answer.body as Record<string, unknown> & { items: Record<string, unknown>[] };
  };

  before(async () => {
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
    const made = await createAccount(api, printedSetupCode(node));
    cookie = made.cookie;
    await waitFor("the personal vault open", async () => ((await k("list")).status === 200 ? true : undefined), 30_000);
  });
  after(async () => {
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("writes, reads and keeps every revision; a stale revision is 409 and changes nothing", async () => {
    const first = await ok("write", { path: "Projects/Charter", text: "# Charter\n\nA local-first backend.\n" });
    assert.deepEqual({ path: first.path, revision: first.revision }, { path: "Projects/Charter.md", revision: 1 });
    assert.equal(readFileSync(join(vaultDir(), "Projects", "Charter.md"), "utf8"), "# Charter\n\nA local-first backend.\n");

    const again = await k("write", { path: "Projects/Charter.md", text: "made twice" });
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.equal(again.body.code, "stale-revision");
    assert.equal(again.body.revision, 1);

    const second = await ok("write", { path: "Projects/Charter.md", text: "# Charter\n\nA local-first backend, with notes.\n", revision: 1 });
    assert.equal(second.revision, 2);
    const stale = await k("write", { path: "Projects/Charter.md", text: "from an old copy", revision: 1 });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.code, "stale-revision");
    assert.equal(stale.body.revision, 2);

    const read = await ok("read", { path: "Projects/Charter.md" });
    assert.equal(read.text, "# Charter\n\nA local-first backend, with notes.\n");
    assert.equal(read.revision, 2);
    const old = await ok("read", { path: "Projects/Charter.md", revision: 1 });
    assert.equal(old.text, "# Charter\n\nA local-first backend.\n");
    assert.equal((await k("read", { path: "Projects/Charter.md", revision: 9 })).status, 404);

    const history = await ok("history", { path: "Projects/Charter.md" });
    assert.deepEqual(
      history.items.map((h) => [h.action, h.revision, h.origin]),
      [
        ["Write", 2, "node"],
        ["Create", 1, "node"],
      ],
    );
    // Signed as the person (the node's own key signs nothing here).
    assert.match(String(history.items[0]?.by), /^did:key:z/);
    assert.equal(history.items[0]?.by, history.items[1]?.by);
    // The generic write routes do not sign a note's commands: its file would not follow.
    const generic = await api.call("POST", "/api/data/act", { cookie, body: { namespace: "std.knowledge", action: "Delete", subject: "x", args: { origin: "node" } } });
    assert.equal(generic.status, 403);
    assert.equal(generic.body.code, "dedicated-route");
  });

  it("appends, lists by folder with pages, deletes", async () => {
    await ok("append", { path: "Journal/2026-11-25", text: "- wrote the vaults" });
    const appended = await ok("append", { path: "Journal/2026-11-25", text: "- tested them" });
    assert.equal(appended.revision, 2);
    assert.equal((await ok("read", { path: "Journal/2026-11-25" })).text, "- wrote the vaults\n- tested them");
    for (const n of [1, 2, 3]) await ok("write", { path: `Journal/day-${n}`, text: `day ${n}` });
    const page1 = await ok("list", { folder: "Journal", limit: 2 });
    assert.deepEqual(
      page1.items.map((i) => i.path),
      ["Journal/2026-11-25.md", "Journal/day-1.md"],
    );
    const page2 = await ok("list", { folder: "Journal", limit: 2, after: page1.next });
    assert.deepEqual(
      page2.items.map((i) => i.path),
      ["Journal/day-2.md", "Journal/day-3.md"],
    );
    assert.equal(page2.next, null);
    const deleted = await ok("delete", { path: "Journal/day-3", revision: 1 });
    assert.equal(deleted.deleted, true);
    assert.equal(existsSync(join(vaultDir(), "Journal", "day-3.md")), false);
    assert.equal((await k("read", { path: "Journal/day-3" })).status, 404);
    // Written again, it is a new note.
    assert.equal((await ok("write", { path: "Journal/day-3", text: "again" })).revision, 1);
    // The vaults there are, each with its count of notes.
    const listed = await ok("list", { limit: 200 });
    const vaults = await ok("vaults", {});
    assert.equal(vaults.items.length, 1);
    assert.deepEqual([vaults.items[0]?.name, vaults.items[0]?.notes], ["personal", listed.items.length]);
    assert.ok(Date.parse(String(vaults.items[0]?.updatedAt)) > 0, JSON.stringify(vaults));
    assert.equal((await k("vaults", { name: "x" })).status, 400, "vaults takes no argument");
  });

  it("picks up notes written, edited, renamed and removed in the folder by any editor", async () => {
    mkdirSync(join(vaultDir(), "Inbox"), { recursive: true });
    writeFileSync(join(vaultDir(), "Inbox", "From editor.md"), "# From an editor\n\nplatypus migration notes #wildlife\n");
    const found = await waitFor("the note written on disk indexed", async () => {
      const hits = await ok("search", { q: "platypus" });
      return hits.items.length > 0 ? hits : undefined;
    }, 10_000);
    assert.equal(found.items[0]?.path, "Inbox/From editor.md");
    const read = await ok("read", { path: "Inbox/From editor.md" });
    assert.equal(read.revision, 1);

    writeFileSync(join(vaultDir(), "Inbox", "From editor.md"), "# From an editor\n\nplatypus and echidna notes #wildlife\n");
    await waitFor("the edit made on disk recorded", async () => ((await ok("search", { q: "echidna" })).items.length > 0 ? true : undefined), 10_000);
    const history = await ok("history", { path: "Inbox/From editor.md" });
    assert.deepEqual(
      history.items.map((h) => [h.action, h.revision, h.origin]),
      [
        ["Write", 2, "disk"],
        ["Create", 1, "disk"],
      ],
    );
    // A write from the revision before the edit on disk is stale.
    assert.equal((await k("write", { path: "Inbox/From editor.md", text: "x", revision: 1 })).status, 409);

    // Renamed in the folder: the same note, moved (its history goes with it).
    renameSync(join(vaultDir(), "Inbox", "From editor.md"), join(vaultDir(), "Inbox", "Wildlife.md"));
    await waitFor("the rename on disk taken in", async () => ((await k("read", { path: "Inbox/Wildlife.md" })).status === 200 ? true : undefined), 10_000);
    assert.equal((await k("read", { path: "Inbox/From editor.md" })).status, 404);
    const moved = await ok("history", { path: "Inbox/Wildlife.md" });
    assert.deepEqual(
      moved.items.map((h) => [h.action, h.origin]),
      [
        ["Move", "disk"],
        ["Write", "disk"],
        ["Create", "disk"],
      ],
    );

    rmSync(join(vaultDir(), "Inbox", "Wildlife.md"));
    await waitFor("the removal on disk taken in", async () => ((await ok("search", { q: "echidna" })).items.length === 0 ? true : undefined), 10_000);
    assert.equal((await k("read", { path: "Inbox/Wildlife.md" })).status, 404);
    // Files that are not notes are left alone.
    writeFileSync(join(vaultDir(), "Inbox", "picture.png"), "not a note");
    writeFileSync(join(vaultDir(), ".hidden.md"), "# hidden");
    await ok("write", { path: "Inbox/marker", text: "after the others" });
    assert.ok(!(await ok("list", { folder: "Inbox" })).items.some((i) => String(i.path).includes("picture") || String(i.path).includes("hidden")));
  });

  it("searches with ranked snippets, and knows tags", async () => {
    await ok("write", { path: "Recipes/Bread", text: "# Sourdough bread\n\nFlour, water, salt and a sourdough starter. #baking #food\n" });
    await ok("write", { path: "Recipes/Pizza", text: "---\ntags: [baking, italian]\n---\n# Pizza\n\nA dough like bread, baked hot.\n" });
    const hits = await ok("search", { q: "sourdough" });
    assert.equal(hits.items[0]?.path, "Recipes/Bread.md");
    assert.match(String(hits.items[0]?.snippet), /\*\*[Ss]ourdough\*\*/);
    assert.ok(Number(hits.items[0]?.score) > 0);
    // Every word must occur; the last may be the start of a word.
    assert.deepEqual(
      (await ok("search", { q: "dough bak" })).items.map((i) => i.path),
      ["Recipes/Pizza.md"],
    );
    // FTS5 syntax in the words is only words.
    assert.equal((await k("search", { q: '"unbalanced OR NEAR(' })).status, 200);
    const tags = await ok("tags");
    assert.deepEqual(
      tags.items.find((t) => t.tag === "baking"),
      { tag: "baking", count: 2 },
    );
    assert.deepEqual(
      (await ok("tags", { tag: "#italian" })).items.map((i) => i.path),
      ["Recipes/Pizza.md"],
    );
  });

  it("follows wiki and Markdown links both ways, and after a move", async () => {
    await ok("write", { path: "Topics/Gardening", text: "# Gardening\n" });
    await ok("write", { path: "Daily/Monday", text: "Worked on [[Gardening]] and [the bread](../Recipes/Bread.md), see [[Missing note]].\n`[[Not a link]]`\n" });
    await ok("write", { path: "Daily/Tuesday", text: "More [[gardening|the garden]].\n" });
    const links = await ok("links", { path: "Daily/Monday" });
    assert.deepEqual(
      links.items.map((l) => [l.kind, l.target, l.path]),
      [
        ["md", "Recipes/Bread.md", "Recipes/Bread.md"],
        ["wiki", "gardening", "Topics/Gardening.md"],
        ["wiki", "missing note", null],
      ],
    );
    assert.deepEqual(
      (await ok("backlinks", { path: "Topics/Gardening" })).items.map((i) => i.path),
      ["Daily/Monday.md", "Daily/Tuesday.md"],
    );
    assert.deepEqual(
      (await ok("backlinks", { path: "Recipes/Bread" })).items.map((i) => i.path),
      ["Daily/Monday.md"],
    );
    const moved = await ok("move", { path: "Topics/Gardening", to: "Archive/Gardening", revision: 1 });
    assert.deepEqual(moved, { path: "Archive/Gardening.md", from: "Topics/Gardening.md", revision: 1 });
    assert.equal(existsSync(join(vaultDir(), "Topics", "Gardening.md")), false);
    assert.ok(existsSync(join(vaultDir(), "Archive", "Gardening.md")));
    assert.deepEqual(
      (await ok("backlinks", { path: "Archive/Gardening" })).items.map((i) => i.path),
      ["Daily/Monday.md", "Daily/Tuesday.md"],
    );
    assert.equal((await k("move", { path: "Daily/Monday", to: "Daily/Tuesday" })).body.code, "note-exists");
    const history = await ok("history", { path: "Archive/Gardening" });
    assert.deepEqual(
      history.items.map((h) => [h.action, h.path]),
      [
        ["Move", "Archive/Gardening.md"],
        ["Create", "Topics/Gardening.md"],
      ],
    );
  });

  it("after a restart, has what changed in the folder while the node was stopped, even with its index gone", async () => {
    await ok("write", { path: "Restart/kept", text: "kept as it was" });
    await ok("write", { path: "Restart/edited", text: "before the stop" });
    await ok("write", { path: "Restart/removed", text: "removed while stopped" });
    const dataDir = node.dataDir;
    await stopCharter(node);
    writeFileSync(join(dataDir, "vaults", "personal", "Restart", "edited.md"), "edited while stopped: quokka");
    writeFileSync(join(dataDir, "vaults", "personal", "Restart", "added.md"), "added while stopped");
    rmSync(join(dataDir, "vaults", "personal", "Restart", "removed.md"));
    rmSync(join(dataDir, "knowledge"), { recursive: true });
    node = await startCharter({ edition: "node", dataDir });
    api = new ApiClient(node);
    await waitFor("the vault open again", async () => ((await k("list")).status === 200 ? true : undefined), 30_000);
    assert.deepEqual(
      (await ok("list", { folder: "Restart" })).items.map((i) => [i.path, i.revision]),
      [
        ["Restart/added.md", 1],
        ["Restart/edited.md", 2],
        ["Restart/kept.md", 1],
      ],
    );
    assert.equal((await ok("read", { path: "Restart/edited", revision: 1 })).text, "before the stop");
    assert.equal((await ok("search", { q: "quokka" })).items[0]?.path, "Restart/edited.md");
    assert.equal((await k("read", { path: "Restart/removed" })).status, 404);
    // Notes from before the stop are all still there, with their history.
    assert.equal((await ok("read", { path: "Projects/Charter" })).revision, 2);
    assert.deepEqual(
      (await ok("backlinks", { path: "Archive/Gardening" })).items.map((i) => i.path),
      ["Daily/Monday.md", "Daily/Tuesday.md"],
    );
  });

  it("answers arbitrary operations and arguments with a problem or a result, never a failure, and writes only inside the vault", async () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const bits = ["..", "/", "\\", ".", "\u0000", "a", "Note", "%2e%2e", "~", " ", "日本", "#", "[[x]]", ".md", "con", "\n"];
    const text = () => Array.from({ length: rand(6) }, () => bits[rand(bits.length)]).join("");
    const values = () => [text(), rand(5) - 1, null, true, [], {}, "x".repeat(rand(3) * 700), { path: text() }][rand(8)];
    const operations = ["list", "read", "write", "append", "move", "delete", "search", "links", "backlinks", "tags", "history", "vaults", "", "LIST", "__proto__", "constructor"];
    const fields = ["path", "to", "text", "revision", "q", "limit", "after", "folder", "tag", "x"];
    const before = readdirSync(node.dataDir).sort();
    for (let i = 0; i < 300; i++) {
      const args: Record<string, unknown> = {};
      for (let f = rand(4); f > 0; f--) args[fields[rand(fields.length)] as string] = values();
      const answer = await k(operations[rand(operations.length)] as string, args, rand(6) === 0 ? text() : undefined);
      assert.ok([200, 400, 404, 409, 413].includes(answer.status), `${answer.status}: ${JSON.stringify(answer.body)}`);
      if (answer.status !== 200) assert.equal(typeof answer.body.code, "string");
    }
    assert.deepEqual(readdirSync(node.dataDir).sort(), before);
    assert.equal((await k("list")).status, 200);
  });

  it("refuses paths that leave the vault, and bad bodies, writing nothing", async () => {
    const before = readdirSync(node.dataDir).sort();
    const paths = ["../escape", "../../etc/passwd", "/etc/passwd", "a/../../b", "a/./b", "nul\u0000byte", "back\\slash", ".hidden", "a/.git/config", "a//b", `${"x".repeat(300)}`, `${"d/".repeat(600)}x`, "", 42, null];
    for (const path of paths) {
      for (const operation of ["write", "read", "append", "delete", "history"]) {
        const answer = await k(operation, operation === "write" || operation === "append" ? { path, text: "x" } : { path });
        assert.equal(answer.status, 400, `${operation} ${JSON.stringify(path).slice(0, 60)}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.errors?.[0]?.pointer, "#/args/path");
      }
    }
    assert.equal((await k("move", { path: "Daily/Monday", to: "../out" })).body.errors?.[0]?.pointer, "#/args/to");
    assert.equal((await k("list", { folder: "../.." })).status, 400);
    assert.deepEqual(readdirSync(node.dataDir).sort(), before);
    assert.equal(existsSync(join(node.dataDir, "vaults", "escape.md")), false);

    const unknown = await k("explode", {});
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, "unknown-operation");
    assert.deepEqual(unknown.body.operations, ["list", "read", "write", "append", "move", "delete", "search", "links", "backlinks", "tags", "history", "vaults"]);
    assert.equal((await api.call("POST", "/api/knowledge", { cookie, body: { args: {} } })).body.code, "unknown-operation");
    const extra = await k("read", { path: "a", force: true });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.errors?.[0]?.pointer, "#/args/force");
    assert.equal((await k("write", { path: "a", text: 5 })).body.errors?.[0]?.pointer, "#/args/text");
    assert.equal((await k("write", { path: "a", text: "x", revision: -1 })).body.errors?.[0]?.pointer, "#/args/revision");
    assert.equal((await k("search", { q: "" })).status, 400);
    assert.equal((await k("list", {}, "someone-else")).status, 404);
    assert.equal((await k("list", {}, "../personal")).status, 400);
    assert.equal((await api.call("POST", "/api/knowledge", { cookie, body: { operation: "list", args: [] } })).status, 400);
    assert.equal((await api.call("POST", "/api/knowledge", { cookie, body: { operation: "list", extra: 1 } })).status, 400);
    assert.equal((await api.call("POST", "/api/knowledge", { body: { operation: "list", args: {} } })).status, 401);
  });
});
