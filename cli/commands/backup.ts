/** @module `charter backup DEST [--data DIR]`: an online backup of the data directory, checked, with its manifest. */
import { setPriority } from "node:os";
import { parseArgs } from "node:util";
import { BackupError, backupDataDir } from "../../shared/backup/backup-data-dir.ts";
import { charterVersion } from "../version.ts";
import { dataDirFrom } from "../options.ts";

const usage = [
  "Usage: charter backup DEST [--data DIR]",
  "",
  "Backs the data directory up into DEST (a new or empty directory), while the node runs or while",
  "it is stopped: every database copied with SQLite's backup API from this process (the engine keeps",
  "writing), then node-key.jwk, keys/, blobs/ and vaults/. It is written into DEST.partial, checked —",
  "each database's integrity, every file's SHA-256, a sample of history replayed through its",
  "contracts — and renamed to DEST with its manifest, backup.json. Exit 1 on any failure.",
  "",
  "  --data DIR  data directory (default: $CHARTER_DATA, else ./data)",
  "",
].join("\n");

export default async function backup(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, strict: true, allowPositionals: true, options: { data: { type: "string" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    process.stderr.write(`charter backup: ${(error as Error).message.split("\n")[0]} (run \`charter backup --help\`)\n`);
    return 2;
  }
  if (parsed.values.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  const [dest, ...extra] = parsed.positionals;
  if (dest === undefined || extra.length > 0) {
    process.stderr.write("charter backup: name one DEST directory (run `charter backup --help`)\n");
    return 2;
  }
  // Whatever this process creates is its owner's alone, as in the data directory.
  process.umask(0o077);
  lowerPriority();
  const started = performance.now();
  try {
    const { manifest, bytes, online } = await backupDataDir(dataDirFrom(parsed.values.data), dest, { version: charterVersion() });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const r = manifest.verified.replayed;
    process.stdout.write(
      `backup ${dest}: ${count(manifest.files.length, "file")}, ${mib(bytes)}, history to seq ${manifest.historySeq}, schema ${manifest.schemaVersion}, ` +
        `${online ? "online" : "node stopped"}, ${seconds} s; checked: integrity of ${count(manifest.verified.integrity.length, "database")}, ${count(manifest.verified.digests, "digest")}, ` +
        `${count(r.entries, "history entry", "history entries")} of ${count(r.subjects, "record")} replayed\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    process.stderr.write(`charter backup: ${error.message}\n`);
    return 1;
  }
}

/**
 * A backup is background work: on a machine of two cores the engine, the gateway and the copy
 * compete for the CPU, and the engine's commands must not wait for the copy (bench/backup.ts).
 * Niceness 19; where that is not allowed, the copy simply runs at the usual priority.
 */
export function lowerPriority(): void {
  try {
    setPriority(19);
  } catch {
    // Not allowed here (a sandbox refusing setpriority): no harm.
  }
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}
