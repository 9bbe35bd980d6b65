/**
 * @module A test client of the `/v1` command API: signs commands as a given identity and posts
 * them, returning status, headers and the parsed body.
 */
import { randomUUID } from "node:crypto";
import { type KeyPair, signCommand } from "../../shared/identity/index.ts";

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

export async function post(url: string, body: string, contentType = "application/json"): Promise<Answer> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": contentType }, body });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Leave non-JSON bodies as text.
  }
  return { status: r.status, headers: r.headers, body: parsed };
}

export interface CommandInput {
  readonly tenant?: string;
  readonly namespace: string;
  readonly action: string;
  readonly subject: string;
  readonly args?: Record<string, unknown>;
  readonly idempotencyKey?: string;
  readonly issuedAt?: string;
}

/** A signed command's JWS. */
export function signed(signer: KeyPair, c: CommandInput): string {
  return signCommand(signer, {
    tenant: c.tenant ?? "acme",
    namespace: c.namespace,
    action: c.action,
    subject: c.subject,
    args: c.args ?? {},
    idempotencyKey: c.idempotencyKey ?? randomUUID(),
    issuedAt: c.issuedAt ?? new Date().toISOString(),
  });
}

/** Signs and submits a command to its own path. */
export function act(base: string, signer: KeyPair, c: CommandInput): Promise<Answer> {
  return post(`${base}/v1/${c.tenant ?? "acme"}/${c.namespace}/actions/${c.action}`, JSON.stringify({ command: signed(signer, c) }));
}
