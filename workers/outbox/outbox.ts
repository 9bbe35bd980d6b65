/**
 * @module The outbox worker: connectors and their effects. It loads the connector manifests (a
 * manifest that does not check stops the worker with every problem named), then runs the durable
 * outbox (effect-runner.ts): effects written to the journal by the gateway or by a command's own
 * transaction are claimed here, done through their connector, and receipted by the engine. What an
 * effect needs of the person's secrets (an email account's password) is asked of the gateway over
 * `DATA/run/outbox.sock` (shared/protocol/outbox.ts) when the effect runs; it is never written to
 * the journal. The same worker reads the email accounts' inboxes over IMAP (mail/mail-readers.ts):
 * what it fetches is journaled (topic `mail`) for the gateway to record as the person.
 */
import { loadManifests } from "../../shared/connectors/manifest.ts";
import type { OutboxHostNotices, OutboxHostRequests } from "../../shared/protocol/outbox.ts";
import { claimantName, dataPaths } from "../../shared/worker/config.ts";
import { EngineLink } from "../../shared/worker/engine-link.ts";
import { FatalError } from "../../shared/worker/fatal.ts";
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";
import { SocketLink } from "../../shared/worker/socket-link.ts";
import type { Connector } from "./connectors/connector.ts";
import { emailConnector } from "./connectors/email-send.ts";
import { noopConnector } from "./connectors/noop.ts";
import { pdfConnector } from "./connectors/pdf-render.ts";
import { EffectRunner } from "./effect-runner.ts";
import { MailReaders } from "./mail/mail-readers.ts";
import { startWebhookListener } from "./webhooks/webhook-listener.ts";

/** What the outbox reports before any effect ran. */
export const IDLE_STATUS = "effects: none yet";

export async function startOutbox(ctx: WorkerContext): Promise<RunningWorker> {
  let manifests;
  try {
    manifests = loadManifests();
  } catch (error) {
    throw new FatalError((error as Error).message);
  }
  const paths = dataPaths(ctx.config.dataDir);
  const connectors = new Map<string, Connector>([
    ["noop", noopConnector],
    ["email", emailConnector()],
    ["pdf", pdfConnector(paths.documents)],
  ]);
  for (const name of manifests.keys()) if (!connectors.has(name)) throw new FatalError(`connector ${name} has a manifest but no implementation`);
  for (const name of connectors.keys()) if (!manifests.has(name)) throw new FatalError(`connector ${name} has no manifest`);

  // One status line for the worker's parts: the effects, the webhook listener, the mail reading.
  const parts = { effects: IDLE_STATUS, hooks: "", mail: "" };
  const status = (part: keyof typeof parts, text: string) => {
    parts[part] = text;
    ctx.status([parts.effects, parts.hooks, parts.mail].filter((t) => t !== "").join("; "));
  };
  let runner: EffectRunner | null = null;
  // Contract-declared effects are queued by the engine itself, in a command's transaction: it says when.
  const engine = new EngineLink(paths.engineSocket, {
    onConnect: (channel) => {
      channel.onNotice("effects-queued", () => runner?.wake());
      void channel.request("watch-effects", { watch: true }).catch(() => {});
    },
  });
  let mail: MailReaders | null = null;
  const host = new SocketLink<OutboxHostRequests, OutboxHostNotices>(paths.outboxSocket, {
    onConnect: (channel) => {
      channel.onNotice("wake", () => runner?.wake());
      channel.onNotice("account-changed", ({ connector, account }) => {
        connectors.get(connector)?.forget?.(account);
        if (connector === "email") mail?.refresh();
      });
      // The gateway (re)started: the accounts to read are asked for again.
      mail?.refresh();
    },
  });
  // Connect early so the gateway's wake notices reach us; requests wait for the connection anyway.
  void host.channel().catch(() => {});
  runner = new EffectRunner({
    engine,
    claimant: claimantName("outbox", process.pid),
    manifests,
    connectors,
    account: (connector, account) => host.request("connector-account", { connector, account }),
    log: ctx.log,
    status: (text) => status("effects", text),
  });
  runner.start();
  status("effects", IDLE_STATUS);
  const hooks = startWebhookListener({ ...ctx, status: (text) => status("hooks", text) });
  mail = new MailReaders({
    accounts: () => host.request("mail-accounts", {}),
    append: (entries) => engine.request("journal-append-many", { entries }),
    log: ctx.log,
    status: (text) => status("mail", text),
  });
  mail.refresh();
  return {
    drain: async () => {
      await hooks.close();
      await mail?.close();
      await runner.stop();
      await Promise.all([...connectors.values()].map((c) => c.close?.()));
      await host.close();
      await engine.close();
    },
  };
}
