/**
 * The engine's preview with three voters: asked of any voter (here through a voter's own engine
 * channel, as its gateway asks), it is answered by the leader on a state that holds every write
 * already acknowledged, and it never enters the log — no voter's log, applied index or store moves.
 */
import assert from "node:assert/strict";
import { hash } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Channel } from "../shared/channel/channel.ts";
import { connectChannel } from "../shared/channel/socket.ts";
import { generateKeyPair, type KeyPair, signCommand } from "../shared/identity/index.ts";
import type { EngineRequests, PreviewAnswer, SubmittedCommand } from "../shared/protocol/engine.ts";
import { Cluster, sendUntilReceipt, storeDigest } from "./helpers/cluster.ts";
import { waitFor } from "./helpers/charter-process.ts";

const owner = generateKeyPair();
const stranger = generateKeyPair();
let made = 0;

/** A signed command as the gateway hands it to the engine. */
function submitted(key: KeyPair, action: string, subject: string, args: Record<string, unknown> = {}): SubmittedCommand {
  const payload = { tenant: "acme", namespace: "acme.counter", action, subject, args, idempotencyKey: `preview-test-${++made}`, issuedAt: new Date().toISOString() };
  const jws = signCommand(key, payload);
  return { jws, digest: hash("sha256", jws, "hex"), signer: key.did, payload };
}

const outcome = (a: PreviewAnswer) => (a.kind === "problem" ? `problem ${a.problem.status} ${a.problem.code}` : a.outcome === "accepted" ? `accepted ${String(a.state.count)}` : `refused ${a.reason.code}`);

describe("preview on a replicated engine", () => {
  let cluster: Cluster;
  const channels = new Map<string, Channel<EngineRequests, Record<string, never>>>();

  before(async () => {
    cluster = await Cluster.start({ proxies: true });
    await cluster.leader();
    await cluster.cli(["tenant", "create", "acme", "--owner", owner.did, "--data", cluster.voter("b").dataDir]);
    await cluster.cli(["install", new URL("../contracts/examples/counter.charter.md", import.meta.url).pathname, "--tenant", "acme", "--data", cluster.voter("c").dataDir]);
    for (const v of cluster.voters) channels.set(v.id, await connectChannel<EngineRequests, Record<string, never>>(join(v.dataDir, "run", "engine.sock")));
  });
  after(async () => {
    for (const c of channels.values()) c.close();
    await cluster?.stop();
  });

  const preview = (voter: string, command: SubmittedCommand) => (channels.get(voter) as Channel<EngineRequests, Record<string, never>>).request("preview", command);

  it("answers on every voter from the leader's state, with every acknowledged write in it", async () => {
    const [first, second] = await cluster.followers();
    const leader = await cluster.leader();
    assert.ok(first !== undefined && second !== undefined);
    const sent = await sendUntilReceipt(cluster, "/v1/acme/acme.counter/actions/Increment", submitted(owner, "Increment", "t-1").jws, { only: [first] });
    assert.equal(sent.receipt?.outcome, "accepted", JSON.stringify(sent));
    // Acknowledged by one follower, previewed at once through the other: the count it saw is there.
    for (const voter of [second, leader, first]) assert.equal(outcome(await preview(voter, submitted(owner, "Increment", "t-1"))), "accepted 2", voter);
  });

  it("never enters the log: no voter's log, applied index or store moves", async () => {
    const index = await cluster.converged();
    const stores = cluster.voters.map((v) => JSON.stringify(storeDigest(v.dataDir)));
    const answers: string[] = [];
    for (const v of cluster.voters) {
      answers.push(outcome(await preview(v.id, submitted(owner, "Increment", "t-1"))));
      answers.push(outcome(await preview(v.id, submitted(owner, "Start", "t-2", { label: "" }))));
      answers.push(outcome(await preview(v.id, submitted(stranger, "Increment", "t-1"))));
      answers.push(outcome(await preview(v.id, submitted(owner, "Fly", "t-1"))));
    }
    assert.deepEqual(answers, cluster.voters.flatMap(() => ["accepted 2", "refused condition_failed", "problem 403 unknown-caller", "problem 404 unknown-action"]));
    for (const [id, s] of await cluster.statuses()) {
      assert.ok(s !== null, id);
      assert.deepEqual([s.lastIndex, s.commitIndex, s.appliedIndex], [index, index, index], `voter ${id}'s log did not grow`);
    }
    assert.deepEqual(cluster.voters.map((v) => JSON.stringify(storeDigest(v.dataDir))), stores, "no store changed");
  });

  it("is not answered by a voter cut off from the leader, though its own store could", async () => {
    const [cut] = await cluster.followers();
    assert.ok(cut !== undefined);
    cluster.isolate(cut);
    try {
      const answer = await preview(cut, submitted(owner, "Increment", "t-1"));
      assert.ok(answer.kind === "problem" && answer.problem.status === 503, JSON.stringify(answer));
    } finally {
      cluster.heal();
    }
    await cluster.converged();
    // Its link to the leader comes back on its own schedule (reconnecting with a back-off): until
    // then a preview is still refused with 503, never answered from its own store.
    const again = await waitFor("a preview answered again once the voter hears from the leader", async () => {
      const answer = outcome(await preview(cut, submitted(owner, "Increment", "t-1")));
      if (answer === "problem 503 forward-failed") return undefined;
      return answer;
    }, 15_000);
    assert.equal(again, "accepted 2", "and is again once it hears from the leader");
  });
});
