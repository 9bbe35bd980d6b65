import assert from "node:assert/strict";
import { test } from "node:test";
import { hostCheck } from "./host-check.ts";

test("issue 16 #14: the node answers for IP literals, localhost, its machine name and allowed names only", () => {
  const own = hostCheck(["charter.example.org"], "homebox");
  for (const host of ["127.0.0.1:8787", "127.0.0.1", "[::1]:8787", "192.168.1.20:8787", "localhost:8787", "LOCALHOST", "app.localhost:8787", "localhost.:8787", "homebox:8787", "homebox.local", "charter.example.org", undefined]) {
    assert.equal(own(host), true, String(host));
  }
  for (const host of ["attacker.example:8787", "evil.com", "127.0.0.1.nip.io:8787", "localhost.evil.com", "[::1", "a:b:c", "homebox.evil"]) {
    assert.equal(own(host), false, host);
  }
});
