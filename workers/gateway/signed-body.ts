/**
 * @module Reading a signed envelope from a request body: `{"<field>": "<compact JWS>"}` as JSON, or
 * the compact JWS itself as `application/jose` (wire.md). Anything else is a problem document.
 */
import type { Context } from "hono";
import { HttpProblem, problem } from "../../shared/problem.ts";

/** The compact JWS carried in the body under `field` (`command`, `install`). */
export async function signedBody(c: Context, field: string): Promise<string> {
  return jwsFromBody(c.req.header("content-type"), await c.req.text(), field);
}

/** The compact JWS in a body of `contentType` (its `Content-Type` header, if any); throws an HttpProblem for anything else. */
export function jwsFromBody(contentType: string | undefined, text: string, field: string): string {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
  if (type === "application/jose") return text.trim();
  if (type !== "application/json" && type !== "") {
    throw new HttpProblem(problem(415, "unsupported-media-type", `send the ${field} as application/json {"${field}": "<JWS>"} or as application/jose`));
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpProblem(problem(400, "malformed-json", "the request body is not valid JSON"));
  }
  const jws = (body as Record<string, unknown> | null)?.[field];
  if (typeof jws !== "string") {
    throw new HttpProblem(problem(400, "malformed-body", `the body must be {"${field}": "<compact JWS>"}`, [{ pointer: `#/${field}`, detail: "a compact JWS string is required" }]));
  }
  return jws;
}
