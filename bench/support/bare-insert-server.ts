/**
 * @module The engine benchmark's baseline (bench/engine.ts): a bare Hono route on @hono/node-server
 * that inserts each posted command into node:sqlite — WAL, synchronous=FULL, one transaction (one
 * fsync) per request — and answers a small JSON. Started as its own process; prints its port.
 * Usage: node bench/support/bare-insert-server.ts DB_PATH
 */
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { DatabaseSync } from "node:sqlite";

const db = new DatabaseSync(process.argv[2] as string);
db.exec("PRAGMA journal_mode = WAL");
db.exec("PRAGMA synchronous = FULL");
db.exec("CREATE TABLE IF NOT EXISTS commands (id INTEGER PRIMARY KEY, command TEXT NOT NULL)");
const insert = db.prepare("INSERT INTO commands (command) VALUES (?)");

const app = new Hono();
app.post("/v1/:tenant/:namespace/actions/:action", async (c) => {
  const body = (await c.req.json()) as { command?: unknown };
  if (typeof body.command !== "string") return c.json({ error: "no command" }, 400);
  db.exec("BEGIN IMMEDIATE");
  const r = insert.run(body.command);
  db.exec("COMMIT");
  return c.json({ id: Number(r.lastInsertRowid) });
});

const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => process.stdout.write(`${info.port}\n`));
process.on("SIGTERM", () => {
  server.close();
  db.close();
  process.exit(0);
});
