/**
 * @module The OpenAPI 3.1 description of a contract's `/v1` surface (wire.md), generated from its
 * compiled schema: one POST per exposed action (a signed command in, a receipt out) and per exposed
 * query (parameters in, rows out), every request and response typed, errors as problem documents.
 * The same schema always gives the same bytes: `charter describe` writes this text and the gateway
 * serves it at `GET /v1/{tenant}/{namespace}/openapi.json`.
 */
import type { Schema, SchemaAuthorize } from "../schema.ts";
import { type DescribedAction, type DescribedAggregate, type DescribedQuery, type Described, describe } from "./names.ts";
import { fixedSchemas, type JsonSchema, objectSchema, ref } from "./openapi-types.ts";

const TENANT_PARAMETER = { $ref: "#/components/parameters/tenant" };
const problem = (description: string) => ({ description, content: { "application/problem+json": { schema: ref("Problem") } } });

const ACTION_ERRORS = {
  "400": problem("Not a command: malformed JSON, a bad signature, a stale issuedAt, arguments of the wrong type or missing"),
  "403": problem("The signer may not act in this tenant"),
  "404": problem("No such tenant, namespace or action"),
  "409": problem("The idempotency key was already used for a different command"),
  "413": problem("The body is over the size limit"),
  "415": problem("Not application/json or application/jose"),
  "429": problem("Too many requests"),
  "503": problem("The engine is restarting; send the same command again"),
};

function queryErrors(authenticated: boolean): Record<string, unknown> {
  return {
    "400": problem("Malformed JSON, or parameters of the wrong type, missing or unknown"),
    ...(authenticated ? { "401": problem("No valid bearer token"), "403": problem("The caller is not known to the tenant") } : {}),
    "404": problem("No such tenant, namespace or query"),
    "413": problem("The body is over the size limit"),
    "415": problem("Not application/json"),
    "422": problem("The query cannot be answered on the stored data (an arithmetic failure)"),
    "503": problem("The store cannot be read yet"),
  };
}

function actionOperation(d: Described, a: DescribedAction, agg: DescribedAggregate): unknown {
  const result = { "application/json": { schema: ref(agg.names.result) } };
  const replayed = { "Idempotent-Replayed": { description: "present (true) when this is the original receipt of a command sent before", schema: { type: "string", enum: ["true"] } } };
  return {
    operationId: `action${a.name}`,
    summary: `${a.action.aggregate}.${a.name}`,
    description: `Runs ${a.action.aggregate}.${a.name} (authorize ${authorizeText(a.action.authorize)}). The body is a command signed by the caller, whose payload is ${a.names.payload}; the signature is the authentication.`,
    tags: ["actions"],
    parameters: [TENANT_PARAMETER],
    requestBody: {
      required: true,
      content: {
        "application/json": { schema: ref("CommandBody") },
        "application/jose": { schema: { type: "string", description: "the compact JWS itself" } },
      },
    },
    responses: {
      "200": { description: "Accepted: the signed receipt", headers: replayed, content: result },
      "422": { description: "Refused: the signed receipt, with the reason", headers: replayed, content: result },
      ...ACTION_ERRORS,
    },
    "x-charter-exposure": a.action.exposure,
    "x-charter-namespace": d.namespace,
  };
}

function queryOperation(d: Described, q: DescribedQuery): unknown {
  const authenticated = q.exposure === "authenticated";
  return {
    operationId: `query${q.name}`,
    summary: q.name,
    description: authenticated ? "Answers rows to a caller the tenant knows (owner, member or delegate), identified by a bearer token." : "Answers rows to anyone.",
    tags: ["queries"],
    parameters: [TENANT_PARAMETER],
    security: authenticated ? [{ bearer: [] }] : [],
    requestBody: { required: q.params.length > 0, content: { "application/json": { schema: ref(q.names.request) } } },
    responses: { "200": { description: "The rows", content: { "application/json": { schema: ref(q.names.result) } } }, ...queryErrors(authenticated) },
    "x-charter-exposure": q.exposure,
    "x-charter-namespace": d.namespace,
  };
}

function payloadSchema(d: Described, a: DescribedAction): JsonSchema {
  return {
    type: "object",
    description: `The payload of a signed ${a.name} command (the JWS payload; not sent as JSON on its own).`,
    required: ["tenant", "namespace", "action", "subject", "args", "idempotencyKey", "issuedAt"],
    properties: {
      tenant: { type: "string", pattern: "^[a-z0-9-]{2,63}$", description: "must equal the path's tenant" },
      namespace: { type: "string", const: d.namespace },
      action: { type: "string", const: a.name },
      subject: ref("Subject"),
      args: ref(a.names.args),
      idempotencyKey: { type: "string", minLength: 1, maxLength: 128 },
      issuedAt: { type: "string", format: "date-time", description: "within 5 minutes of the node's clock" },
    },
    additionalProperties: false,
  };
}

function receiptSchema(d: Described, agg: DescribedAggregate): JsonSchema {
  const fields = ["id", "command", "seq", "tenant", "namespace", "action", "subject", "signer", "artifact", "outcome", "reason", "state", "committedAt", "node"];
  const actions = d.actions.filter((a) => a.action.aggregate === agg.name).map((a) => a.name);
  return {
    type: "object",
    description: `A receipt of a command on ${agg.name}, accepted or refused, signed by the node.`,
    required: fields,
    properties: {
      id: { type: "string" },
      command: { type: "string", pattern: "^[0-9a-f]{64}$", description: "SHA-256 hex of the command's JWS" },
      seq: { type: "integer", minimum: 1 },
      tenant: { type: "string" },
      namespace: { type: "string" },
      action: { type: "string", enum: actions },
      subject: ref("Subject"),
      signer: ref("DidKey"),
      artifact: { type: "string" },
      outcome: ref("Outcome"),
      reason: { oneOf: [ref("Refusal"), { type: "null" }] },
      state: { oneOf: [ref(agg.names.state), { type: "null" }] },
      committedAt: { type: "string", format: "date-time" },
      node: ref("DidKey"),
    },
  };
}

/** The components of `d`, in a fixed order: fixed shapes, enums, aggregates, actions, queries. */
function componentSchemas(d: Described): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = fixedSchemas();
  for (const [name, values] of d.enums) schemas[name] = { type: "string", enum: [...values] };
  for (const agg of d.aggregates) {
    schemas[agg.names.state] = { ...objectSchema(agg.state, d, { closed: false, orNull: true }), description: `The public fields of ${agg.name}` };
    schemas[agg.names.receipt] = receiptSchema(d, agg);
    schemas[agg.names.result] = { type: "object", required: ["receipt", "jws"], properties: { receipt: ref(agg.names.receipt), jws: { type: "string", description: "the same receipt as a compact JWS signed by the node (typ charter-receipt+jws)" } } };
  }
  for (const a of d.actions) {
    schemas[a.names.args] = objectSchema(a.action.params, d, { closed: true, orNull: false });
    schemas[a.names.payload] = payloadSchema(d, a);
  }
  for (const q of d.queries) {
    schemas[q.names.params] = objectSchema(q.params, d, { closed: true, orNull: false });
    schemas[q.names.request] = { type: "object", ...(q.params.length > 0 ? { required: ["params"] } : {}), properties: { params: ref(q.names.params) }, additionalProperties: false };
    schemas[q.names.row] = objectSchema(q.row, d, { closed: false, orNull: true });
    schemas[q.names.result] = { type: "object", required: ["rows", "artifact"], properties: { rows: { type: "array", items: ref(q.names.row) }, artifact: { type: "string" } } };
  }
  return schemas;
}

/** The OpenAPI 3.1 document of `schema`, as an object. */
export function openapiDocument(schema: Schema): Record<string, unknown> {
  const d = describe(schema);
  const paths: Record<string, unknown> = {};
  for (const a of d.actions) {
    const agg = d.aggregates.find((g) => g.name === a.action.aggregate) as DescribedAggregate;
    paths[`/v1/{tenant}/${d.namespace}/actions/${a.name}`] = { post: actionOperation(d, a, agg) };
  }
  for (const q of d.queries) paths[`/v1/{tenant}/${d.namespace}/queries/${q.name}`] = { post: queryOperation(d, q) };
  return {
    openapi: "3.1.0",
    info: { title: d.namespace, version: d.version, description: `The generated API of contract ${d.namespace} ${d.version}.` },
    tags: [{ name: "actions", description: "Signed commands" }, { name: "queries", description: "Reads" }],
    paths,
    components: {
      schemas: componentSchemas(d),
      parameters: { tenant: { name: "tenant", in: "path", required: true, description: "the tenant's handle", schema: { type: "string", pattern: "^[a-z0-9-]{2,63}$" } } },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: `A self-signed EdDSA JWT: iss = the caller's did:key, aud = "{tenant}/${d.namespace}", iat, exp at most 5 minutes later.` },
      },
    },
  };
}

/** The OpenAPI document of `schema` as the file `describe` writes. */
export function openapiJson(schema: Schema): string {
  return `${JSON.stringify(openapiDocument(schema), null, 2)}\n`;
}

/** An action's authorize clause as written in the contract. */
function authorizeText(auth: SchemaAuthorize): string {
  switch (auth.mode) {
    case "delegate":
      return `delegate ${auth.scope}`;
    case "field":
      return `state.${auth.field}`;
    default:
      return auth.mode;
  }
}
