/**
 * @module `charter lsp`: the language server over stdio, a thin transport around the pure language
 * service (`contracts/language-service/`). It keeps each open `*.charter.md` document's latest
 * analysis and publishes diagnostics after every change; a burst of changes is analysed once, at its
 * last version. Nothing may be written to stdout but protocol messages.
 */
import lsp from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { isContractUri, languageService, openDocument, type ContractDocument } from "../../contracts/language-service/service.ts";

const HELP = `Usage: charter lsp

Runs the Charter language server on stdin/stdout (the Language Server Protocol) for editors:
diagnostics, completion, hover, go to definition, outline and formatting of *.charter.md files.
  --help   show this help
`;

export default async function lspCommand(args: string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(HELP);
    return 0;
  }
  const unknown = args.filter((a) => a !== "--stdio");
  if (unknown.length > 0) {
    process.stderr.write(`charter lsp: unexpected argument '${unknown[0]}'\n`);
    return 2;
  }
  const connection = lsp.createConnection(new lsp.StreamMessageReader(process.stdin), new lsp.StreamMessageWriter(process.stdout));
  const documents = new lsp.TextDocuments(TextDocument);
  const analysed = new Map<string, { version: number; doc: ContractDocument }>();
  const pending = new Map<string, NodeJS.Immediate>();

  const documentOf = (uri: string): ContractDocument | null => {
    const text = documents.get(uri);
    if (text === undefined || !isContractUri(uri)) return null;
    const cached = analysed.get(uri);
    if (cached?.version === text.version) return cached.doc;
    const doc = openDocument(text.getText(), cached?.doc ?? null);
    analysed.set(uri, { version: text.version, doc });
    return doc;
  };
  const publish = (uri: string): void => {
    pending.delete(uri);
    const version = documents.get(uri)?.version;
    const doc = documentOf(uri);
    if (doc !== null) void connection.sendDiagnostics({ uri, version, diagnostics: languageService.diagnostics(doc) });
  };

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: lsp.TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: [".", "|", "$", ":", " "] },
      hoverProvider: true,
      definitionProvider: true,
      documentSymbolProvider: true,
      documentFormattingProvider: true,
    },
    serverInfo: { name: "charter" },
  }));
  documents.onDidChangeContent(({ document }) => {
    if (!isContractUri(document.uri) || pending.has(document.uri)) return;
    pending.set(document.uri, setImmediate(() => publish(document.uri)));
  });
  documents.onDidClose(({ document }) => {
    const timer = pending.get(document.uri);
    if (timer) clearImmediate(timer);
    pending.delete(document.uri);
    analysed.delete(document.uri);
    if (isContractUri(document.uri)) void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
  });
  const withDoc = <T>(uri: string, empty: T, run: (doc: ContractDocument) => T): T => {
    const doc = documentOf(uri);
    return doc === null ? empty : run(doc);
  };
  connection.onCompletion((p) => withDoc(p.textDocument.uri, [], (doc) => languageService.completion(doc, p.position)));
  connection.onHover((p) => withDoc(p.textDocument.uri, null, (doc) => languageService.hover(doc, p.position)));
  connection.onDefinition((p) => withDoc(p.textDocument.uri, null, (doc) => languageService.definition(doc, p.textDocument.uri, p.position)));
  connection.onDocumentSymbol((p) => withDoc(p.textDocument.uri, [], (doc) => languageService.symbols(doc)));
  connection.onDocumentFormatting((p) => withDoc(p.textDocument.uri, [], (doc) => languageService.format(doc)));

  const exited = new Promise<number>((resolve) => {
    let shutdown = false;
    connection.onShutdown(() => {
      shutdown = true;
    });
    connection.onExit(() => resolve(shutdown ? 0 : 1));
    // The editor went away without `exit`: the protocol's answer is exit code 1.
    process.stdin.once("end", () => resolve(shutdown ? 0 : 1));
  });
  documents.listen(connection);
  connection.listen();
  return exited;
}
