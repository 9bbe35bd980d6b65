/**
 * @module The webhook listener of `charter node`: an HTTP server of the outbox worker, bound to
 * 127.0.0.1 only — whatever address the node itself listens on — on `--hooks-port` (8788 by
 * default). A tunnel or reverse proxy on this machine brings senders to it. Each request is
 * hook-handler.ts's; deliveries are journaled in groups (append-batcher.ts) through the engine.
 * A port that cannot be had (in use, not allowed) is logged and shown in the worker's status, and
 * tried again every half minute: the node runs on without webhooks meanwhile.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dataPaths } from "../../../shared/worker/config.ts";
import { EngineLink } from "../../../shared/worker/engine-link.ts";
import type { WorkerContext } from "../../../shared/worker/runtime.ts";
import { AppendBatcher } from "./append-batcher.ts";
import { handleHook, type HookOutcome } from "./hook-handler.ts";
import { HookSecrets } from "./hook-secrets.ts";

/** The only address the listener binds. */
export const HOOKS_HOST = "127.0.0.1";
/** The largest webhook body (GitHub caps its payloads at 25 MB, but issue and pull-request events are a few KiB). */
export const HOOK_BODY_LIMIT = 1024 * 1024;
/** How long a body may take to arrive. */
const BODY_DEADLINE_MS = 10_000;
/** Connections at most: with the body limit, what requests in flight may hold is bounded. */
const MAX_CONNECTIONS = 128;
/** How often a port that could not be had is tried again (`CHARTER_HOOKS_REBIND_MS`, else half a minute). */
function rebindMs(env: NodeJS.ProcessEnv = process.env): number {
  const ms = Number(env.CHARTER_HOOKS_REBIND_MS);
  return env.CHARTER_HOOKS_REBIND_MS !== undefined && Number.isInteger(ms) && ms >= 100 ? ms : 30_000;
}
/** How long a connection whose body was refused stays open for its answer to be read. */
const LINGER_MS = 1000;
/** How long a delivery waits for the secrets while the node starts. */
const SECRETS_WAIT_MS = 3000;

/** The started listener. */
export interface WebhookListener {
  /** `http://127.0.0.1:PORT` while listening, else null. */
  url(): string | null;
  /** Stops taking requests, lets those in flight be journaled and answered, and lets go of the engine and the gateway. */
  close(): Promise<void>;
}

/** Starts the listener of `ctx.config.hooks` (none configured: an idle listener that serves nothing). */
export function startWebhookListener(ctx: WorkerContext, options: { status?: (text: string) => void } = {}): WebhookListener {
  const port = ctx.config.hooks?.port;
  if (port === undefined) return { url: () => null, close: async () => {} };
  const { log } = ctx;
  const status = options.status ?? ((text: string) => ctx.status(text));
  const paths = dataPaths(ctx.config.dataDir);
  const engine = new EngineLink(paths.engineSocket);
  const secrets = new HookSecrets(paths.hooksSocket, log);
  const batcher = new AppendBatcher((entries) => engine.request("journal-append-many", { entries }));
  const counts = new Map<HookOutcome, number>();
  const server: Server = createServer({ requestTimeout: BODY_DEADLINE_MS + 5000, headersTimeout: 10_000, keepAliveTimeout: 5000, maxHeaderSize: 16 * 1024 }, (req, res) => {
    handleHook(req, res, {
      secret: (source) => secrets.get(source),
      loaded: () => secrets.loaded(SECRETS_WAIT_MS),
      append: (entry) => batcher.append(entry),
      now: () => Date.now(),
      bodyLimit: HOOK_BODY_LIMIT,
      bodyDeadlineMs: BODY_DEADLINE_MS,
    }).then(
      (outcome) => {
        counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
        if (outcome !== "admitted" && outcome !== "duplicate") log.debug("webhook refused", { outcome, path: (req.url ?? "").slice(0, 100) });
        if (!res.writableEnded) res.end();
        // A body refused unread: what the sender still sends is thrown away for a moment, so it can
        // read the answer (a reset would lose it), then the connection goes.
        if (outcome === "too-large" || outcome === "timeout") {
          req.resume();
          setTimeout(() => req.destroy(), LINGER_MS).unref();
        }
      },
      (error: unknown) => {
        log.error("webhook request failed", { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/problem+json", connection: "close" });
        res.end();
      },
    );
  });
  server.maxConnections = MAX_CONNECTIONS;
  let url: string | null = null;
  let rebind: NodeJS.Timeout | null = null;
  let closed = false;
  let failures = 0;
  const every = rebindMs();
  const seconds = every < 1000 ? `${every} ms` : `${Math.round(every / 1000)} s`;

  const bind = () => {
    rebind = null;
    if (closed) return;
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      const why = error.code === "EADDRINUSE" ? "is in use" : error.code === "EACCES" ? "is not allowed" : `cannot be listened on (${error.code ?? error.message})`;
      const message = `${HOOKS_HOST}:${port} ${why}`;
      // Said once at error level; the retries after it only at debug.
      if (failures++ === 0) log.error(`the webhook listener could not start; it tries again every ${seconds}`, { address: `${HOOKS_HOST}:${port}`, error: message });
      else log.debug("the webhook listener's port is still unavailable", { address: `${HOOKS_HOST}:${port}` });
      status(`webhook listener not started: ${message} (choose another with --hooks-port; trying again every ${seconds})`);
      secrets.announce({ url: null, error: message });
      rebind = setTimeout(bind, every);
      rebind.unref();
    };
    const onListening = () => {
      server.off("error", onError);
      // Once serving, an error of the server (out of file descriptors) is logged, never thrown.
      server.on("error", (error) => log.error("the webhook listener failed", { error: String(error) }));
      failures = 0;
      const address = server.address() as AddressInfo;
      url = `http://${HOOKS_HOST}:${address.port}`;
      log.info("webhook listener serving", { url });
      status(`webhooks on ${url}`);
      ctx.control.notify("hooks-listening", { url });
      ctx.control.flush();
      secrets.announce({ url, error: null });
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, HOOKS_HOST);
  };

  secrets.start();
  bind();
  return {
    url: () => url,
    async close() {
      closed = true;
      if (rebind !== null) clearTimeout(rebind);
      if (server.listening) {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await stopped;
      }
      await batcher.idle();
      log.info("webhook listener stopped", { answered: Object.fromEntries(counts) });
      await secrets.close();
      await engine.close();
    },
  };
}
