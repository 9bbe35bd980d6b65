import assert from "node:assert/strict";
import { it } from "node:test";
import { PeerWarnings, WARN_REPEAT_MS } from "./peer-log.ts";

it("says the same warning about the same party again only after a while; another warning or party goes out at once", () => {
  const said: string[] = [];
  let now = 1_000;
  const warnings = new PeerWarnings({ info() {}, warn: (msg) => said.push(msg) }, () => now);
  warnings.warn("in:x", "refused x", {});
  warnings.warn("in:x", "refused x", {});
  warnings.warn("in:y", "refused x", {});
  warnings.warn("in:x", "refused x again, differently", {});
  now += WARN_REPEAT_MS;
  warnings.warn("in:x", "refused x again, differently", {});
  warnings.protocolError({ id: "b", did: "did:key:zB" }, "an unexpected pong on an inbound link");
  assert.deepEqual(said, ["refused x", "refused x", "refused x again, differently", "refused x again, differently", "peer b broke the link protocol: an unexpected pong on an inbound link"]);
});
