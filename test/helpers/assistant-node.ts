/**
 * @module A personal node with a signed-in person and a model connection to a test double, for the
 * assistant's tests: the node, its `/api`, the person's cookie, the double, and an `/api/events`
 * socket that keeps every frame.
 */
import { once } from "node:events";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { WebSocket } from "ws";
import { ApiClient, createAccount, printedSetupCode, stepUp } from "./api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./charter-process.ts";
import { OpenAiDouble } from "./model-doubles/openai-double.ts";
import type { SoftAuthenticator } from "./soft-authenticator.ts";

export interface Frame {
  readonly id: string;
  readonly kind: string;
  readonly [field: string]: unknown;
}

/** An `/api/events` socket that keeps every frame it receives. */
export class FrameLog {
  readonly frames: Frame[] = [];
  readonly ws: WebSocket;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on("message", (data) => this.frames.push(JSON.parse(String(data)) as Frame));
  }

  static async open(node: Charter, api: ApiClient, cookie: string): Promise<FrameLog> {
    const ws = new WebSocket(`${node.url.replace(/^http/, "ws")}/api/events`, { headers: { cookie, origin: api.origin } });
    await once(ws, "open");
    return new FrameLog(ws);
  }

  of(kind: string, turn?: string): Frame[] {
    return this.frames.filter((f) => f.kind === kind && (turn === undefined || f.turn === turn));
  }

  /** The turn's streamed text so far. */
  text(turn: string): string {
    return this.of("text", turn)
      .map((f) => String(f.delta))
      .join("");
  }

  /** Waits for a `turn` frame of `turn` with `status`. */
  async status(turn: string, status: string, timeoutMs = 15_000): Promise<Frame> {
    return waitFor(`turn ${turn} ${status}`, () => this.of("turn", turn).find((f) => f.status === status), timeoutMs);
  }

  close(): void {
    this.ws.close();
  }
}

export interface AssistantNode {
  readonly node: Charter;
  readonly api: ApiClient;
  readonly cookie: string;
  readonly auth: SoftAuthenticator;
  /** The person's did. */
  readonly person: string;
  readonly model: OpenAiDouble;
  readonly events: FrameLog;
  /** Sends `method path` with the person's cookie. */
  call(method: string, path: string, body?: unknown): ReturnType<ApiClient["call"]>;
  /** Makes the session's step-up fresh. */
  stepUp(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a node, creates the account, connects the OpenAI double (`local`, no key) and chooses model `m1`; `tools` sets tool modes. */
export async function startAssistantNode(tools: Record<string, string> = {}, env: Record<string, string> = {}): Promise<AssistantNode> {
  const model = await OpenAiDouble.start({ models: ["m1", "m2"] });
  const node = await startCharter({ edition: "node", env });
  const api = new ApiClient(node);
  const created = await createAccount(api, printedSetupCode(node));
  const cookie = created.cookie;
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { cookie, ...(body === undefined ? {} : { body }) });
  const fresh = async () => {
    await stepUp(api, created.auth, cookie);
  };
  await fresh();
  const put = await call("PUT", "/api/connections/local/key", { provider: "openai", key: "", baseUrl: model.baseURL, memory: true });
  if (put.status !== 200) throw new Error(`connection: ${put.status} ${JSON.stringify(put.body)}`);
  const chosen = await call("PUT", "/api/settings/models", { conversation: { connection: "local", model: "m1" } });
  if (chosen.status !== 200) throw new Error(`models: ${chosen.status} ${JSON.stringify(chosen.body)}`);
  if (Object.keys(tools).length > 0) {
    // The node installs its contracts just after set-up: the tools are there once they are.
    await waitFor("the node's contracts", async () => ((await call("PUT", "/api/settings/tools", { tools })).status === 200 ? true : undefined), 15_000);
  }
  const events = await FrameLog.open(node, api, cookie);
  const accounts = new DatabaseSync(join(node.dataDir, "accounts.db"), { readOnly: true });
  const person = (accounts.prepare("SELECT did FROM account").get() as { did: string }).did;
  accounts.close();
  return {
    node,
    api,
    cookie,
    auth: created.auth,
    person,
    model,
    events,
    call,
    stepUp: fresh,
    async stop() {
      events.close();
      await stopCharter(node);
      await model.close();
      cleanup(node.dataDir);
    },
  };
}
