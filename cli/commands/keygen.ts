/** @module `charter keygen --out FILE`: create an Ed25519 identity as a private JWK (mode 0600) and print its did:key. */
import { parseArgs } from "node:util";
import { generateKeyPair } from "../../shared/identity/key-pair.ts";
import { saveKeyFile } from "../../shared/identity/key-file.ts";

const usage = [
  "Usage: charter keygen --out FILE [--force]",
  "",
  "Creates a new Ed25519 identity, writes its private key to FILE as a JWK (mode 0600)",
  "and prints its did:key. Keep FILE secret: it is the identity.",
  "",
  "  --out FILE  where to write the key (required)",
  "  --force     replace FILE if it already exists",
  "",
].join("\n");

export default async function keygen(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, strict: true, allowPositionals: false, options: { out: { type: "string" }, force: { type: "boolean" }, help: { type: "boolean", short: "h" } } }));
  } catch (error) {
    return usageError((error as Error).message.split("\n")[0] as string);
  }
  if (values.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  if (values.out === undefined || values.out === "") return usageError("--out FILE is required (where to write the new key)");

  const keyPair = generateKeyPair();
  const saved = await saveKeyFile(values.out, keyPair, { overwrite: values.force === true });
  if (!saved.ok) {
    process.stderr.write(`charter keygen: ${saved.error.message}\n`);
    return 1;
  }
  process.stdout.write(`${keyPair.did}\n`);
  return 0;
}

function usageError(message: string): number {
  process.stderr.write(`charter keygen: ${message} (run \`charter keygen --help\`)\n`);
  return 2;
}
