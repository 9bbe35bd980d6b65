/**
 * @module `charter release keygen|build|verify`: the operator's side of self-update. `keygen`
 * makes the Ed25519 release key (its did:key is what nodes are configured to trust); `build` packs
 * this project as a signed release into a channel folder (shared/release/build.ts); `verify`
 * checks a release folder as a node would before installing it.
 */
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadKeyFile, saveKeyFile } from "../../shared/identity/key-file.ts";
import { generateKeyPair } from "../../shared/identity/key-pair.ts";
import { buildRelease } from "../../shared/release/build.ts";
import { verifyRelease } from "../../shared/release/manifest.ts";
import { charterVersion } from "../version.ts";

const usage = [
  "Usage:",
  "  charter release keygen --out FILE [--force]   create a release key (mode 0600); prints its did:key",
  "  charter release build --key FILE --out DIR [--notes TEXT] [--project DIR]",
  "                                                pack this project (or the checkout --project names) as a",
  "                                                signed release into the channel DIR",
  "  charter release verify DIR/VERSION --key DID   check a release as a node would (signature, files, newer)",
  "",
].join("\n");

const thisProject = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export default async function release(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, strict: true, allowPositionals: sub === "verify", options: { out: { type: "string" }, key: { type: "string" }, notes: { type: "string" }, project: { type: "string" }, force: { type: "boolean" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    return usageError((error as Error).message.split("\n")[0] as string);
  }
  const { values, positionals } = parsed;
  if (sub === undefined || sub === "--help" || sub === "-h" || values.help === true) {
    process.stdout.write(usage);
    return sub === undefined ? 2 : 0;
  }
  if (sub === "keygen") {
    if (values.out === undefined) return usageError("--out FILE is required");
    const key = generateKeyPair();
    const saved = await saveKeyFile(values.out, key, { overwrite: values.force === true });
    if (!saved.ok) return failure(saved.error.message);
    process.stdout.write(`${key.did}\n`);
    return 0;
  }
  if (sub === "build") {
    if (values.key === undefined || values.out === undefined) return usageError("--key FILE and --out DIR are required");
    const key = await loadKeyFile(values.key);
    if (!key.ok) return failure(key.error.message);
    try {
      const projectDir = values.project === undefined ? thisProject : resolve(values.project);
      const built = await buildRelease({ projectDir, out: resolve(values.out), key: key.value, ...(values.notes === undefined ? {} : { notes: values.notes }), progress: (line) => process.stderr.write(`${line}\n`) });
      const size = built.manifest.files.reduce((n, f) => n + f.size, 0);
      process.stdout.write(`release ${built.manifest.version} (${built.manifest.platform}, ${(size / 1048576).toFixed(1)} MiB) signed by ${key.value.did} in ${built.dir}\n`);
      return 0;
    } catch (error) {
      return failure((error as Error).message);
    }
  }
  if (sub === "verify") {
    const dir = positionals[0];
    if (dir === undefined || values.key === undefined) return usageError("a release folder and --key DID are required");
    const jws = await readFile(join(dir, "manifest.jws"), "utf8").catch(() => null);
    if (jws === null) return failure(`${dir} has no manifest.jws`);
    const verified = await verifyRelease(dir, jws, { releaseKey: values.key, running: { version: charterVersion(), nodeMajor: Number(process.versions.node.split(".")[0]), platform: `${process.platform}-${process.arch}` } });
    if (!verified.ok) return failure(`refused (${verified.error.code}): ${verified.error.message}`);
    process.stdout.write(`release ${verified.value.version}: signed by ${values.key}, ${verified.value.files.length} files match\n`);
    return 0;
  }
  return usageError(`unknown subcommand ${JSON.stringify(sub)}`);
}

function failure(message: string): number {
  process.stderr.write(`charter release: ${message}\n`);
  return 1;
}

function usageError(message: string): number {
  process.stderr.write(`charter release: ${message}\n\n${usage}`);
  return 2;
}
