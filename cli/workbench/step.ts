/**
 * @module One Workbench step, run in a process of its own: reads `{url, keyFile, command}` on stdin,
 * signs the command with that key, posts it to the throwaway node, and prints
 * `{pid, status, body}` on stdout. When it cannot, it says why in one line on stderr and exits 1.
 */
import { randomUUID } from "node:crypto";
import { loadKeyFile, signCommand } from "../../shared/identity/index.ts";

interface StepInput {
  readonly url: string;
  readonly keyFile: string;
  readonly command: { tenant: string; namespace: string; action: string; subject: string; args: Record<string, unknown> };
}

async function step(): Promise<{ status: number; body: unknown }> {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  const input = JSON.parse(text) as StepInput;
  const key = await loadKeyFile(input.keyFile);
  if (!key.ok) throw new Error(`cannot load the signer's key: ${key.error.message}`);
  const jws = signCommand(key.value, { ...input.command, idempotencyKey: randomUUID(), issuedAt: new Date().toISOString() });
  const { tenant, namespace, action } = input.command;
  const response = await fetch(`${input.url}/v1/${tenant}/${namespace}/actions/${action}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ command: jws }),
  });
  return { status: response.status, body: await response.json() };
}

/** An error's message with its cause's (a failed fetch says why only in its cause). */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${message}${cause}`.replace(/\s*\n\s*/g, " ");
}

try {
  const { status, body } = await step();
  process.stdout.write(JSON.stringify({ pid: process.pid, status, body }));
} catch (error) {
  process.stderr.write(`${oneLine(error)}\n`);
  process.exitCode = 1;
}
