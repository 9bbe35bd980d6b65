/**
 * @module Tests for a Workbench step's process when it cannot do its work: the step is reported as
 * failed with one line saying why, not with the stack of the process that ran it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { generateKeyPair, saveKeyFile } from "../../shared/identity/index.ts";
import { runNodeChild } from "../../shared/node-child.ts";
import { freePort } from "../../test/helpers/ports.ts";
import { describeStep } from "../commands/workbench.ts";
import { stepReport } from "./step-report.ts";

const stepScript = fileURLToPath(new URL("./step.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "charter-workbench-step-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const heading = { step: 1, action: "Pay", subject: "o-1", signer: "alice" };
const command = { tenant: "workbench", namespace: "acme.shipping", action: "Pay", subject: "o-1", args: {} };

async function runStep(input: unknown) {
  const outcome = await runNodeChild(stepScript, { input: JSON.stringify(input), timeoutMs: 30_000, nodeOptions: ["--disable-warning=ExperimentalWarning"] });
  return stepReport(heading, outcome, 30_000);
}

describe("a Workbench step's process", () => {
  it("that cannot reach the node reports a failure in one line", async () => {
    const keyFile = join(dir, "alice.jwk");
    const saved = await saveKeyFile(keyFile, generateKeyPair());
    assert.ok(saved.ok);
    const port = await freePort("127.0.0.1"); // nothing listens there
    const report = await runStep({ url: `http://127.0.0.1:${port}`, keyFile, command });
    assert.equal(report.outcome, "failed");
    assert.equal(report.error, `the step's process exited with code 1: fetch failed (connect ECONNREFUSED 127.0.0.1:${port})`);
    assert.equal(describeStep(report), `1. Pay o-1 by alice (pid ${report.pid}): failed — ${report.error}`);
  });

  it("whose signer's key is missing says so in one line", async () => {
    const report = await runStep({ url: "http://127.0.0.1:1", keyFile: join(dir, "nobody.jwk"), command });
    assert.equal(report.outcome, "failed");
    assert.match(report.error ?? "", /^the step's process exited with code 1: cannot load the signer's key: [^\n]+$/);
  });
});
