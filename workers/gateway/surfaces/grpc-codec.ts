/**
 * @module The gRPC methods of one artifact, and how their messages map to the REST bodies. The
 * `api.proto` that `charter describe` writes is parsed here with protobufjs (field names kept as
 * written), so the server speaks exactly the proto its clients are generated from. A request is
 * checked field by field for the wire type its proto declares before it is decoded (protobufjs
 * alone would read a string where an int64 was sent as garbage), then becomes the JSON the REST
 * route takes: enum constants lose their `<Enum>_` prefix, `<Enum>_UNSPECIFIED` and absent
 * fields take proto3's defaults. An answer goes the other way: REST members by the proto's field
 * name (the fixed snake_case fields by their camelCase JSON name), nulls left out.
 */
import protobuf from "protobufjs";
import type { Described } from "../../../contracts/describe/names.ts";
import { protoFile, rpcName } from "../../../contracts/describe/proto.ts";
import type { Schema } from "../../../contracts/schema.ts";

/** One unary method: which action or query it runs, and its message types. */
export interface GrpcMethod {
  readonly path: string;
  readonly kind: "action" | "query";
  /** The action's or query's name in the contract (a query's method may be `<Name>Query`). */
  readonly operation: string;
  readonly request: protobuf.Type;
  readonly response: protobuf.Type;
}

export interface GrpcCodec {
  readonly artifact: string;
  readonly namespace: string;
  readonly version: string;
  /** Method path (`/charter.<ns>.<Service>/<Method>`) → method. */
  readonly methods: ReadonlyMap<string, GrpcMethod>;
}

/** A request that is not a valid message of its type: answered INVALID_ARGUMENT. */
export class MessageError extends Error {}

/** The methods of `schema`'s api.proto. */
export function grpcCodec(artifact: string, schema: Schema, described: Described): GrpcCodec {
  const { root } = protobuf.parse(protoFile(schema), { keepCase: true });
  root.resolveAll();
  const serviceName = `charter.${schema.namespace}.${described.service}`;
  const service = root.lookupService(serviceName);
  const methods = new Map<string, GrpcMethod>();
  for (const method of service.methodsArray) {
    const action = described.actions.find((a) => a.name === method.name);
    const query = described.queries.find((q) => rpcName(described, q.name) === method.name);
    const kind = action !== undefined && method.requestType === "CommandBody" ? "action" : "query";
    const operation = kind === "action" ? (action?.name as string) : (query?.name as string);
    const path = `/${serviceName}/${method.name}`;
    methods.set(path, { path, kind, operation, request: root.lookupType(method.resolvedRequestType?.fullName ?? method.requestType), response: root.lookupType(method.resolvedResponseType?.fullName ?? method.responseType) });
  }
  return { artifact, namespace: schema.namespace, version: schema.version, methods };
}

/** The protobuf wire types: varint, 64-bit, length-delimited, 32-bit. */
const VARINT = 0;
const LENGTH_DELIMITED = 2;
const WIRE_NAMES = ["varint", "64-bit", "length-delimited", "start-group", "end-group", "32-bit"];

/** Throws a MessageError naming the first field whose wire type its proto does not declare. */
function checkWireTypes(type: protobuf.Type, bytes: Uint8Array, at: string): void {
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const id = tag >>> 3;
    const wire = tag & 7;
    const field = type.fieldsById[id];
    if (field !== undefined) {
      const resolved = field.resolve().resolvedType;
      const expected = resolved instanceof protobuf.Type ? LENGTH_DELIMITED : resolved instanceof protobuf.Enum ? VARINT : (protobuf.types.basic as Record<string, number | undefined>)[field.type] ?? LENGTH_DELIMITED;
      const packed = field.repeated && expected !== LENGTH_DELIMITED && wire === LENGTH_DELIMITED;
      if (wire !== expected && !packed) {
        throw new MessageError(`field ${at}${field.name} is ${field.repeated ? "repeated " : ""}${field.type}, but the message carries a ${WIRE_NAMES[wire] ?? `wire type ${wire}`} value there`);
      }
      if (resolved instanceof protobuf.Type) {
        checkWireTypes(resolved, reader.bytes(), `${at}${field.name}.`);
        continue;
      }
    }
    reader.skipType(wire);
  }
}

/** The enum value a constant stands for: `OrderStatus_Shipped` → `Shipped`; the zero constant → undefined. */
function enumValue(e: protobuf.Enum, constant: unknown): string | undefined {
  if (typeof constant !== "string" || e.values[constant] === 0 || e.values[constant] === undefined) return undefined;
  return constant.startsWith(`${e.name}_`) ? constant.slice(e.name.length + 1) : constant;
}

/** A decoded message as REST JSON. */
function toRest(type: protobuf.Type, message: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    const resolved = field.resolve().resolvedType;
    if (resolved instanceof protobuf.Type) {
      const nested = (m: unknown) => toRest(resolved, (m ?? resolved.toObject(resolved.create(), { defaults: true, arrays: true, longs: String, enums: String })) as Record<string, unknown>);
      out[field.name] = field.repeated ? (value as unknown[]).map(nested) : nested(value);
    } else if (resolved instanceof protobuf.Enum) {
      if (field.repeated) out[field.name] = (value as unknown[]).map((v) => enumValue(resolved, v) ?? null);
      else {
        const v = enumValue(resolved, value);
        if (v !== undefined) out[field.name] = v;
      }
    } else if (value !== undefined && value !== null) {
      out[field.name] = value;
    }
  }
  return out;
}

/** Decodes a request as the JSON body its REST route takes; throws MessageError when it is not one. */
export function decodeRequest(type: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  let message: protobuf.Message;
  try {
    checkWireTypes(type, bytes, "");
    message = type.decode(bytes);
  } catch (error) {
    if (error instanceof MessageError) throw new MessageError(`not a valid ${type.name}: ${error.message}`);
    throw new MessageError(`not a valid ${type.name} message (${(error as Error).message})`);
  }
  return toRest(type, type.toObject(message, { defaults: true, arrays: true, longs: String, enums: String }) as Record<string, unknown>);
}

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** REST JSON as the plain object protobufjs encodes. */
function fromRest(type: protobuf.Type, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    let v = value[field.name];
    if (v === undefined) v = value[camel(field.name)];
    if (v === undefined || v === null) continue;
    const resolved = field.resolve().resolvedType;
    const one = (x: unknown): unknown => {
      if (resolved instanceof protobuf.Type) return fromRest(resolved, x as Record<string, unknown>);
      if (resolved instanceof protobuf.Enum) return `${resolved.name}_${String(x)}`;
      return x;
    };
    out[field.name] = field.repeated ? (v as unknown[]).map(one) : one(v);
  }
  return out;
}

/** Encodes a REST answer (a command result, or a query's rows) as the method's response. */
export function encodeResponse(type: protobuf.Type, body: Record<string, unknown>): Buffer {
  return Buffer.from(type.encode(type.fromObject(fromRest(type, body))).finish());
}
