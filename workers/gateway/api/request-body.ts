/**
 * @module Reading an `/api` request's JSON body: an object with known fields only (an unknown one is
 * a `400` naming it, so a typo is never silently ignored), within the JSON limits; an empty body
 * is `{}`. Read only after the gate let the request in.
 */
import type { Context } from "hono";
import { checkJsonTextDepth, checkJsonValue, jsonLimitProblem } from "../../../shared/json-limits.ts";
import { HttpProblem, problem } from "../../../shared/problem.ts";

/** The body's fields, each `unknown` until the ceremony checks it. */
export type Body<F extends string> = { readonly [K in F]?: unknown };

/** Reads the body as an object whose members are among `fields`; throws the problem otherwise. */
export async function jsonBody<F extends string>(c: Context, fields: readonly F[]): Promise<Body<F>> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(c.req.header("content-type") ?? "")) {
    throw new HttpProblem(problem(415, "unsupported-media-type", "send the body as application/json"));
  }
  const deep = checkJsonTextDepth(text);
  if (deep !== null) throw new HttpProblem(jsonLimitProblem(deep));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpProblem(problem(400, "malformed-json", `the body is not JSON: ${(error as Error).message}`));
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new HttpProblem(problem(400, "malformed-body", "the body must be a JSON object"));
  const over = checkJsonValue(value);
  if (over !== null) throw new HttpProblem(jsonLimitProblem(over));
  const unknown = Object.keys(value).filter((key) => !(fields as readonly string[]).includes(key));
  if (unknown.length > 0) {
    const named = unknown.slice(0, 20);
    throw new HttpProblem(
      problem(400, "malformed-body", `unknown field${named.length > 1 ? "s" : ""}: ${named.map((k) => JSON.stringify(k.slice(0, 64))).join(", ")}`, named.map((k) => ({ pointer: `#/${pointerToken(k.slice(0, 64))}`, detail: "unknown field" }))),
    );
  }
  return value as Body<F>;
}

function pointerToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}
