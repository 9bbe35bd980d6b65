/**
 * @module What GraphQL's root fields do: each runs the same engine path as its REST twin. A
 * mutation hands the signed command to `submit`, exactly as `POST …/actions/{Action}` does; a query
 * is dispatched, inside the gateway, to the REST query route itself, so parameters, the bearer token
 * and exposure are checked by one piece of code. Problems become GraphQL errors carrying the
 * problem's kind and HTTP status; a refusal is not an error but a receipt, as on REST.
 */
import { GraphQLError } from "graphql";
import type { Hono } from "hono";
import type { Problem } from "../../../shared/problem.ts";
import { receiptOf } from "../../../shared/identity/index.ts";
import { type CommandRouteDeps, submit } from "../routes/commands.ts";
import type { DescribedContract } from "./described-contracts.ts";

/** Who asked, and where: the same for every root field of one request. */
export interface GraphqlCaller {
  readonly tenant: string;
  readonly namespace: string;
  /** The request's Authorization header, passed on to queries as it came. */
  readonly authorization: string | undefined;
}

/** A problem document as a GraphQL error: its detail as the message, its code and status as extensions. */
export function problemError(p: Problem): GraphQLError {
  return new GraphQLError(p.detail, { extensions: { code: p.code, status: p.status, ...(p.errors === undefined ? {} : { errors: p.errors }) } });
}

const segment = encodeURIComponent;

/** The root value of a query operation: `_contract` and one function per exposed query. */
export function queryRoot(app: Hono, contract: DescribedContract, caller: GraphqlCaller): Record<string, unknown> {
  const root: Record<string, unknown> = {
    _contract: { namespace: contract.schema.namespace, version: contract.schema.version, artifact: contract.artifact },
  };
  for (const q of contract.described.queries) {
    root[q.name] = async (args: Record<string, unknown>) => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (caller.authorization !== undefined) headers.authorization = caller.authorization;
      const response = await app.request(`/v1/${segment(caller.tenant)}/${segment(caller.namespace)}/queries/${segment(q.name)}`, {
        method: "POST",
        headers,
        body: JSON.stringify({ params: { ...args } }),
      });
      const body = (await response.json()) as unknown;
      if (response.status !== 200) throw problemError(body as Problem);
      return body;
    };
  }
  return root;
}

/** The root value of a mutation operation: one function per exposed action, taking the signed command. */
export function mutationRoot(deps: CommandRouteDeps, contract: DescribedContract, caller: GraphqlCaller): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const a of contract.described.actions) {
    root[a.name] = async (args: { command: string }) => {
      const answer = await submit(deps, args.command, caller.tenant, caller.namespace, a.name);
      if (answer.kind === "problem") throw problemError(answer.problem);
      return { receipt: receiptOf(answer.jws), jws: answer.jws, replayed: answer.replayed };
    };
  }
  return root;
}
