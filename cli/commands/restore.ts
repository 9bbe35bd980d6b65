/** @module `charter restore SRC --data DIR`: a backup checked and copied onto a stopped, empty data directory. */
import { parseArgs } from "node:util";
import { BackupError } from "../../shared/backup/manifest.ts";
import { restoreDataDir } from "../../shared/backup/restore-data-dir.ts";

const usage = [
  "Usage: charter restore SRC --data DIR",
  "",
  "Restores the backup SRC (made by `charter backup`) onto DIR, which must be empty or missing, with",
  "no node running on it. The manifest and every file's SHA-256 are checked before anything is",
  "written; folders are made 0700 and files 0600. Then start the node on DIR. Exit 1 on any failure.",
  "",
  "  --data DIR  the data directory to restore onto (required)",
  "",
].join("\n");

export default async function restore(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, strict: true, allowPositionals: true, options: { data: { type: "string" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    process.stderr.write(`charter restore: ${(error as Error).message.split("\n")[0]} (run \`charter restore --help\`)\n`);
    return 2;
  }
  if (parsed.values.help === true) {
    process.stdout.write(usage);
    return 0;
  }
  const [src, ...extra] = parsed.positionals;
  if (src === undefined || extra.length > 0 || parsed.values.data === undefined) {
    process.stderr.write("charter restore: name one SRC backup and the --data DIR to restore onto (run `charter restore --help`)\n");
    return 2;
  }
  process.umask(0o077);
  try {
    const { manifest, bytes } = await restoreDataDir(src, parsed.values.data);
    process.stdout.write(
      `restored ${src} onto ${parsed.values.data}: ${manifest.files.length} files, ${(bytes / 1024 ** 2).toFixed(1)} MiB, history to seq ${manifest.historySeq}, ` +
        `taken ${manifest.createdAt} by Charter ${manifest.charterVersion}\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    process.stderr.write(`charter restore: ${error.message}\n`);
    return 1;
  }
}
