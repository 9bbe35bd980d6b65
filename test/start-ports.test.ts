/**
 * Issue 17 #2: a start is all or nothing. Two nodes with different --listen ports run side by side
 * on their default gRPC ports (the HTTP port + 2); a gRPC port that is taken fails the start before
 * its HTTP port answers anything.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanup, spawnCharter, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { freePort } from "./helpers/ports.ts";

test("issue 17 #2: two nodes with different --listen ports start side by side; a taken gRPC port fails the start with no 200 first", async () => {
  const [pa, pb] = [await freePort(), await freePort()];
  const a = await startCharter({ args: ["--listen", `127.0.0.1:${pa}`] });
  const b = await startCharter({ args: ["--listen", `127.0.0.1:${pb}`] });
  // Hold a's default gRPC port the way a running gRPC server would.
  const { createServer } = await import("node:net");
  const squatter = createServer();
  const grpcPort = await freePort();
  await new Promise<void>((r) => squatter.listen(grpcPort, "127.0.0.1", r));
  try {
    assert.equal((await fetch(`http://127.0.0.1:${pa}/health`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${pb}/health`)).status, 200);
    const pc = await freePort();
    const dataDir = tempDataDir();
    const third = spawnCharter(["serve", "--data", dataDir, "--listen", `127.0.0.1:${pc}`, "--grpc", `127.0.0.1:${grpcPort}`]);
    let answered = false;
    const poll = setInterval(() => {
      fetch(`http://127.0.0.1:${pc}/health`).then(() => (answered = true), () => {});
    }, 20);
    const exit = await third.exited;
    clearInterval(poll);
    cleanup(dataDir);
    assert.equal(exit.code, 1);
    assert.match(third.stderr, new RegExp(`gRPC port 127\\.0\\.0\\.1:${grpcPort} is in use`));
    assert.equal(answered, false, "the HTTP port never answered");
    assert.doesNotMatch(third.stdout, /listening on/);
  } finally {
    squatter.close();
    for (const n of [a, b]) {
      await stopCharter(n);
      cleanup(n.dataDir);
    }
  }
});
