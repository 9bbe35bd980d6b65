/** A release manifest as a node checks it: signed by the release key, every file matching, newer, for this machine; anything else refused with its reason. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { signJws } from "../identity/jws.ts";
import { generateKeyPair } from "../identity/key-pair.ts";
import { compareVersions, digestFile, readManifest, RELEASE_FORMAT, RELEASE_TYP, type ReleaseManifest, signManifest, verifyRelease } from "./manifest.ts";

const dir = mkdtempSync(join(tmpdir(), "charter-manifest-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const key = generateKeyPair();
const running = { version: "1.2.3", nodeMajor: 24, platform: "linux-x64" };

async function release(version: string, overrides: Partial<ReleaseManifest> = {}): Promise<{ manifest: ReleaseManifest; jws: string }> {
  writeFileSync(join(dir, "app.tgz"), `the app ${version}`);
  const manifest: ReleaseManifest = { format: RELEASE_FORMAT, version, minNode: 24, platform: "linux-x64", notes: "", createdAt: "2026-11-25T00:00:00Z", files: [{ path: "app.tgz", ...(await digestFile(join(dir, "app.tgz"))) }], ...overrides };
  return { manifest, jws: signManifest(key, manifest) };
}

const refusal = async (jws: string, releaseKey = key.did) => {
  const r = await verifyRelease(dir, jws, { releaseKey, running });
  return r.ok ? "accepted" : r.error.code;
};

describe("release manifests", () => {
  it("accept a newer release signed by the release key whose files match", async () => {
    const { jws } = await release("1.3.0");
    const r = await verifyRelease(dir, jws, { releaseKey: key.did, running });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.value.version, "1.3.0");
  });

  it("refuse an unsigned, a foreign-signed, a tampered, an older and an unsuitable release", async () => {
    const { manifest, jws } = await release("1.3.0");
    assert.equal(await refusal(Buffer.from(JSON.stringify(manifest)).toString("base64url")), "unsigned");
    assert.equal(await refusal(signManifest(generateKeyPair(), manifest)), "foreign-signed");
    assert.equal(await refusal(jws, generateKeyPair().did), "foreign-signed");
    const [h, , s] = jws.split(".");
    assert.equal(await refusal(`${h}.${Buffer.from(JSON.stringify({ ...manifest, version: "9.0.0" })).toString("base64url")}.${s}`), "unsigned", "a payload changed after signing");
    writeFileSync(join(dir, "app.tgz"), "the app 1.3.X");
    assert.equal(await refusal(jws), "tampered", "same size, other bytes");
    writeFileSync(join(dir, "app.tgz"), "shorter");
    assert.equal(await refusal(jws), "tampered");
    rmSync(join(dir, "app.tgz"));
    assert.equal(await refusal(jws), "tampered", "a file missing");
    assert.equal(await refusal((await release("1.2.3")).jws), "downgrade", "the same version");
    assert.equal(await refusal((await release("1.1.9")).jws), "downgrade");
    assert.equal(await refusal((await release("1.3.0", { platform: "darwin-arm64" })).jws), "unsuitable");
    assert.equal(await refusal((await release("1.3.0", { minNode: 99 })).jws), "unsuitable");
  });

  it("refuse a manifest that names a file outside its folder or is not one at all", async () => {
    const { manifest } = await release("1.3.0");
    for (const path of ["../escape", "/etc/passwd", "a/../../b", "a\\b", ""]) {
      const r = readManifest(signManifest(key, { ...manifest, files: [{ path, size: 1, sha256: "0".repeat(64) }] }), key.did);
      assert.equal(r.ok ? "accepted" : r.error.code, "unsigned", path);
    }
    const other = readManifest(signJws({ kid: key.did, typ: RELEASE_TYP }, JSON.stringify({ format: "x" }), key.secretKey), key.did);
    assert.equal(other.ok, false);
    assert.equal(readManifest(signJws({ kid: key.did, typ: "charter-receipt+jws" }, JSON.stringify(manifest), key.secretKey), key.did).ok, false, "another kind of JWS");
  });

  it("compare versions by number, part by part", () => {
    assert.equal(compareVersions("1.10.0", "1.9.9"), 1);
    assert.equal(compareVersions("0.1.0", "0.1.0"), 0);
    assert.equal(compareVersions("2.0.0", "10.0.0"), -1);
    assert.throws(() => compareVersions("1.0", "1.0.0"), RangeError);
  });
});
