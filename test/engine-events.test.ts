/** Issue 4: every commit is announced on the engine's stream — to the channels that watch it, only. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { connectChannel } from "../shared/channel/socket.ts";
import type { EngineNotices, EngineRequests } from "../shared/protocol/engine.ts";
import type { KeyPair, Receipt } from "../shared/identity/index.ts";
import { cleanup, sleep, startCharter, stopCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";
import { act } from "./helpers/client.ts";
import { example, seed } from "./helpers/seed.ts";

test("commits reach watching channels, in order, and no others", async () => {
  const dataDir = tempDataDir();
  const s = await seed(dataDir, { contracts: [example("counter.charter.md")] });
  const c = await startCharter({ dataDir });
  try {
    const socket = join(dataDir, "run", "engine.sock");
    const watcher = await connectChannel<EngineRequests, Record<string, never>, Record<string, never>, EngineNotices>(socket);
    const bystander = await connectChannel<EngineRequests, Record<string, never>, Record<string, never>, EngineNotices>(socket);
    const seen: Receipt[] = [];
    const unasked: Receipt[] = [];
    watcher.onNotice("committed", ({ receipts }) => seen.push(...receipts));
    bystander.onNotice("committed", ({ receipts }) => unasked.push(...receipts));
    await watcher.request("watch-commits", { watch: true });
    const ada = s.members[0] as KeyPair;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await act(c.url, ada, { namespace: "acme.counter", action: "Increment", subject: "t" }));
    await waitFor("three commits announced", () => (seen.length === 3 ? true : undefined));
    assert.deepEqual(seen.map((r) => r.seq), answers.map((a) => a.body.receipt.seq));
    assert.deepEqual(seen.map((r) => r.state?.count), [1, 2, 3]);
    await watcher.request("watch-commits", { watch: false });
    await act(c.url, ada, { namespace: "acme.counter", action: "Increment", subject: "t" });
    await sleep(200);
    assert.equal(seen.length, 3, "no more notices after unwatching");
    assert.equal(unasked.length, 0, "a channel that never asked hears nothing");
    watcher.close();
    bystander.close();
  } finally {
    await stopCharter(c);
    cleanup(dataDir);
  }
});
