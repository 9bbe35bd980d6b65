/**
 * `charter release`: a real release of this project, built from a copy of the working tree with its
 * version bumped, signed with a key `release keygen` made; `release verify` accepts it and refuses
 * it tampered or under another key; unpacked, it runs on the Node it carries, with nothing else.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { execa } from "execa";

const project = new URL("..", import.meta.url).pathname;
const node = process.execPath;
const charter = (args: string[], cwd = project) => execa(node, [join(project, "bin/charter.js"), ...args], { cwd, reject: false });

describe("charter release", () => {
  const work = mkdtempSync(join(tmpdir(), "charter-release-test-"));
  after(() => rmSync(work, { recursive: true, force: true }));

  it("builds a signed, self-contained release that verify accepts and that runs once unpacked", { timeout: 300_000 }, async () => {
    // A copy of the working tree as npm packs it, at a newer version.
    const copy = join(work, "next");
    mkdirSync(copy);
    const packed = await execa("npm", ["pack", "--pack-destination", work, "--ignore-scripts", "--loglevel=error"], { cwd: project });
    await execa("tar", ["-xzf", join(work, packed.stdout.trim().split("\n").at(-1) as string), "-C", copy, "--strip-components=1"]);
    copyFileSync(join(project, "package-lock.json"), join(copy, "package-lock.json"));
    const pkg = JSON.parse(readFileSync(join(copy, "package.json"), "utf8")) as { version: string };
    const [major, minor] = pkg.version.split(".").map(Number) as [number, number];
    const next = `${major}.${minor + 1}.0`;
    writeFileSync(join(copy, "package.json"), JSON.stringify({ ...pkg, version: next }, null, 2));

    const keygen = await charter(["release", "keygen", "--out", join(work, "release.jwk")]);
    assert.equal(keygen.exitCode, 0, keygen.stderr);
    const did = keygen.stdout.trim();
    assert.match(did, /^did:key:z6Mk/);
    const channel = join(work, "channel");
    const built = await charter(["release", "build", "--key", join(work, "release.jwk"), "--out", channel, "--notes", "test", "--project", copy]);
    assert.equal(built.exitCode, 0, built.stderr);
    assert.match(built.stdout, new RegExp(`^release ${next.replaceAll(".", "\\.")} \\(linux-x64, [\\d.]+ MiB\\) signed by ${did}`));
    assert.equal(readFileSync(join(channel, "latest.jws"), "utf8"), readFileSync(join(channel, next, "manifest.jws"), "utf8"));

    const verified = await charter(["release", "verify", join(channel, next), "--key", did]);
    assert.equal(verified.exitCode, 0, verified.stderr);
    const foreign = await charter(["release", "verify", join(channel, next), "--key", "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"]);
    assert.match(foreign.stderr, /refused \(foreign-signed\)/);

    // Unpacked, it runs on its own Node from its own dependencies.
    const installed = join(work, "installed");
    mkdirSync(installed);
    for (const archive of [`charter-${next}.tgz`, "node_modules.tgz"]) await execa("tar", ["-xzf", join(channel, next, archive), "-C", installed]);
    const version = await execa(join(installed, "node_modules/node/bin/node"), ["bin/charter.js", "--version"], { cwd: installed });
    assert.equal(version.stdout.trim(), `charter ${next}`);

    // One byte changed in an archive: refused.
    const source = join(channel, next, `charter-${next}.tgz`);
    const bytes = readFileSync(source);
    bytes.writeUInt8((bytes.at(-1) as number) ^ 1, bytes.length - 1);
    writeFileSync(source, bytes);
    const tampered = await charter(["release", "verify", join(channel, next), "--key", did]);
    assert.equal(tampered.exitCode, 1);
    assert.match(tampered.stderr, /refused \(tampered\)/);
  });

  it("says what is missing", async () => {
    const none = await charter(["release", "build"]);
    assert.equal(none.exitCode, 2);
    assert.match(none.stderr, /--key FILE and --out DIR are required/);
    const bad = await charter(["release", "verify", join(work, "nowhere"), "--key", "did:key:z6Mk"]);
    assert.match(bad.stderr, /has no manifest\.jws/);
  });
});
