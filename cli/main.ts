/**
 * @module The `charter` command line: one table of subcommands, each in its own file under
 * `cli/commands/`, loaded only when used so that `charter compile` never pays for the server and
 * `charter node` never pays for the compiler.
 */
import { charterVersion } from "./version.ts";

/** A subcommand: its one-line summary and the module that runs it. */
interface Command {
  readonly summary: string;
  readonly load: () => Promise<{ default: (args: string[]) => Promise<number> }>;
}

const commands: Record<string, Command> = {
  node: { summary: "run the personal node: the engine, its /v1 API and /api (account, passkey sign-in); the assistant comes later", load: () => import("./commands/node.ts") },
  serve: { summary: "run the engine-only edition (contracts, generated /v1 API, voters)", load: () => import("./commands/serve.ts") },
  compile: { summary: "compile a contract and print its artifact id (--wat prints the WebAssembly text)", load: () => import("./commands/compile.ts") },
  describe: { summary: "write a contract's API descriptions: openapi.json, schema.graphql, api.proto (--out DIR)", load: () => import("./commands/describe.ts") },
  check: { summary: "check a contract and print its diagnostics", load: () => import("./commands/check.ts") },
  lsp: { summary: "run the language server for editors over stdio (diagnostics, completion, hover, definition, outline, formatting)", load: () => import("./commands/lsp.ts") },
  workbench: { summary: "try a contract and a list of steps on a throwaway node (--steps FILE)", load: () => import("./commands/workbench.ts") },
  keygen: { summary: "create an Ed25519 identity key (--out FILE) and print its did:key", load: () => import("./commands/keygen.ts") },
  account: { summary: "print the set-up code of a personal node not yet set up (account setup-code [--data DIR])", load: () => import("./commands/account.ts") },
  identity: { summary: "print this data directory's node identity (creates the key if missing)", load: () => import("./commands/identity.ts") },
  tenant: { summary: "create tenants; manage owners, members and delegations; rotate their keys; show and list them", load: () => import("./commands/tenant.ts") },
  install: { summary: "compile a contract and install it for a tenant (--tenant T); prints the artifact id", load: () => import("./commands/install.ts") },
  contracts: { summary: "list installed contracts (contracts list [--tenant T])", load: () => import("./commands/contracts.ts") },
  command: { summary: "sign a command with a key file and send it to a node (--tenant T --key FILE --args JSON); prints the receipt", load: () => import("./commands/command.ts") },
  verify: { summary: "check a receipt's signature against a node's identity (--node URL) or a did:key (--did)", load: () => import("./commands/verify.ts") },
  backup: { summary: "back the data directory up into DEST while the node runs (backup DEST [--data DIR]); checked, with a manifest", load: () => import("./commands/backup.ts") },
  restore: { summary: "restore a backup onto a stopped, empty data directory (restore SRC --data DIR)", load: () => import("./commands/restore.ts") },
  "install-service": { summary: "write the systemd unit that runs the node as a service ([--user U] [--data DIR] [--out PATH])", load: () => import("./commands/install-service.ts") },
  release: { summary: "the operator's releases: keygen (a release key), build (a signed release of this project), verify", load: () => import("./commands/release.ts") },
  tui: { summary: "the server console: overview, contracts, tenants, activity, logs, connectivity (read-only)", load: () => import("./commands/tui.ts") },
};

function help(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    "charter — a local-first node with a contract-governed backend",
    "",
    "Usage: charter <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Options: --help, --version. Run `charter <command> --help` for a command's options.",
    "",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(help());
    return 0;
  }
  if (name === "--version" || name === "-v") {
    process.stdout.write(`charter ${charterVersion()}\n`);
    return 0;
  }
  const command = commands[name];
  if (command === undefined) {
    process.stderr.write(`charter: unknown command '${name}' (run \`charter --help\`)\n`);
    return 2;
  }
  const mod = await command.load();
  return mod.default(rest);
}

process.exitCode = await main(process.argv.slice(2));
