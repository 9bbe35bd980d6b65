/**
 * @module `POST /v1/{tenant}/{namespace}/graphql` (wire.md "GraphQL"), GraphQL over HTTP: a JSON
 * body `{query, variables?, operationName?}` is checked for bracket nesting, parsed (token-limited),
 * checked for fragments and depth, validated against the namespace's active schema, checked for
 * cost, and only then executed (graphql-limits.ts). Every failure is a GraphQL response
 * `{"errors": [{message, extensions: {code}}]}`: 400 for a request that cannot run, 404 for an
 * unknown tenant or namespace (worded as the REST reads word it: precise only for the tenant's owners
 * and members), 200 once execution started (per-field errors).
 */
import { type DocumentNode, execute, getOperationAST, GraphQLError, parse, validate } from "graphql";
import type { Context, Hono } from "hono";
import type { Logger } from "../../../shared/log.ts";
import { HttpProblem } from "../../../shared/problem.ts";
import { bearerOf, missingInstall, notFound } from "../reads/caller.ts";
import type { StoreView } from "../reads/store-view.ts";
import type { CommandRouteDeps } from "./commands.ts";
import type { DescribedContracts } from "../surfaces/described-contracts.ts";
import { costErrors, depthErrors, MAX_COMMENTS, MAX_TOKENS, nestingError } from "../surfaces/graphql-limits.ts";
import { type GraphqlCaller, mutationRoot, problemError, queryRoot } from "../surfaces/graphql-resolvers.ts";

interface GraphqlRequest {
  readonly query: string;
  readonly variables: Record<string, unknown> | undefined;
  readonly operationName: string | undefined;
}

/** A GraphQL response; `application/graphql-response+json` when the client accepts it (GraphQL over HTTP). */
function respond(c: Context, status: number, body: unknown): Response {
  const modern = (c.req.header("accept") ?? "").includes("application/graphql-response+json");
  return c.body(JSON.stringify(body), status as 200, { "content-type": modern ? "application/graphql-response+json; charset=utf-8" : "application/json; charset=utf-8" });
}

const requestError = (message: string, code: string) => new GraphQLError(message, { extensions: { code } });

/** The request from the body, or the error that says why there is none. */
async function requestOf(c: Context): Promise<GraphqlRequest | GraphQLError> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") return requestError('send the request as application/json {"query": "…", "variables": {…}, "operationName": "…"}', "UNSUPPORTED_MEDIA_TYPE");
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return requestError("the request body is not valid JSON", "BAD_REQUEST");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return requestError('the body must be an object {"query": "…"}', "BAD_REQUEST");
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== "string" || query.trim() === "") return requestError("the body's query must be a GraphQL document (a non-empty string)", "BAD_REQUEST");
  if (variables !== undefined && variables !== null && (typeof variables !== "object" || Array.isArray(variables))) return requestError("variables must be an object", "BAD_REQUEST");
  if (operationName !== undefined && operationName !== null && typeof operationName !== "string") return requestError("operationName must be a string", "BAD_REQUEST");
  return { query, variables: (variables ?? undefined) as Record<string, unknown> | undefined, operationName: operationName ?? undefined };
}

/** What the route needs besides the contracts: the engine path, a logger, and the surfaces' store view (for who is asking, on a 404). */
export type GraphqlRouteDeps = CommandRouteDeps & { readonly log: Logger; readonly store: StoreView };

export function mountGraphqlRoute(app: Hono, contracts: DescribedContracts, deps: GraphqlRouteDeps): void {
  const { store } = deps;

  /** The 404 for a tenant or namespace with nothing installed, as the REST query route words it for this caller. */
  async function missing(c: Context, tenant: string, namespace: string): Promise<Response> {
    const now = deps.now();
    const bearer = await bearerOf(c, tenant, namespace, now);
    let answer: HttpProblem;
    try {
      answer = store.read((db) => notFound(db, bearer, tenant, now, () => missingInstall(db, tenant, namespace)));
    } catch (error) {
      // A store that cannot be read (503) is answered in GraphQL's form too.
      if (!(error instanceof HttpProblem)) throw error;
      answer = error;
    }
    return respond(c, answer.problem.status, { errors: [problemError(answer.problem)] });
  }

  app.get("/v1/:tenant/:namespace/graphql", function getGraphql(c) {
    c.header("allow", "POST");
    return respond(c, 405, { errors: [requestError("send GraphQL requests with POST", "METHOD_NOT_ALLOWED")] });
  });

  app.post("/v1/:tenant/:namespace/graphql", async function postGraphql(c) {
    const { tenant, namespace } = c.req.param();
    let contract;
    try {
      contract = contracts.active(tenant, namespace);
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      if (error.problem.status === 404) return missing(c, tenant, namespace);
      return respond(c, error.problem.status, { errors: [problemError(error.problem)] });
    }
    const request = await requestOf(c);
    if (request instanceof GraphQLError) return respond(c, request.extensions.code === "UNSUPPORTED_MEDIA_TYPE" ? 415 : 400, { errors: [request] });

    // graphql's parser recurses: too many nested brackets are refused before it sees them.
    const nested = nestingError(request.query);
    if (nested !== undefined) return respond(c, 400, { errors: [nested] });
    let document: DocumentNode;
    try {
      document = parse(request.query, { maxLexicalTokens: MAX_TOKENS, maxComments: MAX_COMMENTS });
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      return respond(c, 400, { errors: [new GraphQLError(error.message, { source: error.source, positions: error.positions, extensions: { code: "GRAPHQL_PARSE_FAILED" } })] });
    }
    const schema = contract.graphql();
    const deep = depthErrors(document);
    if (deep.length > 0) return respond(c, 400, { errors: deep });
    const invalid = validate(schema, document, undefined, { maxErrors: 20 });
    if (invalid.length > 0) return respond(c, 400, { errors: invalid.map((e) => withCode(e, "GRAPHQL_VALIDATION_FAILED")) });
    const costly = costErrors(schema, document);
    if (costly.length > 0) return respond(c, 400, { errors: costly });
    const operation = getOperationAST(document, request.operationName);
    if (operation === null || operation === undefined) {
      return respond(c, 400, { errors: [requestError(request.operationName === undefined ? "the document has several operations: name one with operationName" : `no operation named '${request.operationName}'`, "BAD_REQUEST")] });
    }

    const caller: GraphqlCaller = { tenant, namespace, authorization: c.req.header("authorization") };
    const rootValue = operation.operation === "mutation" ? mutationRoot(deps, contract, caller) : queryRoot(app, contract, caller);
    const result = await execute({ schema, document, rootValue, variableValues: request.variables, operationName: request.operationName });
    if (result.errors !== undefined) {
      // A resolver that threw something other than a GraphQL error is a bug: log it, do not show it.
      const errors = result.errors.map((e) => {
        if (e.originalError === undefined || e.originalError instanceof GraphQLError) return e;
        deps.log.error("graphql resolver failed", { path: c.req.path, field: e.path?.join("."), error: e.originalError.stack ?? e.originalError.message });
        return new GraphQLError("the server failed to answer this field; the failure was logged", { path: e.path, extensions: { code: "INTERNAL_SERVER_ERROR" } });
      });
      return respond(c, 200, { ...result, errors });
    }
    return respond(c, 200, result);
  });
}

function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { ...error.extensions, code } });
}
