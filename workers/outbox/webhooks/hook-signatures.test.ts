/** Webhook signatures: GitHub's published test vector, and Mastodon's `X-Hub-Signature`. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hubSignature, verifyGithubSignature, verifyHubSignature } from "./hook-signatures.ts";

describe("GitHub's X-Hub-Signature-256", () => {
  // From GitHub's "Validating webhook deliveries": this secret, this payload, this signature.
  const secret = "It's a Secret to Everybody";
  const payload = "Hello, World!";
  const signature = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

  it("accepts GitHub's own test vector", async () => {
    assert.equal(await verifyGithubSignature(secret, payload, signature), true);
    assert.equal(hubSignature(secret, payload), signature, "and signs it the same way");
  });

  it("refuses a tampered body, another secret, a tampered or missing signature", async () => {
    assert.equal(await verifyGithubSignature(secret, "Hello, World?", signature), false);
    assert.equal(await verifyGithubSignature("It's a secret to everybody", payload, signature), false);
    assert.equal(await verifyGithubSignature(secret, payload, `${signature.slice(0, -1)}f`), false);
    assert.equal(await verifyGithubSignature(secret, payload, signature.replace("sha256=", "sha1=")), false);
    assert.equal(await verifyGithubSignature(secret, payload, signature.slice(7)), false, "the bare digest is not the header");
    assert.equal(await verifyGithubSignature(secret, payload, undefined), false);
    assert.equal(await verifyGithubSignature(secret, payload, ""), false);
    assert.equal(await verifyGithubSignature("", payload, signature), false, "no secret verifies nothing");
    assert.equal(await verifyGithubSignature(secret, "", signature), false);
  });
});

describe("Mastodon's X-Hub-Signature", () => {
  const secret = "mastodon webhook secret";
  const body = Buffer.from(JSON.stringify({ event: "status.created", created_at: "2026-11-20T10:00:00.000Z", object: { id: "1" } }));

  it("is sha256=<hex> of the HMAC-SHA256 of the raw body", () => {
    const header = hubSignature(secret, body);
    assert.match(header, /^sha256=[0-9a-f]{64}$/);
    assert.equal(verifyHubSignature(secret, body, header), true);
    assert.equal(verifyHubSignature(secret, body, header.toUpperCase().replace("SHA256=", "sha256=")), true, "hex in either case");
  });

  it("refuses another body, another secret, another form of header", () => {
    const header = hubSignature(secret, body);
    assert.equal(verifyHubSignature(secret, Buffer.concat([body, Buffer.from(" ")]), header), false);
    assert.equal(verifyHubSignature("other", body, header), false);
    assert.equal(verifyHubSignature(secret, body, header.slice(7)), false);
    assert.equal(verifyHubSignature(secret, body, `sha1=${header.slice(7)}`), false);
    assert.equal(verifyHubSignature(secret, body, `${header}00`), false);
    assert.equal(verifyHubSignature(secret, body, undefined), false);
    assert.equal(verifyHubSignature("", body, header), false);
  });
});
