/**
 * @module What one gRPC call does: the same engine path and the same query path as REST
 * and GraphQL. The tenant comes as `charter-tenant` metadata, the namespace and method from the call's
 * path; the tenant's active contract decides which methods exist and what their messages are. An
 * action hands the request's signed command to `submit`, exactly as `POST …/actions/{Action}` does;
 * a query is dispatched, inside the gateway, to the REST query route with the call's
 * `authorization` metadata as its header. A refusal is a receipt (status OK), as on REST's 422.
 *
 * Problems become gRPC statuses (wire.md "REST description and gRPC"):
 *
 * | HTTP | gRPC |
 * |------|------|
 * | 400, 415 | INVALID_ARGUMENT (3) |
 * | 401 | UNAUTHENTICATED (16) |
 * | 403 | PERMISSION_DENIED (7) |
 * | 404 | NOT_FOUND (5); a method the tenant's contract lacks: UNIMPLEMENTED (12) |
 * | 409 | ALREADY_EXISTS (6) (an idempotency key used for another command) |
 * | 413, 429 | RESOURCE_EXHAUSTED (8) (grpc-js itself for a message over the body limit) |
 * | 422 (a query that failed; never a refusal) | FAILED_PRECONDITION (9) |
 * | 501 | UNIMPLEMENTED (12) |
 * | 503 | UNAVAILABLE (14) |
 * | other | INTERNAL (13) |
 *
 * The status's message is the problem's detail (and its field problems); the trailers carry
 * `charter-problem-type` and `charter-http-status`, and the whole problem document as JSON in
 * `charter-problem-bin`.
 */
import { Metadata, type sendUnaryData, type ServerUnaryCall } from "@grpc/grpc-js";
import type { Hono } from "hono";
import type { Logger } from "../../../shared/log.ts";
import { HttpProblem, type Problem, problem } from "../../../shared/problem.ts";
import { receiptOf } from "../../../shared/identity/index.ts";
import { type CommandRouteDeps, submit } from "../routes/commands.ts";
import type { DescribedContract, DescribedContracts } from "./described-contracts.ts";
import { decodeRequest, encodeResponse, type GrpcCodec, grpcCodec, MessageError } from "./grpc-codec.ts";

/** gRPC status codes (fixed by the gRPC protocol). */
export const Status = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** The gRPC status of an HTTP problem status. */
export function grpcStatus(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
    case 415:
      return Status.INVALID_ARGUMENT;
    case 401:
      return Status.UNAUTHENTICATED;
    case 403:
      return Status.PERMISSION_DENIED;
    case 404:
      return Status.NOT_FOUND;
    case 409:
      return Status.ALREADY_EXISTS;
    case 413:
    case 429:
      return Status.RESOURCE_EXHAUSTED;
    case 422:
      return Status.FAILED_PRECONDITION;
    case 405:
    case 501:
      return Status.UNIMPLEMENTED;
    case 503:
      return Status.UNAVAILABLE;
    default:
      return Status.INTERNAL;
  }
}

/** A call that ends with a status other than OK. */
export class CallError extends Error {
  readonly code: number;
  readonly problem: Problem;
  constructor(code: number, p: Problem) {
    const fields = (p.errors ?? []) as { pointer?: string; detail?: string }[];
    super(fields.length === 0 ? p.detail : `${p.detail} (${fields.map((f) => `${f.pointer ?? ""} ${f.detail ?? ""}`.trim()).join("; ")})`);
    this.code = code;
    this.problem = p;
  }

  static of(p: Problem): CallError {
    return new CallError(grpcStatus(p.status), p);
  }
}

/** What a call needs of the gateway. */
export interface CallDeps extends CommandRouteDeps {
  /** The gateway's HTTP app: queries are dispatched to its REST route in-process. */
  readonly app: Hono;
  readonly contracts: DescribedContracts;
}

/** What the caller sent: the raw request and the metadata that matters. */
export interface Call {
  readonly path: string;
  /** The namespace whose service `path` names. */
  readonly namespace: string;
  readonly request: Uint8Array;
  readonly tenant: string | undefined;
  readonly authorization: string | undefined;
}

/** Codecs kept at most; building one again is cheap, so the cache is simply cleared. */
const MAX_CODECS = 64;

/** The namespace of a method path `/charter.<namespace>.<Service>/<Method>`, or undefined. */
export function namespaceOf(path: string): string | undefined {
  return /^\/charter\.(.+)\.[^./]+\/[^/]+$/.exec(path)?.[1];
}

const segment = encodeURIComponent;

export class GrpcCalls {
  readonly #deps: CallDeps;
  readonly #codecs = new Map<string, GrpcCodec>();

  constructor(deps: CallDeps) {
    this.#deps = deps;
  }

  /** The codec of `contract`'s artifact, built once. */
  codec(contract: Pick<DescribedContract, "artifact" | "schema" | "described">): GrpcCodec {
    let codec = this.#codecs.get(contract.artifact);
    if (codec === undefined) {
      codec = grpcCodec(contract.artifact, contract.schema, contract.described);
      if (this.#codecs.size >= MAX_CODECS) this.#codecs.clear();
      this.#codecs.set(contract.artifact, codec);
    }
    return codec;
  }

  /** Answers one call with the encoded response; throws CallError for any other status. */
  async answer(call: Call): Promise<Buffer> {
    const { tenant, namespace } = call;
    if (tenant === undefined || tenant === "") throw CallError.of(problem(400, "missing-tenant", "send the tenant's handle as the metadata 'charter-tenant'"));
    let contract: DescribedContract;
    try {
      contract = this.#deps.contracts.active(tenant, namespace);
    } catch (error) {
      if (error instanceof HttpProblem) throw CallError.of(error.problem);
      throw error;
    }
    const codec = this.codec(contract);
    const method = codec.methods.get(call.path);
    if (method === undefined) {
      throw new CallError(Status.UNIMPLEMENTED, problem(404, "not-found", `${namespace} ${codec.version}, as installed for '${tenant}', has no method ${call.path}`));
    }
    let body: Record<string, unknown>;
    try {
      body = decodeRequest(method.request, call.request);
    } catch (error) {
      if (error instanceof MessageError) throw CallError.of(problem(400, "malformed-message", error.message));
      throw error;
    }

    if (method.kind === "action") {
      const command = body.command;
      if (typeof command !== "string" || command === "") {
        throw CallError.of(problem(400, "malformed-body", "the request's command is missing: send the signed command (a compact JWS) as CommandBody.command"));
      }
      const answer = await submit(this.#deps, command, tenant, namespace, method.operation);
      if (answer.kind === "problem") throw CallError.of(answer.problem);
      return encodeResponse(method.response, { receipt: receiptOf(answer.jws), jws: answer.jws, replayed: answer.replayed });
    }

    const headers: Record<string, string> = { "content-type": "application/json" };
    if (call.authorization !== undefined) headers.authorization = call.authorization;
    const response = await this.#deps.app.request(`/v1/${segment(tenant)}/${segment(namespace)}/queries/${segment(method.operation)}`, {
      method: "POST",
      headers,
      body: JSON.stringify({ params: body.params ?? {} }),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200) throw CallError.of(answer as unknown as Problem);
    return encodeResponse(method.response, answer);
  }
}

const first = (metadata: Metadata, key: string) => {
  const value = metadata.get(key)[0];
  return value === undefined ? undefined : String(value);
};

/** The grpc-js unary handler of method `path` (raw bytes in and out; `calls` decodes and encodes). */
export function unaryHandler(calls: GrpcCalls, path: string, namespace: string, log: Logger) {
  return function handle(call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void {
    calls.answer({ path, namespace, request: call.request, tenant: first(call.metadata, "charter-tenant"), authorization: first(call.metadata, "authorization") }).then(
      (response) => callback(null, response),
      (error: unknown) => {
        const trailers = new Metadata();
        if (error instanceof CallError) {
          trailers.set("charter-problem-type", error.problem.type);
          trailers.set("charter-http-status", String(error.problem.status));
          trailers.set("charter-problem-bin", Buffer.from(JSON.stringify(error.problem)));
          callback({ code: error.code, details: error.message, metadata: trailers });
          return;
        }
        log.error("grpc call failed", { path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
        callback({ code: Status.INTERNAL, details: "the server failed to answer this call; the failure was logged", metadata: trailers });
      },
    );
  };
}
