/**
 * @module The body limit of `/api`, applied after the gate: the whole app's limit middleware comes
 * before any route and reads JSON bodies to check their depth, which on `/api` would read a body
 * before the gate decided whether the caller may send one. The same rule as the rest of the node:
 * over `--body-limit` is `413`; a declared body's rest is read and thrown away first (so the client
 * reads the answer, not a reset), a streamed one is cut off.
 */
import type { HttpBindings } from "@hono/node-server";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { problem } from "../../../shared/problem.ts";
import { discardBody } from "../discard-body.ts";
import { problemResponse } from "../problem-response.ts";
import type { ApiEnv } from "./api-env.ts";

/** Refuses a body over `maxBytes` with `413 body-too-large`; a request `exempt` says is its route's to bound. */
export function apiBodyLimit(maxBytes: number, exempt: (c: Context) => boolean = () => false): MiddlewareHandler<ApiEnv> {
  const tooLarge = async (c: Context, declared: boolean) => {
    const incoming = declared ? (c.env as Partial<HttpBindings> | undefined)?.incoming : undefined;
    if (incoming === undefined || !(await discardBody(incoming))) c.header("connection", "close");
    return problemResponse(c, problem(413, "body-too-large", `the request body is over the limit of ${maxBytes} bytes`));
  };
  const streamed = bodyLimit({ maxSize: maxBytes, onError: (c) => tooLarge(c, false) });
  return async function limitApiBody(c, next) {
    if (exempt(c)) return next();
    const length = c.req.header("content-length");
    if (length !== undefined && c.req.header("transfer-encoding") === undefined) {
      return Number.parseInt(length, 10) > maxBytes ? tooLarge(c, true) : next();
    }
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    return streamed(c, next);
  };
}
