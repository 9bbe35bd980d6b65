/**
 * @module A preload (`NODE_OPTIONS=--import=…`) that gives the charter supervisor an ordinary user's
 * view of a read-only directory even when the tests run as root, who may write anywhere: creating,
 * renaming or removing a file in a directory without the owner's write bit fails with EACCES, as
 * it would for anyone else. Only the supervisor is affected (workers carry CHARTER_WORKER_CONFIG),
 * and only the synchronous calls it writes its lock and log with.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { dirname } from "node:path";

/** Whether the owner may not write in the directory holding `path` (and so nobody else may either). */
function readOnlyParent(path: fs.PathLike): boolean {
  try {
    return (fs.statSync(dirname(String(path))).mode & 0o200) === 0;
  } catch {
    return false;
  }
}

function denied(syscall: string, path: fs.PathLike): Error {
  return Object.assign(new Error(`EACCES: permission denied, ${syscall} '${String(path)}'`), { code: "EACCES", errno: -13, syscall, path: String(path) });
}

const creates = (flags: fs.OpenMode | undefined) => (typeof flags === "number" ? (flags & fs.constants.O_CREAT) !== 0 : flags !== undefined && /[wa]/.test(String(flags)));

if (process.env.CHARTER_WORKER_CONFIG === undefined) {
  const { openSync, renameSync, rmSync, unlinkSync, writeFileSync } = fs;
  fs.openSync = ((path: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
    if (creates(flags) && !fs.existsSync(path) && readOnlyParent(path)) throw denied("open", path);
    return openSync(path, flags ?? "r", mode);
  }) as typeof fs.openSync;
  fs.writeFileSync = ((path: fs.PathOrFileDescriptor, ...rest: Parameters<typeof writeFileSync> extends [unknown, ...infer R] ? R : never) => {
    if (typeof path !== "number" && !fs.existsSync(path) && readOnlyParent(path)) throw denied("open", path);
    return writeFileSync(path, ...rest);
  }) as typeof fs.writeFileSync;
  fs.renameSync = ((from: fs.PathLike, to: fs.PathLike) => {
    if (readOnlyParent(from) || readOnlyParent(to)) throw denied("rename", from);
    return renameSync(from, to);
  }) as typeof fs.renameSync;
  fs.rmSync = ((path: fs.PathLike, options?: fs.RmOptions) => {
    if (fs.existsSync(path) && readOnlyParent(path)) throw denied("rm", path);
    return rmSync(path, options);
  }) as typeof fs.rmSync;
  fs.unlinkSync = ((path: fs.PathLike) => {
    if (readOnlyParent(path)) throw denied("unlink", path);
    return unlinkSync(path);
  }) as typeof fs.unlinkSync;
  // `import { openSync } from "node:fs"` bindings take the patched functions only after this.
  syncBuiltinESMExports();
}
