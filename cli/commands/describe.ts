/**
 * @module `charter describe FILE --out DIR`: compiles a contract and writes its API descriptions —
 * `openapi.json`, `schema.graphql` and `api.proto` — generated from the compiled schema, into DIR
 * (created if missing). Diagnostics go to stderr and make the exit code 1; nothing is written then.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readContractFile } from "./contract-file.ts";

const HELP = `Usage: charter describe FILE --out DIR

Compiles a contract (*.charter.md) and writes its API descriptions into DIR:
  openapi.json    OpenAPI 3.1 of the REST surface (/v1/{tenant}/{namespace}/…)
  schema.graphql  the GraphQL schema served at /v1/{tenant}/{namespace}/graphql
  api.proto       the proto3 service of the gRPC surface
Options:
  --out DIR  where to write the files (required)
  --help     show this help
`;

function parseArgs(args: readonly string[]): { file: string; out: string } | number {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(HELP);
    return 0;
  }
  const files: string[] = [];
  let out: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--out") out = args[++i];
    else if (arg.startsWith("--out=")) out = arg.slice("--out=".length);
    else if (arg.startsWith("--")) return usageError(`unknown option ${arg}`);
    else files.push(arg);
  }
  const [file] = files;
  if (files.length !== 1 || file === undefined) return usageError("expected exactly one contract file");
  if (out === undefined || out === "") return usageError("--out DIR is required");
  return { file, out };
}

function usageError(message: string): number {
  process.stderr.write(`charter: ${message}\n${HELP}`);
  return 2;
}

export default async function describe(args: string[]): Promise<number> {
  const parsed = parseArgs(args);
  if (typeof parsed === "number") return parsed;
  const markdown = readContractFile(parsed.file);
  if (markdown === null) return 1;
  const { compileContract } = await import("../../contracts/compile.ts");
  const { formatDiagnostic } = await import("../../contracts/diagnostics.ts");
  const { DESCRIBED_FILES, describeSchema } = await import("../../contracts/describe/index.ts");
  const result = compileContract(markdown);
  for (const d of result.diagnostics) process.stderr.write(`${parsed.file}: ${formatDiagnostic(markdown, d)}\n`);
  if (result.artifact === undefined) return 1;
  // The canonical schema bytes, exactly as the engine stores and serves them.
  const files = describeSchema(JSON.parse(new TextDecoder().decode(result.artifact.schemaBytes)));
  try {
    mkdirSync(parsed.out, { recursive: true });
    for (const name of DESCRIBED_FILES) writeFileSync(join(parsed.out, name), files[name]);
  } catch (e) {
    const reason = e instanceof Error && "code" in e ? String(e.code) : String(e);
    process.stderr.write(`charter: cannot write to ${parsed.out}: ${reason}\n`);
    return 1;
  }
  for (const name of DESCRIBED_FILES) process.stdout.write(`${join(parsed.out, name)}\n`);
  return 0;
}
