/**
 * @module A gRPC test client of a running node, generated the way a user would: `charter describe`
 * writes the contract's api.proto, @grpc/proto-loader loads it, grpc-js makes the client. Calls
 * resolve with the response or the status error, and read the node's gRPC address from
 * `/.well-known/charter.json`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { charterBin } from "./charter-process.ts";

export { grpc };

/** The proto-loader options a client of Charter would use: field names as written, int64 and enums as strings. */
export const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

/** `charter describe SOURCE --out DIR`'s api.proto for a contract's Markdown source, as text. */
export function describeProto(source: string): { dir: string; proto: string } {
  const dir = mkdtempSync(join(tmpdir(), "charter-grpc-"));
  writeFileSync(join(dir, "contract.charter.md"), source);
  execFileSync(process.execPath, [charterBin, "describe", join(dir, "contract.charter.md"), "--out", dir], { stdio: "pipe" });
  return { dir, proto: join(dir, "api.proto") };
}

export type Answer = { ok: true; value: any; trailers?: grpc.Metadata } | { ok: false; error: grpc.ServiceError };

export interface ServiceClient {
  readonly client: grpc.Client;
  /** Calls `method` with `request` as tenant `tenant` (and `authorization` when given). */
  call(method: string, request: unknown, options?: { tenant?: string | null; authorization?: string }): Promise<Answer>;
  close(): void;
}

/** A client of `service` (`charter.<ns>.<Service>`) from the proto file at `protoPath`, talking to `address`. */
export function serviceClient(protoPath: string, service: string, address: string): ServiceClient {
  const definition = protoLoader.loadSync(protoPath, LOADER_OPTIONS);
  const loaded = grpc.loadPackageDefinition(definition);
  let ctor: any = loaded;
  for (const part of service.split(".")) ctor = ctor?.[part];
  if (typeof ctor !== "function") throw new Error(`${service} is not in ${protoPath}`);
  const client = new ctor(address, grpc.credentials.createInsecure(), { "grpc.max_send_message_length": -1 }) as grpc.Client;
  return {
    client,
    call(method, request, options = {}) {
      const metadata = new grpc.Metadata();
      const tenant = options.tenant === undefined ? "acme" : options.tenant;
      if (tenant !== null) metadata.set("charter-tenant", tenant);
      if (options.authorization !== undefined) metadata.set("authorization", options.authorization);
      return new Promise((resolve) => {
        const fn = (client as any)[method];
        if (typeof fn !== "function") throw new Error(`no method ${method} on ${service}`);
        fn.call(client, request, metadata, { deadline: Date.now() + 10_000 }, (error: grpc.ServiceError | null, value: unknown) => resolve(error === null ? { ok: true, value } : { ok: false, error }));
      });
    },
    close: () => client.close(),
  };
}

/** The node's gRPC `HOST:PORT` from `/.well-known/charter.json` (null while it serves none). */
export async function grpcAddress(url: string): Promise<string | null> {
  const r = await fetch(`${url}/.well-known/charter.json`);
  return ((await r.json()) as { grpc: string | null }).grpc;
}

/** A receipt as proto-loader gives it, in REST's JSON shape: enum prefixes off, `ints` as numbers, absent `optional` fields as null. */
export function restReceipt(r: any, shape: { ints: readonly string[]; enums: readonly string[]; optional: readonly string[] }): any {
  const plain = (value: unknown, field: string): unknown => {
    if (value === undefined) return null;
    if (shape.ints.includes(field)) return Number(value);
    if (typeof value === "string") for (const e of shape.enums) if (value.startsWith(`${e}_`)) return value.slice(e.length + 1);
    return value;
  };
  const stateOf = (state: Record<string, unknown>) => {
    const entries: [string, unknown][] = Object.entries(state).filter(([k]) => !k.startsWith("_")); // proto-loader's oneof markers
    for (const k of shape.optional) if (!(k in state)) entries.push([k, null]);
    return Object.fromEntries(entries.map(([k, v]) => [k, plain(v, k)]));
  };
  return {
    ...r,
    outcome: String(r.outcome).replace(/^Outcome_/, ""),
    seq: Number(r.seq),
    reason: r.reason === null || r.reason === undefined ? null : { code: r.reason.code, condition: r.reason.condition ?? null, line: r.reason.line ?? null, message: r.reason.message },
    state: r.state === null || r.state === undefined ? null : stateOf(r.state),
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
