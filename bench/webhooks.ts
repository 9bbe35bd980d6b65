/**
 * @module Benchmark of the webhook listener: verified GitHub deliveries per second admitted through
 * a real `charter node`'s listener — several concurrent keep-alive clients, each delivery with its
 * own id and a valid `X-Hub-Signature-256` over a ~2 KiB push payload, each journaled (one `hook`
 * entry, committed) before its `202` — against a baseline in the same run: a bare `node:http`
 * server in this process that only reads the body and checks the same HMAC, under the same load
 * from the same clients. Afterwards the journal must hold exactly one entry per delivery.
 *
 * A push has no mapping by default, so the gateway only marks those entries ignored while they
 * arrive; a second figure is how fast mapped deliveries (opened issues) become tasks, measured from
 * the first admission to the last task. Target: ≥ 3,000 deliveries/s admitted. Run alone:
 * `node bench/webhooks.ts [deliveries, default 20000] [clients, default 64]` under Node 24.
 */
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ApiClient, createAccount, printedSetupCode, stepUp } from "../test/helpers/api-client.ts";
import { cleanup, startCharter, stopCharter, waitFor } from "../test/helpers/charter-process.ts";
import { report } from "./lib.ts";

const N = Number(process.argv[2] ?? "20000");
const CLIENTS = Number(process.argv[3] ?? "64");
const MAPPED = 2000;
const SECRET = "bench webhook secret";

/** A push delivery about this size (GitHub's are 2–10 KiB). */
function pushBody(i: number): string {
  const commits = Array.from({ length: 3 }, (_, c) => ({
    id: createHmac("sha1", "x").update(`${i}-${c}`).digest("hex"),
    message: `Commit ${c} of push ${i}: fix the thing that was broken`,
    timestamp: "2026-11-20T10:00:00Z",
    url: `https://github.com/acme/app/commit/${i}-${c}`,
    author: { name: "Ada", email: "ada@example.org", username: "ada" },
    added: [],
    removed: [],
    modified: ["src/main.ts", "README.md"],
  }));
  return JSON.stringify({ ref: "refs/heads/main", before: "0".repeat(40), after: "1".repeat(40), repository: { id: 1, full_name: "acme/app", private: false }, pusher: { name: "ada" }, sender: { login: "ada", id: 1 }, commits });
}

interface Prepared {
  readonly body: Buffer;
  readonly headers: Record<string, string>;
}

/** `count` deliveries of `event`, each with its id and signature (made before timing). */
function prepare(count: number, event: string, body: (i: number) => string): Prepared[] {
  return Array.from({ length: count }, (_, i) => {
    const bytes = Buffer.from(body(i));
    return {
      body: bytes,
      headers: {
        "content-type": "application/json",
        "content-length": String(bytes.length),
        "x-github-event": event,
        "x-github-delivery": randomUUID(),
        "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(bytes).digest("hex")}`,
      },
    };
  });
}

/** Sends every delivery to `url` from `clients` keep-alive connections; answers deliveries/s. */
async function load(url: string, deliveries: readonly Prepared[], clients: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  let next = 0;
  const post = (d: Prepared) =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, { method: "POST", agent, headers: d.headers }, (res) => {
        res.resume();
        res.on("end", () => (res.statusCode === 202 ? resolve() : reject(new Error(`bench: ${url} answered ${res.statusCode}`))));
      });
      req.on("error", reject);
      req.end(d.body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < deliveries.length) await post(deliveries[next++] as Prepared);
    }),
  );
  const perS = deliveries.length / ((performance.now() - started) / 1000);
  agent.destroy();
  return perS;
}

/** The baseline: a bare server that reads the body and checks the HMAC, nothing else. */
async function bareServer(): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const given = Buffer.from(String(req.headers["x-hub-signature-256"] ?? ""));
      const expected = Buffer.from(`sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`);
      const ok = given.length === expected.length && timingSafeEqual(given, expected);
      res.writeHead(ok ? 202 : 401, { "content-type": "application/json" });
      res.end(ok ? '{"status":"admitted"}' : "{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/github`, close: () => server.close() };
}

const node = await startCharter({ edition: "node", args: ["--hooks-port", "0"] });
const bare = await bareServer();
try {
  const api = new ApiClient(node);
  const created = await createAccount(api, printedSetupCode(node));
  await stepUp(api, created.auth, created.cookie);
  await waitFor("std.tasks installed", async () => ((await api.call("GET", "/api/tasks", { cookie: created.cookie })).status === 200 ? true : undefined), 30_000);
  const put = await api.call("PUT", "/api/settings/integrations/github", { cookie: created.cookie, body: { webhookSecret: SECRET } });
  if (put.status !== 200) throw new Error(`bench: setting the secret answered ${put.status} ${JSON.stringify(put.body)}`);
  const hooks = `${await waitFor("the webhook listener", () => /webhooks on (http:\/\/127\.0\.0\.1:\d+)\/hooks\//.exec(node.stdout)?.[1], 15_000)}/hooks/github`;
  // The listener hears of the secret a moment after it is set.
  await waitFor("the secret in use", async () => ((await load(hooks, prepare(1, "push", pushBody), 1).catch(() => 0)) > 0 ? true : undefined), 10_000);

  // Mapped deliveries: opened issues, each made a task by the gateway as the person.
  const issues = prepare(MAPPED, "issues", (i) => JSON.stringify({ action: "opened", issue: { number: i, title: `Bench issue ${i}`, html_url: `https://github.com/acme/app/issues/${i}` } }));
  const t = performance.now();
  await load(hooks, issues, CLIENTS);
  const admittedMs = performance.now() - t;
  await waitFor(
    "every issue a task",
    async () => {
      const page = await api.call("GET", "/api/settings/integrations/webhooks/deliveries?status=pending&limit=1", { cookie: created.cookie });
      return page.body.items.length === 0 ? true : undefined;
    },
    300_000,
  );
  const actedS = (performance.now() - t) / 1000;
  const store = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
  const tasks = (store.prepare("SELECT count(*) AS n FROM journal WHERE topic = 'hook' AND json_extract(result, '$.command.namespace') = 'std.tasks'").get() as { n: number }).n;
  if (tasks !== MAPPED) throw new Error(`bench: ${tasks} of ${MAPPED} issues became tasks`);
  report("webhooks.issues_to_tasks_per_s", MAPPED / actedS, "deliveries/s", { label: "admitting the same deliveries", value: MAPPED / (admittedMs / 1000), higherIsBetter: true });

  const warm = prepare(2000, "push", pushBody);
  await load(hooks, warm, CLIENTS);
  await load(bare.url, warm, CLIENTS);
  const deliveries = prepare(N, "push", pushBody);
  // Alternating halves, so drift on a shared machine hits both alike.
  const half = Math.floor(N / 2);
  const ours = [await load(hooks, deliveries.slice(0, half), CLIENTS)];
  const plain = [await load(bare.url, deliveries.slice(0, half), CLIENTS)];
  plain.push(await load(bare.url, deliveries.slice(half), CLIENTS));
  ours.push(await load(hooks, deliveries.slice(half), CLIENTS));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  report("webhooks.admitted_per_s", mean(ours), "deliveries/s", { label: "bare node:http HMAC check", value: mean(plain), higherIsBetter: true, target: ">= 3000/s" });

  const entries = (store.prepare("SELECT count(*) AS n, count(DISTINCT key) AS k FROM journal WHERE topic = 'hook'").get() as { n: number; k: number });
  const expected = N + warm.length + MAPPED + 1;
  if (entries.n !== expected || entries.k !== expected) throw new Error(`bench: the journal holds ${entries.n} hook entries (${entries.k} keys), not ${expected}`);
  const again = await load(hooks, deliveries.slice(0, 1000), CLIENTS).catch((error: unknown) => String(error));
  if (typeof again === "number") throw new Error("bench: a redelivery was admitted again");
  store.close();
} finally {
  bare.close();
  await stopCharter(node);
  cleanup(node.dataDir);
}
