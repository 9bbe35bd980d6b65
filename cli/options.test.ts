import assert from "node:assert/strict";
import { test } from "node:test";
import { generateKeyPair } from "../shared/identity/index.ts";
import { parseTreeOptions, UsageError } from "./options.ts";

const [a, b, c] = [generateKeyPair().did, generateKeyPair().did, generateKeyPair().did];
const peers = `a=${a}@127.0.0.1:8790,b=${b}@127.0.0.1:8791,c=${c}@127.0.0.1:8792`;

test("no --peers is one voter", () => {
  assert.equal(parseTreeOptions([]).cluster, undefined);
});

test("--voter-id with --peers names three voters, and --peer-listen where this one listens", () => {
  const o = parseTreeOptions(["--voter-id", "b", "--peers", peers, "--peer-listen", "0.0.0.0:9000"]);
  assert.equal(o.cluster?.voterId, "b");
  assert.deepEqual(
    o.cluster?.voters.map((v) => [v.id, v.did, v.host, v.port]),
    [
      ["a", a, "127.0.0.1", 8790],
      ["b", b, "127.0.0.1", 8791],
      ["c", c, "127.0.0.1", 8792],
    ],
  );
  assert.deepEqual(o.cluster?.listen, { host: "0.0.0.0", port: 9000 });
});

test("a single voter listed alone is the one-voter engine", () => {
  assert.equal(parseTreeOptions(["--voter-id", "a", "--peers", `a=${a}@127.0.0.1:8790`]).cluster, undefined);
});

test("bad voter configurations are usage errors that say what is wrong", () => {
  const cases: [string[], RegExp][] = [
    [["--peers", peers], /--voter-id and --peers go together/],
    [["--voter-id", "a"], /--voter-id and --peers go together/],
    [["--voter-id", "d", "--peers", peers], /--voter-id d is not one of the --peers \(a, b, c\)/],
    [["--voter-id", "a", "--peers", `a=${a}@127.0.0.1:8790,b=${b}@127.0.0.1:8791`], /lists 2 voters; use an odd number/],
    [["--voter-id", "a", "--peers", `a=${a}@127.0.0.1:8790,b=did:key:nope@127.0.0.1:8791,c=${c}@127.0.0.1:8792`], /--peers entry 2/],
    [["--voter-id", "a", "--peers", `a=${a}@127.0.0.1:8790,a=${b}@127.0.0.1:8791,c=${c}@127.0.0.1:8792`], /listed twice/],
    [["--peer-listen", "0.0.0.0:9000"], /--peer-listen needs --voter-id and --peers/],
    [["--voter-id", "a", "--peers", peers, "--peer-listen", "nowhere"], /--peer-listen expects HOST:PORT/],
  ];
  for (const [args, message] of cases) {
    assert.throws(() => parseTreeOptions(args), (e: unknown) => e instanceof UsageError && message.test(e.message), args.join(" "));
  }
});

test("--restart-limit sets how many restarts of one worker within 60 s the tree survives (default 5)", () => {
  assert.equal(parseTreeOptions([]).restartLimit, 5);
  assert.equal(parseTreeOptions(["--restart-limit", "20"]).restartLimit, 20);
  assert.equal(parseTreeOptions(["--restart-limit", "0"]).restartLimit, 0);
  for (const bad of ["-1", "2.5", "many"]) {
    assert.throws(() => parseTreeOptions([`--restart-limit=${bad}`]), (e: unknown) => e instanceof UsageError && /--restart-limit expects a whole number/.test(e.message), bad);
  }
});

test("--origin: an http(s) origin with a host name, plain http only on localhost; its host is one the node answers for", () => {
  assert.equal(parseTreeOptions([]).origin, undefined);
  assert.equal(parseTreeOptions(["--origin", "http://localhost:8787"]).origin, "http://localhost:8787");
  const proxied = parseTreeOptions(["--origin", "https://Home.Example.org/"]);
  assert.equal(proxied.origin, "https://home.example.org");
  assert.deepEqual(proxied.gatewayLimits.allowedHosts, ["home.example.org"]);
  const cases: [string, RegExp][] = [
    ["http://127.0.0.1:8787", /not an IP address/],
    ["https://[::1]:8787", /not an IP address/],
    ["http://home.example.org", /must be https/],
    ["https://home.example.org/app", /no path/],
    ["ftp://localhost", /no path, query or user/],
    ["localhost:8787", /expects/],
  ];
  for (const [origin, message] of cases) {
    assert.throws(() => parseTreeOptions(["--origin", origin]), (e: unknown) => e instanceof UsageError && message.test(e.message), origin);
  }
});
