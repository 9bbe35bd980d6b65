/** @module `charter identity [--data DIR]`: print the node's did:key, creating DATA and its key on first use. */
import { parseArgs } from "node:util";
import { loadOrCreateNodeKey } from "../../shared/identity/key-file.ts";
import { dataDirFrom } from "../options.ts";

const usage = [
  "Usage: charter identity [--data DIR]",
  "",
  "Prints the node's identity (its did:key, which signs receipts). The key lives in",
  "DIR/node-key.jwk (mode 0600); it and DIR are created when missing.",
  "",
  "  --data DIR  data directory (default: $CHARTER_DATA, else ./data)",
  "",
].join("\n");

export default async function identity(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, strict: true, allowPositionals: false, options: { data: { type: "string" }, help: { type: "boolean", short: "h" } } }));
  } catch (error) {
    process.stderr.write(`charter identity: ${(error as Error).message.split("\n")[0]} (run \`charter identity --help\`)\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  const nodeKey = await loadOrCreateNodeKey(dataDirFrom(values.data));
  if (!nodeKey.ok) {
    process.stderr.write(`charter identity: ${nodeKey.error.message}\n`);
    return 1;
  }
  process.stdout.write(`${nodeKey.value.did}\n`);
  return 0;
}
