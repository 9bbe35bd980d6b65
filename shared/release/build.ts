/**
 * @module `charter release build`: packs the project as a self-contained release and signs its
 * manifest. A release is two archives in `<out>/<version>/`:
 *
 * - `charter-<version>.tgz`, the project as `npm pack` makes it (what `.gitignore` leaves out stays
 *   out: `node_modules/`, `data/`), with `package-lock.json` added;
 * - `node_modules.tgz`, its production dependencies as `npm ci --omit=dev` installed them from that
 *   lockfile on the building machine (Node 24 itself among them, from the `node` package);
 *
 * and `manifest.jws` naming both with their sizes and SHA-256, signed with the operator's release
 * key; the channel's `latest.jws` is a copy of the newest manifest. Installing a release is then
 * unpacking two verified archives — no registry, no compiler, no network — which is why a release
 * carries its dependencies rather than a lockfile to resolve later (a node updating at night may be
 * offline, and a registry may no longer serve a version). The price is size and a release per
 * platform: the manifest names the platform it was built on, and a node on another refuses it.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import type { KeyPair } from "../identity/key-pair.ts";
import { compareVersions, digestFile, isVersion, readManifest, RELEASE_FORMAT, type ReleaseManifest, signManifest } from "./manifest.ts";

export interface BuildOptions {
  /** The project to pack (its package.json names the version). */
  readonly projectDir: string;
  /** The channel folder the release is written into. */
  readonly out: string;
  readonly key: KeyPair;
  readonly notes?: string;
  /** Progress lines (the command prints them). */
  readonly progress?: (line: string) => void;
}

export interface BuiltRelease {
  readonly dir: string;
  readonly manifest: ReleaseManifest;
  readonly ms: { pack: number; dependencies: number; archive: number };
}

const NPM_QUIET = ["--no-audit", "--no-fund", "--loglevel=error"];
/** Beside a release's archives: the lockfile digest and platform its `node_modules.tgz` was installed from (not part of the release). */
const DEPENDENCIES_OF = "dependencies.sha256";

/**
 * What a node never runs, left out of the dependencies' archive: Node's C headers (67 MB, for
 * building native addons) and binaryen's command-line tools (90 MB; the compiler uses its library).
 * A third of the archive's bytes, so a third less to download and write at every install.
 */
const NOT_RUN = [`node/node_modules/node-${process.platform}-${process.arch}/include`, "binaryen/bin"];

/** Files of the dependencies that Node never loads: it runs no TypeScript from node_modules, and reads no map or Markdown. */
const UNRUN_FILE = /\.(?:[mc]?ts|map|md|markdown)$/i;

/**
 * Removes the dependencies' files no node loads (half of their files): unpacking a release creates
 * every file it holds, and on a small machine that, not the bytes, is what an install waits for.
 */
async function leaveOutUnrun(modules: string): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(modules, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && UNRUN_FILE.test(entry.name)) {
      await rm(join(entry.parentPath, entry.name));
      removed++;
    }
  }
  return removed;
}

/** What an archive of dependencies was made from: the lockfile, the platform, and what was left out. */
function dependenciesKey(lockDigest: string): string {
  return `${lockDigest} ${process.platform}-${process.arch} without ${NOT_RUN.join(",")} ${UNRUN_FILE.source}`;
}

/** A release in the channel whose dependencies were installed from the same lockfile on this platform, or null. */
async function earlierDependencies(channel: string, lockDigest: string): Promise<string | null> {
  const want = dependenciesKey(lockDigest);
  for (const entry of await readdir(channel).catch(() => [] as string[])) {
    if (!isVersion(entry)) continue;
    const said = await readFile(join(channel, entry, DEPENDENCIES_OF), "utf8").catch(() => "");
    if (said.trim() === want && (await stat(join(channel, entry, "node_modules.tgz")).catch(() => null))?.isFile() === true) return entry;
  }
  return null;
}

/** Builds and signs the release of `projectDir` into `out/<version>/`. */
export async function buildRelease(options: BuildOptions): Promise<BuiltRelease> {
  const say = options.progress ?? (() => {});
  const pkg = JSON.parse(await readFile(join(options.projectDir, "package.json"), "utf8")) as { name?: string; version?: string; engines?: { node?: string } };
  const version = pkg.version ?? "";
  if (!isVersion(version)) throw new Error(`package.json's version ${JSON.stringify(version)} is not MAJOR.MINOR.PATCH`);
  const minNode = Number(/(\d+)/.exec(pkg.engines?.node ?? "")?.[1] ?? "24");
  const dir = join(options.out, version);
  const work = await mkdtemp(join(tmpdir(), "charter-release-"));
  const partial = `${dir}.partial`;
  try {
    await rm(partial, { recursive: true, force: true });
    await mkdir(partial, { recursive: true });
    let t = performance.now();
    say(`packing ${pkg.name ?? "charter"} ${version}`);
    const packed = await execa("npm", ["pack", "--pack-destination", work, "--ignore-scripts", ...NPM_QUIET], { cwd: options.projectDir });
    const tarball = join(work, packed.stdout.trim().split("\n").at(-1) ?? "");
    const app = join(work, "app");
    await mkdir(app);
    await execa("tar", ["-xzf", tarball, "-C", app, "--strip-components=1"]);
    await copyFile(join(options.projectDir, "package-lock.json"), join(app, "package-lock.json"));
    const source = `charter-${version}.tgz`;
    await execa("tar", ["-czf", join(partial, source), "-C", app, "."]);
    const pack = performance.now() - t;

    t = performance.now();
    // The same lockfile, on the same platform, installs the same dependencies: an earlier release's
    // archive of them in this channel is taken as it is (the manifest signs its digest all the same).
    const lockDigest = (await digestFile(join(app, "package-lock.json"))).sha256;
    const reused = await earlierDependencies(options.out, lockDigest);
    if (reused !== null) {
      say(`the dependencies are those of release ${reused}: taking its archive`);
      await copyFile(join(options.out, reused, "node_modules.tgz"), join(partial, "node_modules.tgz"));
    } else {
      say("installing the production dependencies from the lockfile");
      await execa("npm", ["ci", "--omit=dev", "--prefer-offline", ...NPM_QUIET], { cwd: app });
      for (const path of NOT_RUN) await rm(join(app, "node_modules", path), { recursive: true, force: true });
      say(`left out ${await leaveOutUnrun(join(app, "node_modules"))} files no node runs (typings, TypeScript sources, source maps, Markdown)`);
    }
    await writeFile(join(partial, DEPENDENCIES_OF), `${dependenciesKey(lockDigest)}\n`);
    const dependencies = performance.now() - t;

    t = performance.now();
    if (reused === null) {
      say("archiving the dependencies");
      await execa("tar", ["-czf", join(partial, "node_modules.tgz"), "-C", app, "node_modules"]);
    }
    const files = [];
    for (const name of [source, "node_modules.tgz"]) files.push({ path: name, ...(await digestFile(join(partial, name))) });
    const archive = performance.now() - t;

    const manifest: ReleaseManifest = {
      format: RELEASE_FORMAT,
      version,
      minNode,
      platform: `${process.platform}-${process.arch}`,
      notes: options.notes ?? "",
      createdAt: new Date().toISOString(),
      files,
    };
    const jws = signManifest(options.key, manifest);
    await writeFile(join(partial, "manifest.jws"), `${jws}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(partial, dir);
    // The channel's newest, written last and by rename, so a reader never sees half a manifest; an
    // older release built later leaves it as it is.
    const latest = await readFile(join(options.out, "latest.jws"), "utf8").then((text) => readManifest(text, options.key.did), () => null);
    if (latest === null || !latest.ok || compareVersions(latest.value.version, version) <= 0) {
      await writeFile(join(options.out, "latest.jws.tmp"), `${jws}\n`);
      await rename(join(options.out, "latest.jws.tmp"), join(options.out, "latest.jws"));
    }
    return { dir, manifest, ms: { pack, dependencies, archive } };
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(partial, { recursive: true, force: true });
  }
}
