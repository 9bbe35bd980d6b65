/**
 * The webhook listener of a real `charter node` started with `--listen 0.0.0.0:0 --hooks-port 0`:
 * it answers on 127.0.0.1 only; a delivery is verified with the secret set in settings (GitHub's
 * `X-Hub-Signature-256`, Mastodon's `X-Hub-Signature`), journaled once under its id before it is
 * answered, then acted on by the gateway as its mapping says — an opened GitHub issue becomes a task
 * signed as the person. A tampered body is 401 and journals nothing; a redelivery is admitted once;
 * an oversized body is 413, an unknown path 404; a delivery whose mapping takes a value the payload
 * lacks, or that the contract refuses, is dead-lettered with the reason, and the listener keeps
 * working. The settings routes check their input and never show a secret.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { request } from "node:http";
import { type AddressInfo, connect, createServer, type Server } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { parseTreeOptions } from "../cli/options.ts";
import { hubSignature } from "../workers/outbox/webhooks/hook-signatures.ts";
import { ApiClient, createAccount, printedSetupCode, signIn, stepUp } from "./helpers/api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";
import type { SoftAuthenticator } from "./helpers/soft-authenticator.ts";

const GITHUB_SECRET = "github webhook secret, for the test";
const MASTODON_SECRET = "mastodon webhook secret, for the test";

interface Delivery {
  readonly id: string;
  readonly source: string;
  readonly delivery: string;
  readonly event: string;
  readonly action: string;
  readonly status: string;
  readonly reason: string | null;
  readonly command: { namespace: string; action: string; subject: string; seq: number; jws: string } | null;
}

describe("the webhook listener", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";
  let auth: SoftAuthenticator;
  let hooks = "";

  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { cookie, ...(body === undefined ? {} : { body }) });

  /** Posts `body` to `/hooks/github` as GitHub would, signed with `secret` unless `signature` says otherwise. */
  const github = (body: string, options: { event?: string; delivery?: string; secret?: string; signature?: string | null } = {}) => {
    const headers: Record<string, string> = { "content-type": "application/json", "x-github-event": options.event ?? "issues", "x-github-delivery": options.delivery ?? randomUUID() };
    const signature = options.signature === undefined ? hubSignature(options.secret ?? GITHUB_SECRET, body) : options.signature;
    if (signature !== null) headers["x-hub-signature-256"] = signature;
    return fetch(`${hooks}/hooks/github`, { method: "POST", headers, body });
  };
  /** Posts `body` to `/hooks/<path>` as Mastodon would. */
  const mastodon = (body: string, path = "mastodon", secret = MASTODON_SECRET) =>
    fetch(`${hooks}/hooks/${path}`, { method: "POST", headers: { "content-type": "application/json", "x-hub-signature": hubSignature(secret, body) }, body });
  /** An `issues` payload, as much of it as the mappings read. */
  const issue = (action: string, title: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ action, issue: { number: 1, title, html_url: `https://github.com/acme/app/issues/${encodeURIComponent(title)}`, state: "open", ...extra }, repository: { full_name: "acme/app" } });

  const deliveries = async (status = "all"): Promise<Delivery[]> => {
    const page = await call("GET", `/api/settings/integrations/webhooks/deliveries?status=${status}&limit=200`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    return page.body.items as Delivery[];
  };
  const deliveryOf = (source: string, id: string) =>
    waitFor(`delivery ${id} acted on`, async () => (await deliveries()).find((d) => d.source === source && d.delivery === id && d.status !== "pending"), 15_000);
  const tasksTitled = async (title: string) => ((await call("GET", "/api/tasks?status=all&limit=200")).body.items as { id: string; title: string; notes: string; tags: string[] }[]).filter((t) => t.title === title);
  /** The journal's `hook` entries, read straight from the store. */
  const journaled = () => {
    const db = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM journal WHERE topic = 'hook'").get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
  const setMappings = async (mappings: unknown[]) => {
    const put = await call("PUT", "/api/settings/integrations/webhooks/mappings", { mappings });
    assert.equal(put.status, 200, JSON.stringify(put.body));
  };

  /** Holds the port the listener is given, so that it is in use when the node starts. */
  let blocker: Server;

  before(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as AddressInfo).port;
    node = await startCharter({ edition: "node", args: ["--listen", "0.0.0.0:0", "--hooks-port", String(port)], env: { CHARTER_HOOKS_REBIND_MS: "300" } });
    api = new ApiClient(node);
    const created = await createAccount(api, printedSetupCode(node));
    cookie = created.cookie;
    auth = created.auth;
    await waitFor("std.tasks in the personal tenant", async () => {
      const boot = await call("GET", "/api/bootstrap");
      return (boot.body.tenant.contracts as { namespace: string }[]).some((c) => c.namespace === "std.tasks") ? true : undefined;
    });
    await stepUp(api, auth, cookie);
    const github = await call("PUT", "/api/settings/integrations/github", { webhookSecret: GITHUB_SECRET });
    assert.equal(github.status, 200, JSON.stringify(github.body));
    const masto = await call("PUT", "/api/settings/integrations/webhooks/secrets/mastodon", { secret: MASTODON_SECRET });
    assert.equal(masto.status, 200, JSON.stringify(masto.body));
  });
  after(async () => {
    if (blocker.listening) blocker.close();
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("--hooks-port: the listen port + 1 by default (8788), a free one when --listen picks one, else as given", () => {
    assert.equal(parseTreeOptions([]).hooksPort, 8788);
    assert.equal(parseTreeOptions(["--listen", "127.0.0.1:9000"]).hooksPort, 9001);
    assert.equal(parseTreeOptions(["--listen", "127.0.0.1:0"]).hooksPort, 0);
    assert.equal(parseTreeOptions(["--hooks-port", "0"]).hooksPort, 0);
    assert.equal(parseTreeOptions(["--hooks-port", "18788"]).hooksPort, 18788);
    for (const bad of ["-1", "65536", "x", "1.5", ""]) assert.throws(() => parseTreeOptions([`--hooks-port=${bad}`]), /--hooks-port expects a port/, bad);
  });

  it("a port in use is an error in the log and the outbox's status, not a stop: the node runs, and the listener starts once the port is free", async () => {
    const port = (blocker.address() as AddressInfo).port;
    const status = await waitFor("the outbox's status", async () => {
      const health = await fetch(`${node.url}/health`).then((r) => r.json());
      return typeof health.statuses?.outbox === "string" && health.statuses.outbox.includes("webhook listener not started") ? (health.statuses.outbox as string) : undefined;
    });
    assert.match(status, new RegExp(`127\\.0\\.0\\.1:${port} is in use`));
    assert.match(node.stderr, /webhook listener could not start/);
    assert.equal(node.child.exitCode, null, "the node runs on");
    assert.equal((await fetch(`${node.url}/health`)).status, 200, "and is healthy: the outbox is not required to be listening");
    assert.equal((await call("GET", "/api/settings/integrations/webhooks")).body.listener.url, null);
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    hooks = (await waitFor("the webhook listener's URL", () => /webhooks on (http:\/\/127\.0\.0\.1:\d+)\/hooks\//.exec(node.stdout)?.[1], 10_000)) as string;
    assert.equal(hooks, `http://127.0.0.1:${port}`);
    assert.equal((await fetch(`${hooks}/hooks/nothing`, { method: "POST" })).status, 404);
  });

  it("is reachable on 127.0.0.1 only, though the node listens on 0.0.0.0", async () => {
    const port = Number(new URL(hooks).port);
    const gatewayPort = Number(new URL(node.url).port);
    const attempt = (host: string, p: number) =>
      new Promise<string>((resolve) => {
        const socket = connect({ host, port: p, timeout: 2000 });
        socket.once("connect", () => (socket.destroy(), resolve("connected")));
        socket.once("timeout", () => (socket.destroy(), resolve("timeout")));
        socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      });
    assert.equal(await attempt("127.0.0.1", port), "connected");
    const others = Object.entries(networkInterfaces()).flatMap(([name, list]) =>
      (list ?? []).filter((a) => a.address !== "127.0.0.1").map((a) => ({ ...a, host: a.family === "IPv6" && a.scopeid !== undefined && a.scopeid !== 0 ? `${a.address}%${name}` : a.address })),
    );
    others.push({ host: "127.0.0.2", family: "IPv4" } as (typeof others)[number], { host: "::1", family: "IPv6" } as (typeof others)[number]);
    for (const a of others) {
      assert.notEqual(await attempt(a.host, port), "connected", `the listener answered on ${a.host}`);
      // The node's own port answers there (IPv4; 0.0.0.0 is not IPv6): the address is reachable, the listener is not on it.
      if (a.family === "IPv4") assert.equal(await attempt(a.host, gatewayPort), "connected", `the gateway on ${a.host}`);
    }
  });

  it("turns an opened issue into a task signed as the person, read back through /api/tasks", async () => {
    const id = randomUUID();
    const res = await github(issue("opened", "Crash on start"), { delivery: id });
    assert.equal(res.status, 202);
    assert.deepEqual(await res.json(), { delivery: id, status: "admitted" });
    const done = await deliveryOf("github", id);
    assert.equal(done.status, "done", JSON.stringify(done));
    assert.equal(done.event, "issues");
    assert.equal(done.action, "opened");
    const tasks = await tasksTitled("Crash on start");
    assert.equal(tasks.length, 1);
    const [task] = tasks;
    assert.equal(task?.id, done.command?.subject);
    assert.equal(task?.notes, "https://github.com/acme/app/issues/Crash%20on%20start");
    assert.deepEqual(task?.tags, ["github"]);
    const record = await call("GET", `/api/personal/std.tasks/Task/${task?.id}`);
    assert.equal(record.status, 200, JSON.stringify(record.body));
    const person = (await call("GET", "/api/bootstrap")).body.person.did as string;
    assert.deepEqual(
      record.body.history.items.map((e: { action: string; signer: string; seq: number }) => [e.action, e.signer, e.seq]),
      [["Create", person, done.command?.seq]],
      "one command, signed as the person, the one the delivery lists",
    );
  });

  it("admits a redelivery of the same id once: 200, no second task", async () => {
    const id = randomUUID();
    const body = issue("opened", "Flaky test");
    assert.equal((await github(body, { delivery: id })).status, 202);
    const again = await Promise.all(Array.from({ length: 5 }, () => github(body, { delivery: id })));
    for (const res of again) {
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { delivery: id, status: "duplicate" });
    }
    await deliveryOf("github", id);
    const before = journaled();
    assert.equal((await github(body, { delivery: id })).status, 200, "after it was acted on too");
    assert.equal(journaled(), before);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal((await tasksTitled("Flaky test")).length, 1);
    assert.equal((await deliveries()).filter((d) => d.delivery === id).length, 1);
  });

  it("refuses a tampered body, a missing or wrong signature with 401, and journals nothing", async () => {
    const before = journaled();
    const body = issue("opened", "Tampered");
    const tampered = await github(body.replace("Tampered", "Tamperer"), { signature: hubSignature(GITHUB_SECRET, body) });
    assert.equal(tampered.status, 401);
    const problem = await tampered.json();
    assert.equal(problem.code, "bad-hook-signature");
    assert.equal(tampered.headers.get("content-type"), "application/problem+json");
    assert.equal((await github(body, { signature: null })).status, 401);
    assert.equal((await github(body, { secret: "another secret" })).status, 401);
    assert.equal((await github(body, { signature: hubSignature(GITHUB_SECRET, body).toUpperCase() })).status, 401);
    // Mastodon's header on the GitHub route is no signature either.
    const masto = await fetch(`${hooks}/hooks/github`, { method: "POST", headers: { "x-github-event": "issues", "x-github-delivery": randomUUID(), "x-hub-signature": hubSignature(GITHUB_SECRET, body) }, body });
    assert.equal(masto.status, 401);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(journaled(), before);
    assert.equal((await tasksTitled("Tampered")).length + (await tasksTitled("Tamperer")).length, 0);
  });

  it("verifies a Mastodon delivery (its id the body's digest: a retry is a duplicate) and refuses a bad signature", async () => {
    await setMappings([
      { source: "github", event: "issues", action: "opened", command: { namespace: "std.tasks", action: "Create", args: { title: { path: "/issue/title", maxLength: 200 }, notes: { path: "/issue/html_url" }, tags: { value: ["github"] } } } },
      { source: "mastodon", event: "status.created", command: { namespace: "std.tasks", action: "Create", args: { title: { path: "/object/content", maxLength: 200 }, tags: { value: ["mastodon"] } } } },
    ]);
    const body = JSON.stringify({ event: "status.created", created_at: "2026-11-20T10:00:00.000Z", object: { id: "111301083360371621", content: "Reply to the toot", url: "https://example.social/@ada/111301083360371621" } });
    const res = await mastodon(body);
    assert.equal(res.status, 202);
    const admitted = await res.json();
    assert.match(admitted.delivery, /^[0-9a-f]{64}$/);
    assert.equal((await mastodon(body)).status, 200, "Mastodon retries with the same bytes");
    const done = await deliveryOf("mastodon", admitted.delivery);
    assert.equal(done.status, "done", JSON.stringify(done));
    assert.equal(done.event, "status.created");
    const tasks = await tasksTitled("Reply to the toot");
    assert.equal(tasks.length, 1);
    assert.deepEqual(tasks[0]?.tags, ["mastodon"]);
    const before = journaled();
    assert.equal((await mastodon(body.replace("Reply", "Ignore"), "mastodon", "wrong secret")).status, 401);
    const unsigned = await fetch(`${hooks}/hooks/mastodon`, { method: "POST", headers: { "content-type": "application/json" }, body });
    assert.equal(unsigned.status, 401);
    // mastodon-media has no secret yet: nothing can be verified, so nothing is taken (and senders retry later).
    const media = await mastodon(body, "mastodon-media");
    assert.equal(media.status, 503);
    assert.equal((await media.json()).code, "hook-not-configured");
    assert.equal(journaled(), before);
  });

  it("answers 404 for any other path or method, 413 for a body over 1 MiB, 400 for a body that is not JSON", async () => {
    for (const [method, path] of [["POST", "/hooks/gitlab"], ["POST", "/hooks"], ["POST", "/"], ["GET", "/hooks/github"], ["PUT", "/hooks/github"], ["POST", "/api/tasks"]] as const) {
      const res = await fetch(`${hooks}${path}`, { method, ...(method === "GET" ? {} : { body: "{}" }) });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal((await res.json()).code, "not-found");
    }
    const before = journaled();
    const big = JSON.stringify({ action: "opened", pad: "x".repeat(1024 * 1024) });
    const signature = hubSignature(GITHUB_SECRET, big);
    // Announced by its length, and sent chunked with no length: both are stopped at the limit.
    for (const chunked of [false, true]) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${hooks}/hooks/github`, { method: "POST", headers: { "x-github-event": "issues", "x-github-delivery": randomUUID(), "x-hub-signature-256": signature, ...(chunked ? {} : { "content-length": Buffer.byteLength(big) }) } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        if (chunked) {
          for (let i = 0; i < big.length; i += 64 * 1024) req.write(big.slice(i, i + 64 * 1024));
          req.end();
        } else req.end(big);
      });
      assert.equal(status, 413, chunked ? "chunked" : "with a length");
    }
    const form = "payload=%7B%7D";
    const notJson = await github(form);
    assert.equal(notJson.status, 400);
    assert.match((await notJson.json()).detail, /application\/json/);
    assert.equal(journaled(), before);
    assert.equal((await github(issue("opened", "After the big one"))).status, 202, "the listener goes on");
  });

  it("dead-letters a delivery whose mapping takes a value the payload lacks, or that the contract refuses, with the reason; the listener keeps working", async () => {
    await setMappings([
      { source: "github", event: "issues", action: "opened", command: { namespace: "std.tasks", action: "Create", args: { title: { path: "/issue/title", maxLength: 200 } } } },
      { source: "github", event: "issues", action: "closed", command: { namespace: "std.tasks", action: "Create", args: { title: { path: "/issue/closed_reason" } } } },
      { source: "github", event: "issues", action: "reopened", command: { namespace: "std.tasks", action: "Create", args: { title: { value: "" } } } },
    ]);
    const missing = randomUUID();
    assert.equal((await github(issue("closed", "Closed one"), { delivery: missing })).status, 202);
    const failed = await deliveryOf("github", missing);
    assert.equal(failed.status, "failed");
    assert.match(failed.reason ?? "", /nothing at \/issue\/closed_reason/);
    const refused = randomUUID();
    assert.equal((await github(issue("reopened", "Reopened one"), { delivery: refused })).status, 202);
    const dead = await deliveryOf("github", refused);
    assert.equal(dead.status, "failed");
    assert.match(dead.reason ?? "", /std\.tasks refused Create .*condition_failed/);
    // Listed as failed; and the listener, and the consumer, go on.
    assert.ok((await deliveries("failed")).some((d) => d.delivery === missing));
    const next = randomUUID();
    assert.equal((await github(issue("opened", "Still working"), { delivery: next })).status, 202);
    assert.equal((await deliveryOf("github", next)).status, "done");
    assert.equal((await tasksTitled("Still working")).length, 1);
    // Once the mapping takes the value from where it is, the failed delivery is tried again and done.
    await setMappings([{ source: "github", event: "issues", action: "closed", command: { namespace: "std.tasks", action: "Create", args: { title: { path: "/issue/title" } } } }]);
    const retried = await call("POST", `/api/settings/integrations/webhooks/deliveries/${failed.id}/retry`, {});
    assert.equal(retried.status, 202, JSON.stringify(retried.body));
    assert.equal(retried.body.status, "pending");
    await waitFor("the retried delivery done", async () => ((await call("GET", `/api/settings/integrations/webhooks/deliveries/${failed.id}`)).body.status === "done" ? true : undefined));
    assert.equal((await tasksTitled("Closed one")).length, 1);
    const twice = await call("POST", `/api/settings/integrations/webhooks/deliveries/${failed.id}/retry`, {});
    assert.equal(twice.status, 409);
    assert.equal(twice.body.code, "delivery-not-failed");
    assert.equal((await call("POST", "/api/settings/integrations/webhooks/deliveries/hook-999999/retry", {})).status, 404);
  });

  it("shows the listener, the sources and the deliveries in settings, never a secret", async () => {
    const overview = await call("GET", "/api/settings/integrations/webhooks");
    assert.equal(overview.status, 200);
    assert.deepEqual(overview.body.listener, { url: hooks, error: null });
    assert.deepEqual(
      overview.body.sources.map((s: { source: string; hasSecret: boolean; path: string }) => [s.source, s.hasSecret, s.path]),
      [["github", true, "/hooks/github"], ["mastodon", true, "/hooks/mastodon"], ["mastodon-media", false, "/hooks/mastodon-media"]],
    );
    assert.ok(overview.body.deliveries.length > 0 && overview.body.deliveries.length <= 20);
    const gh = await call("GET", "/api/settings/integrations/github");
    assert.equal(gh.body.url, `${hooks}/hooks/github`);
    const text = JSON.stringify([overview.body, gh.body, await deliveries()]);
    for (const secret of [GITHUB_SECRET, MASTODON_SECRET]) for (const part of [secret, secret.slice(0, 12), secret.slice(-12)]) assert.ok(!text.includes(part), "no secret, nor part of one");
  });

  it("checks the settings' input: 400 naming each field, 404 unknown, 403 without a step-up or for an action only its route signs", async () => {
    const bad = await call("PUT", "/api/settings/integrations/webhooks/mappings", {
      mappings: [
        { source: "github", event: "issues", action: "opened", command: { namespace: "std.nothing", action: "Create", args: {} } },
        { source: "github", event: "issues", command: { namespace: "std.tasks", action: "Create", args: { title: { path: "no-slash" }, colour: { value: 1 } } } },
      ],
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, "bad-settings");
    assert.deepEqual(bad.body.errors.map((e: { pointer: string }) => e.pointer), ["#/mappings/0/command/action", "#/mappings/1/command/args/title/path", "#/mappings/1/command/args/colour"]);
    assert.equal((await call("PUT", "/api/settings/integrations/webhooks/mappings", { mappings: "all" })).status, 400);
    const unknown = await call("PUT", "/api/settings/integrations/webhooks/mappings", { mappings: [], extra: true });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body.errors, [{ pointer: "#/extra", detail: "unknown field" }]);
    const dedicated = await call("PUT", "/api/settings/integrations/webhooks/mappings", { mappings: [{ source: "github", event: "issues", command: { namespace: "std.approvals", action: "Approve", args: {} } }] });
    assert.equal(dedicated.status, 403);
    assert.equal(dedicated.body.code, "dedicated-route");
    assert.equal((await call("GET", "/api/settings/integrations/webhooks/deliveries?status=lost")).status, 400);
    assert.equal((await call("GET", "/api/settings/integrations/webhooks/deliveries?after=!!")).status, 400);
    assert.equal((await call("GET", "/api/settings/integrations/webhooks/deliveries/hook-999999")).status, 404);
    assert.equal((await call("GET", "/api/settings/integrations/webhooks/deliveries/nothing")).status, 404);

    const wrongType = await call("PUT", "/api/settings/integrations/webhooks/secrets/github", { secret: 42 });
    assert.equal(wrongType.status, 400);
    assert.deepEqual(wrongType.body.errors.map((e: { pointer: string }) => e.pointer), ["#/secret"]);
    assert.equal((await call("PUT", "/api/settings/integrations/webhooks/secrets/github", { secret: "line\nbreak" })).status, 400);
    assert.equal((await call("PUT", "/api/settings/integrations/webhooks/secrets/gitlab", { secret: "x" })).status, 404);
    assert.equal((await call("DELETE", "/api/settings/integrations/webhooks/secrets/mastodon-media")).status, 404);
    // Another session, not stepped up: setting or removing a secret is refused, and nothing changes.
    const other = await signIn(api, auth);
    for (const [method, path, body] of [
      ["PUT", "/api/settings/integrations/github", { webhookSecret: "taken over" }],
      ["PUT", "/api/settings/integrations/webhooks/secrets/mastodon", { secret: "taken over" }],
      ["DELETE", "/api/settings/integrations/github", undefined],
    ] as const) {
      const res = await api.call(method, path, { cookie: other, ...(body === undefined ? {} : { body }) });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.code, "step-up-required");
    }
    assert.equal((await github(issue("opened", "Old secret still works"))).status, 202);
    // Without a session, nothing at all.
    assert.equal((await api.call("GET", "/api/settings/integrations/webhooks")).status, 401);
  });

  it("removing a secret stops its source (503) until one is set again", async () => {
    await stepUp(api, auth, cookie);
    assert.equal((await call("DELETE", "/api/settings/integrations/webhooks/secrets/mastodon")).status, 204);
    const body = JSON.stringify({ event: "status.created", object: { id: "2", content: "After removal" } });
    await waitFor("the listener told", async () => ((await mastodon(body)).status === 503 ? true : undefined), 20_000);
    assert.equal((await call("PUT", "/api/settings/integrations/webhooks/secrets/mastodon", { secret: "a new one" })).status, 200);
    // Another delivery: until the listener heard of the removal, the first body may have been admitted
    // under the old secret, and a Mastodon delivery's id is its body's digest (it would be a duplicate).
    const later = JSON.stringify({ event: "status.created", object: { id: "3", content: "With the new secret" } });
    await waitFor("the new secret in use", async () => ((await mastodon(later, "mastodon", "a new one")).status === 202 ? true : undefined), 20_000);
  });
});
