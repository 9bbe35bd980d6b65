/**
 * @module `charter account setup-code [--data DIR]`: prints the set-up code of a personal node that
 * is not set up yet — the code `charter node` prints at start, which creating the account needs.
 * It reads `DATA/accounts.db` read-only (the gateway is its only writer), by the two rows it needs:
 * the command line reaches no worker's code, so the table names are written here too.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { openDatabase } from "../../shared/store/open.ts";
import { dataPaths } from "../../shared/worker/config.ts";
import { existingDataDir } from "../options.ts";

const usage = [
  "Usage: charter account setup-code [--data DIR]",
  "",
  "Prints the set-up code of a personal node (charter node) that is not set up yet: creating the",
  "account in the app asks for it, so whoever reaches the node first cannot take it over.",
  "",
  "  --data DIR  data directory (default: $CHARTER_DATA, else ./data)",
  "",
].join("\n");

/** What the account's database says about set-up. */
type SetupState = { readonly kind: "code"; readonly code: string } | { readonly kind: "set-up" } | { readonly kind: "no-code" };

function setupState(path: string): SetupState {
  const db = openDatabase(path, { readOnly: true });
  try {
    const hasTable = (name: string) => db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;
    if (!hasTable("account_meta") || !hasTable("account")) return { kind: "no-code" };
    const account = db.prepare("SELECT state FROM account WHERE id = 1").get() as { state: string } | undefined;
    if (account?.state === "ready") return { kind: "set-up" };
    const row = db.prepare("SELECT value FROM account_meta WHERE key = 'setup-code'").get() as { value: string } | undefined;
    return row === undefined ? { kind: "no-code" } : { kind: "code", code: row.value };
  } finally {
    db.close();
  }
}

export default async function account(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, strict: true, allowPositionals: true, options: { data: { type: "string" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    process.stderr.write(`charter account: ${(error as Error).message.split("\n")[0]} (run \`charter account --help\`)\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== "setup-code") {
    process.stderr.write(`charter account: expected \`setup-code\`, got '${positionals.join(" ")}' (run \`charter account --help\`)\n`);
    return 2;
  }
  const dir = existingDataDir(values.data);
  if (dir === null) return 1;
  const path = dataPaths(dir).accounts;
  if (!existsSync(path)) {
    process.stderr.write(`charter account: no set-up code yet: the node has not created ${path}; start it once with \`charter node --data ${dir}\`\n`);
    return 1;
  }
  const state = setupState(path);
  if (state.kind === "set-up") {
    process.stderr.write("charter account: this node is set up already: it has no set-up code (sign in with a passkey, or use a recovery code)\n");
    return 1;
  }
  if (state.kind === "no-code") {
    process.stderr.write(`charter account: no set-up code yet: start the node once with \`charter node --data ${dir}\`\n`);
    return 1;
  }
  process.stdout.write(`set-up code: ${state.code}\n`);
  return 0;
}
