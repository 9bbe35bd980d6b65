/**
 * @module A real MCP server for the tool server tests, built with the SDK's server side: two tools,
 * `read_note` (annotated read-only) and `write_note`, over notes kept in a JSON state file that the
 * test also writes to change what the server says (a tool's description) while it runs. Every call
 * is appended to `<state>.calls`, so a test sees what ran and how often.
 *
 * Run as a script it serves stdio (the node spawns it; the state file is `$NOTES_STATE`). In a
 * test process `startHttpNotesServer` serves it over streamable HTTP, optionally behind OAuth 2.1:
 * protected resource metadata naming the authorization server by another host name of the same
 * listener (`localhost`, where the resource is `127.0.0.1`), so a client reaches a second host,
 * authorization server metadata, dynamic client registration, an
 * authorization endpoint that approves at once (redirecting with a code), and a token endpoint that
 * checks the PKCE verifier against the S256 challenge.
 */
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** What the state file holds. */
export interface NotesState {
  readDescription?: string;
  writeDescription?: string;
  notes?: Record<string, string>;
}

/** The calls the server ran, one line each (`read NAME`, `write NAME TEXT`). */
export function callsOf(stateFile: string): string[] {
  try {
    return readFileSync(`${stateFile}.calls`, "utf8").split("\n").filter((l) => l !== "");
  } catch {
    return [];
  }
}

function readState(file: string): NotesState {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as NotesState;
  } catch {
    return {};
  }
}

/** The notes server over the state file `stateFile`; `exit` ends the process (a crash, for stdio). */
export function notesServer(stateFile: string, exit: (code: number) => void = (code) => process.exit(code)): Server {
  const server = new Server({ name: "notes", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => {
    const state = readState(stateFile);
    return {
      tools: [
        {
          name: "read_note",
          description: state.readDescription ?? "Reads a note by its name.",
          inputSchema: { type: "object", properties: { name: { type: "string" }, size: { type: "integer" }, exit: { type: "boolean" }, waitMs: { type: "integer" } }, required: ["name"] },
          annotations: { title: "Read a note", readOnlyHint: true },
        },
        {
          name: "write_note",
          description: state.writeDescription ?? "Writes a note.",
          inputSchema: { type: "object", properties: { name: { type: "string" }, text: { type: "string" } }, required: ["name", "text"] },
          annotations: { title: "Write a note", destructiveHint: false },
        },
      ],
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as { name?: string; text?: string; size?: number; exit?: boolean; waitMs?: number };
    if (typeof args.waitMs === "number") await new Promise((resolve) => setTimeout(resolve, args.waitMs));
    const state = readState(stateFile);
    if (request.params.name === "read_note") {
      if (args.exit === true) exit(3);
      appendFileSync(`${stateFile}.calls`, `read ${args.name}\n`);
      const text = typeof args.size === "number" ? "n".repeat(args.size) : (state.notes?.[String(args.name)] ?? `there is no note ${args.name}`);
      return { content: [{ type: "text", text }] };
    }
    if (request.params.name === "write_note") {
      appendFileSync(`${stateFile}.calls`, `write ${args.name} ${args.text}\n`);
      writeFileSync(stateFile, JSON.stringify({ ...state, notes: { ...state.notes, [String(args.name)]: String(args.text) } }));
      return { content: [{ type: "text", text: `written: ${args.name}` }] };
    }
    return { content: [{ type: "text", text: `no tool ${request.params.name}` }], isError: true };
  });
  return server;
}

/** A notes server over streamable HTTP on 127.0.0.1 (port 0), at `/mcp`; with `oauth`, behind OAuth 2.1 + PKCE. */
export interface HttpNotesServer {
  readonly url: string;
  /** Access tokens issued so far. */
  readonly issued: string[];
  close(): Promise<void>;
}

export async function startHttpNotesServer(options: { stateFile: string; oauth: boolean }): Promise<HttpNotesServer> {
  const clients = new Map<string, { redirect_uris: string[] }>();
  const codes = new Map<string, { client: string; challenge: string; redirect: string }>();
  const tokens = new Set<string>();
  const issued: string[] = [];
  let base = "";
  let issuer = "";
  const http = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => json(res, 500, { error: String(error) }));
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp" || url.pathname === "/.well-known/oauth-protected-resource") {
      return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [issuer] });
    }
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (url.pathname === "/register" && req.method === "POST") {
      const metadata = JSON.parse(await bodyOf(req)) as { redirect_uris: string[] };
      const id = `client-${randomBytes(6).toString("hex")}`;
      clients.set(id, metadata);
      return json(res, 201, { ...metadata, client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000) });
    }
    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      const client = clients.get(q.get("client_id") ?? "");
      const redirect = q.get("redirect_uri") ?? "";
      if (client === undefined || !client.redirect_uris.includes(redirect) || q.get("code_challenge_method") !== "S256") return json(res, 400, { error: "invalid_request" });
      const code = randomBytes(12).toString("hex");
      codes.set(code, { client: q.get("client_id") ?? "", challenge: q.get("code_challenge") ?? "", redirect });
      const back = new URL(redirect);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state") ?? "");
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const form = new URLSearchParams(await bodyOf(req));
      const code = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      if (code === undefined || code.client !== form.get("client_id") || code.challenge !== challenge || code.redirect !== form.get("redirect_uri")) return json(res, 400, { error: "invalid_grant" });
      const token = randomBytes(16).toString("hex");
      tokens.add(token);
      issued.push(token);
      return json(res, 200, { access_token: token, token_type: "Bearer", expires_in: 3600 });
    }
    if (url.pathname === "/mcp") {
      const bearer = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
      if (options.oauth && (bearer === undefined || !tokens.has(bearer))) {
        res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`, "content-type": "application/json" });
        res.end(JSON.stringify({ error: "invalid_token" }));
        return;
      }
      // Stateless: a server and a transport per request.
      const server = notesServer(options.stateFile, () => {});
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on("close", () => void transport.close().then(() => server.close()));
      await server.connect(transport);
      const body = req.method === "POST" ? (JSON.parse(await bodyOf(req)) as unknown) : undefined;
      await transport.handleRequest(req, res, body);
      return;
    }
    json(res, 404, { error: "not found" });
  }
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  issuer = `http://localhost:${(http.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    issued,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const stateFile = process.env.NOTES_STATE;
  if (stateFile === undefined) throw new Error("NOTES_STATE names the state file");
  await notesServer(stateFile).connect(new StdioServerTransport());
}
