/**
 * @module A release's manifest: what the operator signs with their Ed25519 release key (a JWS,
 * `typ: charter-release+jws`, `kid` the key's did:key) and what a node checks before it installs a
 * release — signed by the configured release key, every file present with its size and SHA-256,
 * and newer than the running version (a downgrade is refused). A release is the folder
 * `<channel>/<version>/`: `manifest.jws` and the files it names; the channel's `latest.jws` is the
 * newest release's manifest.
 */
import { lstat } from "node:fs/promises";
import { join, normalize, sep } from "node:path";
import { signJws, verifyJws } from "../identity/jws.ts";
import type { KeyPair } from "../identity/key-pair.ts";
import { fail, ok, type Result } from "../result.ts";
import { digestFile } from "../backup/manifest.ts";

export { digestFile };

export const RELEASE_TYP = "charter-release+jws";
export const RELEASE_FORMAT = "charter-release/1";

export interface ReleaseFile {
  /** Relative to the release's folder, `/`-separated. */
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

export interface ReleaseManifest {
  readonly format: typeof RELEASE_FORMAT;
  readonly version: string;
  /** The lowest Node.js major version the release runs on. */
  readonly minNode: number;
  /** `process.platform-process.arch` the release was built on (its dependencies hold native code). */
  readonly platform: string;
  readonly notes: string;
  readonly createdAt: string;
  readonly files: readonly ReleaseFile[];
}

/** Why a release is refused; each refusal is recorded by the updater with its code. */
export type ReleaseRefusal =
  | { readonly code: "unsigned"; readonly message: string }
  | { readonly code: "foreign-signed"; readonly message: string }
  | { readonly code: "tampered"; readonly message: string }
  | { readonly code: "downgrade"; readonly message: string }
  | { readonly code: "unsuitable"; readonly message: string };

/** The most files a manifest may name, and the longest notes. */
export const MAX_FILES = 10_000;
const MAX_NOTES = 20_000;
const VERSION = /^(\d{1,6})\.(\d{1,6})\.(\d{1,6})$/;

/** -1, 0 or 1 as version `a` is older than, the same as or newer than `b` (`MAJOR.MINOR.PATCH`). */
export function compareVersions(a: string, b: string): number {
  const pa = VERSION.exec(a);
  const pb = VERSION.exec(b);
  if (pa === null || pb === null) throw new RangeError(`not a version: ${pa === null ? a : b}`);
  for (let i = 1; i <= 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

export function isVersion(text: string): boolean {
  return VERSION.test(text);
}

/** The manifest signed with the release key. */
export function signManifest(key: KeyPair, manifest: ReleaseManifest): string {
  return signJws({ kid: key.did, typ: RELEASE_TYP }, JSON.stringify(manifest), key.secretKey);
}

/** A relative path that stays inside its folder. */
function safePath(path: string): boolean {
  if (path === "" || path.length > 400 || path.startsWith("/") || path.includes("\\") || path.includes("\0")) return false;
  const n = normalize(path);
  return n === path && !n.split(sep).includes("..");
}

/** Reads a manifest JWS: signed by `releaseKey` (a did:key), well formed. Nothing on disk is read. */
export function readManifest(jws: string, releaseKey: string): Result<ReleaseManifest, ReleaseRefusal> {
  const verified = verifyJws(jws.trim(), { typ: RELEASE_TYP });
  if (!verified.ok) {
    return fail({ code: "unsigned", message: `the manifest is not a signed release manifest: ${verified.error.message}` });
  }
  if (verified.value.signer !== releaseKey) {
    return fail({ code: "foreign-signed", message: `the manifest is signed by ${verified.value.signer}, not by the release key ${releaseKey}` });
  }
  let m: Partial<ReleaseManifest>;
  try {
    m = JSON.parse(verified.value.payload.toString("utf8")) as Partial<ReleaseManifest>;
  } catch {
    return fail({ code: "unsigned", message: "the manifest's payload is not JSON" });
  }
  const files = m.files;
  const wellFormed =
    m.format === RELEASE_FORMAT &&
    typeof m.version === "string" &&
    isVersion(m.version) &&
    typeof m.minNode === "number" &&
    typeof m.platform === "string" &&
    typeof m.notes === "string" &&
    m.notes.length <= MAX_NOTES &&
    typeof m.createdAt === "string" &&
    Array.isArray(files) &&
    files.length <= MAX_FILES &&
    files.every((f: Partial<ReleaseFile>) => typeof f === "object" && f !== null && typeof f.path === "string" && safePath(f.path) && Number.isSafeInteger(f.size) && (f.size as number) >= 0 && typeof f.sha256 === "string" && /^[0-9a-f]{64}$/.test(f.sha256));
  if (!wellFormed) return fail({ code: "unsigned", message: "the signed payload is not a release manifest this Charter reads" });
  return ok(m as ReleaseManifest);
}

/** Checks every file the manifest names in `dir` (a regular file, its size, then its digest). */
export async function checkFiles(dir: string, manifest: ReleaseManifest): Promise<Result<null, ReleaseRefusal>> {
  for (const f of manifest.files) {
    const path = join(dir, f.path);
    const st = await lstat(path).catch(() => null);
    if (st === null || !st.isFile()) return fail({ code: "tampered", message: `${f.path} is missing from the release` });
    if (st.size !== f.size) return fail({ code: "tampered", message: `${f.path} is ${st.size} bytes, the manifest says ${f.size}` });
    if ((await digestFile(path)).sha256 !== f.sha256) return fail({ code: "tampered", message: `${f.path} does not match its digest` });
  }
  return ok(null);
}

/** Whether this machine and the running version may take the release. */
export function checkSuitable(manifest: ReleaseManifest, running: { version: string; nodeMajor: number; platform: string }): Result<null, ReleaseRefusal> {
  if (compareVersions(manifest.version, running.version) <= 0) {
    return fail({ code: "downgrade", message: `release ${manifest.version} is not newer than the running ${running.version}` });
  }
  if (manifest.platform !== running.platform) return fail({ code: "unsuitable", message: `release ${manifest.version} is built for ${manifest.platform}, this machine is ${running.platform}` });
  if (running.nodeMajor < manifest.minNode) return fail({ code: "unsuitable", message: `release ${manifest.version} needs Node ${manifest.minNode} or newer` });
  return ok(null);
}

/** A whole release folder checked: the manifest's signature, its files, and that it is newer. */
export async function verifyRelease(
  dir: string,
  jws: string,
  options: { releaseKey: string; running: { version: string; nodeMajor: number; platform: string } },
): Promise<Result<ReleaseManifest, ReleaseRefusal>> {
  const read = readManifest(jws, options.releaseKey);
  if (!read.ok) return read;
  const suitable = checkSuitable(read.value, options.running);
  if (!suitable.ok) return suitable;
  const files = await checkFiles(dir, read.value);
  if (!files.ok) return files;
  return read;
}
