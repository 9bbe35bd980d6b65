/**
 * @module `charter tui [--data DIR] [--url URL] [--ascii]`: the server console. Parses its options
 * here and imports the console (and with it ink and React) only now, so no other command pays for it.
 */
import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import { existingDataDir } from "../options.ts";

const usage = [
  "Usage: charter tui [--data DIR] [--url URL] [--ascii]",
  "",
  "The server console: a read-only terminal view of a data directory and its node, whether the",
  "node runs or not. Views: 1 Overview, 2 Contracts, 3 Tenants, 4 Activity, 5 Logs, 6 Connect.",
  "Keys: 1-6 and Tab switch views, arrows/PgUp/PgDn/Home/End scroll, / filters, Esc clears, q quits.",
  "",
  "  --data DIR  data directory (default: $CHARTER_DATA, else ./data); never written to",
  "  --url URL   the node's address, when not the one its log names (default: from logs/charter.log)",
  "  --ascii     draw with plain ASCII even when the locale says UTF-8",
  "",
].join("\n");

export default async function tui(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: { data: { type: "string" }, url: { type: "string" }, ascii: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    process.stderr.write(`charter tui: ${(error as Error).message.split("\n")[0]} (run \`charter tui --help\`)\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  const dataDir = existingDataDir(values.data);
  if (dataDir === null) return 1;
  if (!statSync(dataDir).isDirectory()) {
    process.stderr.write(`charter tui: ${dataDir} is not a directory\n`);
    return 1;
  }
  if (values.url !== undefined && !URL.canParse(values.url)) {
    process.stderr.write(`charter tui: --url expects a URL such as http://127.0.0.1:8787, got '${values.url}'\n`);
    return 2;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write("charter tui: the console needs a terminal (stdin and stdout must be a TTY)\n");
    return 2;
  }
  const { runConsole } = await import("../../tui/run.ts");
  const code = await runConsole({ dataDir, ...(values.url === undefined ? {} : { url: values.url }), ascii: values.ascii === true });
  // The user quit: leave now, rather than when the last /health probe or file watch lets go.
  process.exit(code);
}
