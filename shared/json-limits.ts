/**
 * @module Bounds on every JSON value that enters Charter from outside: command arguments, query
 * parameters, GraphQL variables, signed payloads. Checked iteratively at the edge, before anything
 * recursive (`JSON.stringify`, canonical JSON, digests, codecs) touches the value: a value nested a
 * few thousand deep overflows the stack of any recursive walk, and a worker must never die of what a
 * request carries.
 */

import { type Problem, problem } from "./problem.ts";

/** What one JSON value may hold. */
export interface JsonLimits {
  /** Most levels of arrays and objects, one inside another (the top value is level 1). */
  readonly maxDepth: number;
  /** Most values in all (every array, object, string, number, boolean and null counts one). */
  readonly maxValues: number;
  /** Longest object key, in UTF-16 code units. */
  readonly maxKeyLength: number;
}

/** The limits applied to everything that enters (README, "Security"). */
export const JSON_LIMITS: JsonLimits = { maxDepth: 32, maxValues: 10_000, maxKeyLength: 256 };

/** Why a value is over the limits: a sentence for the client, and where (a JSON Pointer, as far as known). */
export interface JsonLimitViolation {
  readonly limit: "depth" | "values" | "key-length";
  readonly detail: string;
  readonly pointer: string;
}

/**
 * The first way `value` (as `JSON.parse` gives it) breaks `limits`, or null. Iterative, so it is safe
 * on any input, and it stops at the first violation, so it costs at most `maxValues` steps.
 */
export function checkJsonValue(value: unknown, limits: JsonLimits = JSON_LIMITS): JsonLimitViolation | null {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 1, path: "" }];
  let seen = 0;
  while (stack.length > 0) {
    const { value: v, depth, path } = stack.pop() as { value: unknown; depth: number; path: string };
    if (++seen > limits.maxValues) return { limit: "values", detail: `the JSON value holds more than ${limits.maxValues} values`, pointer: path === "" ? "#" : `#${path}` };
    if (v === null || typeof v !== "object") continue;
    if (depth > limits.maxDepth) return { limit: "depth", detail: `the JSON value is nested more than ${limits.maxDepth} levels deep`, pointer: `#${path}` };
    if (Array.isArray(v)) {
      // Pushed in reverse, so the first violation found is the first in document order.
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: depth + 1, path: `${path}/${i}` });
      if (seen + v.length > limits.maxValues) return { limit: "values", detail: `the JSON value holds more than ${limits.maxValues} values`, pointer: `#${path}` };
    } else {
      const keys = Object.keys(v);
      if (seen + keys.length > limits.maxValues) return { limit: "values", detail: `the JSON value holds more than ${limits.maxValues} values`, pointer: `#${path}` };
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const child = `${path}/${key.length > 64 ? `${escape(key.slice(0, 64))}…` : escape(key)}`;
        if (key.length > limits.maxKeyLength) return { limit: "key-length", detail: `an object key is longer than ${limits.maxKeyLength} characters`, pointer: `#${child}` };
        stack.push({ value: (v as Record<string, unknown>)[key], depth: depth + 1, path: child });
      }
    }
  }
  return null;
}

/**
 * The first way the JSON text `text` breaks the depth limit, or null — without parsing it: one pass
 * over its characters counting brackets outside strings. For bodies parsed by code that walks them
 * recursively, or whose value is never seen here (the handler parses it). Invalid JSON passes; its
 * parser refuses it.
 */
export function checkJsonTextDepth(text: string, maxDepth: number = JSON_LIMITS.maxDepth): JsonLimitViolation | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // a backslash escapes the next character
      else if (ch === 0x22) inString = false;
      continue;
    }
    if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > maxDepth) return { limit: "depth", detail: `the JSON body is nested more than ${maxDepth} levels deep`, pointer: "#" };
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return null;
}

/** The 400 problem for a value over the limits, naming where. */
export function jsonLimitProblem(over: JsonLimitViolation): Problem {
  return problem(400, "json-over-limit", over.detail, [{ pointer: over.pointer, detail: over.detail }]);
}

/** RFC 6901 escaping of one reference token. */
function escape(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}
