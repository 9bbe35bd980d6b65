// @module The Charter editor extension: starts `charter lsp` over stdio for *.charter.md files.
// VS Code loads extensions as CommonJS, hence `require`.
/* global require, exports */
/* eslint-disable @typescript-eslint/no-require-imports */
const { workspace } = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client = null;

/** The server command: the configured charter executable, else `npx charter` in the workspace. */
function serverCommand() {
  const configured = workspace.getConfiguration("charter").get("server.command", "").trim();
  const cwd = workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (configured !== "") return { command: configured, args: ["lsp"], transport: TransportKind.stdio, options: { cwd } };
  return { command: "npx", args: ["--no-install", "charter", "lsp"], transport: TransportKind.stdio, options: { cwd, shell: process.platform === "win32" } };
}

exports.activate = async function activate() {
  const server = serverCommand();
  client = new LanguageClient("charter", "Charter", { run: server, debug: server }, {
    // Only contract files: the server answers nothing for other Markdown.
    documentSelector: [{ scheme: "file", language: "markdown", pattern: "**/*.charter.md" }],
  });
  await client.start();
};

exports.deactivate = async function deactivate() {
  if (client !== null) await client.stop();
  client = null;
};
