/**
 * @module A JSON-RPC client that drives `charter lsp` as a child process over stdio, for end-to-end
 * tests: requests, document notifications, and waiting for the diagnostics of a document version.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import rpc from "vscode-jsonrpc/node";
import type { Diagnostic, TextDocumentContentChangeEvent } from "vscode-languageserver-protocol";

const CHARTER = fileURLToPath(new URL("../../bin/charter.js", import.meta.url));

export interface Published {
  readonly uri: string;
  readonly version?: number;
  readonly diagnostics: Diagnostic[];
}

/** A started server and a connection to it. */
export interface LspClient {
  readonly child: ChildProcess;
  request<T>(method: string, params: unknown): Promise<T>;
  open(uri: string, text: string, version?: number): void;
  change(uri: string, version: number, changes: TextDocumentContentChangeEvent[]): void;
  /** The next diagnostics published for `uri` (at `version`, when given). */
  diagnostics(uri: string, version?: number): Promise<Published>;
  /** `shutdown` then `exit`; resolves with the server's exit code. */
  stop(): Promise<number | null>;
}

/** Spawns `bin/charter.js lsp` and initializes it. */
export async function startLsp(): Promise<LspClient & { readonly capabilities: Record<string, unknown> }> {
  const child = spawn(process.execPath, [CHARTER, "lsp"], { stdio: ["pipe", "pipe", "inherit"] });
  if (!child.stdout || !child.stdin) throw new Error("no stdio");
  const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  const seen: Published[] = [];
  const waiting: { uri: string; version?: number; resolve: (p: Published) => void }[] = [];
  connection.onNotification("textDocument/publishDiagnostics", (p: Published) => {
    const i = waiting.findIndex((w) => w.uri === p.uri && (w.version === undefined || w.version === p.version));
    if (i === -1) seen.push(p);
    else waiting.splice(i, 1)[0]?.resolve(p);
  });
  connection.listen();
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const init = await connection.sendRequest<{ capabilities: Record<string, unknown> }>("initialize", { processId: null, rootUri: null, capabilities: {} });
  await connection.sendNotification("initialized", {});
  return {
    child,
    capabilities: init.capabilities,
    request: <T>(method: string, params: unknown) => connection.sendRequest<T>(method, params),
    open(uri, text, version = 1) {
      void connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "markdown", version, text } });
    },
    change(uri, version, contentChanges) {
      void connection.sendNotification("textDocument/didChange", { textDocument: { uri, version }, contentChanges });
    },
    diagnostics(uri, version) {
      const i = seen.findIndex((p) => p.uri === uri && (version === undefined || p.version === version));
      if (i !== -1) return Promise.resolve(seen.splice(i, 1)[0] as Published);
      return new Promise((resolve) => waiting.push({ uri, version, resolve }));
    },
    async stop() {
      await connection.sendRequest("shutdown");
      await connection.sendNotification("exit");
      const code = await exited;
      connection.dispose();
      return code;
    },
  };
}
