/**
 * @module One Workbench step, run in a process of its own: reads `{url, keyFile, command}` on stdin,
 * signs the command with that key, posts it to the throwaway node, and prints
 * `{pid, status, body}` on stdout.
 */
import { randomUUID } from "node:crypto";
import { loadKeyFile, signCommand } from "../../shared/identity/index.ts";

interface StepInput {
  readonly url: string;
  readonly keyFile: string;
  readonly command: { tenant: string; namespace: string; action: string; subject: string; args: Record<string, unknown> };
}

let text = "";
for await (const chunk of process.stdin) text += chunk;
const input = JSON.parse(text) as StepInput;
const key = await loadKeyFile(input.keyFile);
if (!key.ok) throw new Error(key.error.message);
const jws = signCommand(key.value, { ...input.command, idempotencyKey: randomUUID(), issuedAt: new Date().toISOString() });
const { tenant, namespace, action } = input.command;
const response = await fetch(`${input.url}/v1/${tenant}/${namespace}/actions/${action}`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ command: jws }),
});
process.stdout.write(JSON.stringify({ pid: process.pid, status: response.status, body: await response.json() }));
