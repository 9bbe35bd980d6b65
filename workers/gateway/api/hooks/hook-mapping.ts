/**
 * @module What a webhook delivery becomes: the person's mappings, each from a source, an event and
 * optionally its action (`github` `issues` `opened`) to one action of a contract of the personal
 * tenant, with its arguments taken from the payload by JSON Pointer (`{"path": "/issue/title"}`) or
 * given as literals (`{"value": ["github"]}`). Arguments a mapping does not give take their type's
 * default (empty text, 0, false, the first enum value, an empty list), as a tool call's do. A
 * delivery is acted on by the first mapping that matches it; one no mapping matches is ignored.
 *
 * Mappings are checked whole when they are set (`checkMappings`): a wrong one is refused with every
 * problem named by its pointer, so what is stored always has this shape, and every path in it is
 * bounded (payload-path.ts). GitHub events and actions are checked against `@octokit/webhooks`'s
 * list of them; Mastodon's events are `<thing>.<what>` (`status.created`) and carry no action.
 */
import { emitterEventNames } from "@octokit/webhooks";
import { checkJsonValue } from "../../../../shared/json-limits.ts";
import { HOOK_SOURCES, type HookSource } from "../../../../shared/protocol/outbox.ts";
import { parsePath } from "./payload-path.ts";

/** Where one argument's value comes from. */
export type ArgSource =
  | { readonly path: string; readonly maxLength?: number; readonly default?: unknown }
  | { readonly value: unknown };

/** One mapping, as stored and answered. */
export interface HookMapping {
  readonly source: HookSource;
  readonly event: string;
  /** The delivery's action (GitHub's `opened`); null: any. */
  readonly action: string | null;
  readonly command: {
    readonly namespace: string;
    readonly action: string;
    /** The record acted on: `prefix` + the value at `path`; absent, a new record (its id made from the delivery). */
    readonly subject?: { readonly path: string; readonly prefix: string };
    readonly args: Readonly<Record<string, ArgSource>>;
  };
}

/** The most mappings a node keeps. */
export const MAX_MAPPINGS = 50;
/** The most arguments one mapping gives. */
export const MAX_ARGS = 32;
/** The longest literal, in bytes of JSON. */
export const MAX_LITERAL_BYTES = 4096;
/** The largest `maxLength` a path argument may ask for. */
export const MAX_TEXT_LENGTH = 100_000;

/** What the node does with deliveries until the person says otherwise: an opened GitHub issue becomes a task. */
export const DEFAULT_MAPPINGS: readonly HookMapping[] = [
  {
    source: "github",
    event: "issues",
    action: "opened",
    command: {
      namespace: "std.tasks",
      action: "Create",
      args: { title: { path: "/issue/title", maxLength: 200 }, notes: { path: "/issue/html_url" }, tags: { value: ["github"] } },
    },
  },
];

/** An action's parameters as a mapping needs them, or why the mapping cannot name it. */
export type ActionLookup = { readonly ok: true; readonly params: readonly string[] } | { readonly ok: false; readonly detail: string };

/** A field problem: its pointer in the request body, and why. */
export interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

const GITHUB_EVENTS: ReadonlySet<string> = new Set(emitterEventNames);
const GITHUB_EVENT = /^[a-z_]{1,64}$/;
const MASTODON_EVENT = /^[a-z_]{1,32}\.[a-z_]{1,32}$/;
const NAME = /^[A-Za-z0-9_.]{1,128}$/;
const SUBJECT_PREFIX = /^[A-Za-z0-9._:-]{0,64}$/;

/** Checks a `mappings` value; `lookup` finds an action of the personal tenant's contracts. */
export function checkMappings(value: unknown, lookup: (namespace: string, action: string) => ActionLookup): { ok: true; value: HookMapping[] } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const fail = (pointer: string, detail: string) => {
    if (errors.length < 50) errors.push({ pointer, detail });
  };
  if (!Array.isArray(value)) return { ok: false, errors: [{ pointer: "#/mappings", detail: "mappings is a list" }] };
  if (value.length > MAX_MAPPINGS) return { ok: false, errors: [{ pointer: "#/mappings", detail: `at most ${MAX_MAPPINGS} mappings` }] };
  const out: HookMapping[] = [];
  value.forEach((m, i) => {
    const at = `#/mappings/${i}`;
    const mapping = checkMapping(m, at, fail, lookup);
    if (mapping !== null) out.push(mapping);
  });
  return errors.length === 0 ? { ok: true, value: out } : { ok: false, errors };
}

function checkMapping(m: unknown, at: string, fail: (pointer: string, detail: string) => void, lookup: (namespace: string, action: string) => ActionLookup): HookMapping | null {
  const o = objectOf(m, at, ["source", "event", "action", "command"], fail);
  if (o === null) return null;
  const source = o.source;
  if (typeof source !== "string" || !(HOOK_SOURCES as readonly string[]).includes(source)) {
    fail(`${at}/source`, `source is one of ${HOOK_SOURCES.join(", ")}`);
    return null;
  }
  const event = typeof o.event === "string" ? o.event : "";
  const action = o.action === undefined || o.action === null ? null : o.action;
  let ok = true;
  if (source === "github") {
    if (!GITHUB_EVENT.test(event) || !GITHUB_EVENTS.has(event)) ok = bad(fail, `${at}/event`, "event is a GitHub webhook event, such as issues or pull_request");
    else if (action !== null && (typeof action !== "string" || !GITHUB_EVENTS.has(`${event}.${action}`))) ok = bad(fail, `${at}/action`, `action is one of GitHub's actions of ${event} (such as opened), or null for any`);
  } else {
    if (!MASTODON_EVENT.test(event)) ok = bad(fail, `${at}/event`, "event is a Mastodon webhook event, such as status.created or report.created");
    if (action !== null) ok = bad(fail, `${at}/action`, "Mastodon deliveries have no action: leave it out");
  }
  const command = checkCommand(o.command, `${at}/command`, fail, lookup);
  if (!ok || command === null) return null;
  return { source: source as HookSource, event, action: action as string | null, command };
}

function checkCommand(c: unknown, at: string, fail: (pointer: string, detail: string) => void, lookup: (namespace: string, action: string) => ActionLookup): HookMapping["command"] | null {
  const o = objectOf(c, at, ["namespace", "action", "subject", "args"], fail);
  if (o === null) return null;
  const { namespace, action } = o;
  if (typeof namespace !== "string" || !NAME.test(namespace)) return none(fail, `${at}/namespace`, "namespace is a contract's namespace, such as std.tasks");
  if (typeof action !== "string" || !NAME.test(action)) return none(fail, `${at}/action`, "action is one of the contract's actions, such as Create");
  const found = lookup(namespace, action);
  if (!found.ok) return none(fail, `${at}/action`, found.detail);
  let subject: { path: string; prefix: string } | undefined;
  if (o.subject !== undefined) {
    const s = objectOf(o.subject, `${at}/subject`, ["path", "prefix"], fail);
    if (s === null) return null;
    const path = parsePath(s.path);
    if (!path.ok) return none(fail, `${at}/subject/path`, path.detail);
    const prefix = s.prefix ?? "";
    if (typeof prefix !== "string" || !SUBJECT_PREFIX.test(prefix)) return none(fail, `${at}/subject/prefix`, "prefix is 0 to 64 of A-Z a-z 0-9 . _ : -");
    subject = { path: s.path as string, prefix };
  }
  const args = objectOf(o.args ?? {}, `${at}/args`, null, fail);
  if (args === null) return null;
  const names = Object.keys(args);
  if (names.length > MAX_ARGS) return none(fail, `${at}/args`, `at most ${MAX_ARGS} arguments`);
  const checked: Record<string, ArgSource> = {};
  let ok = true;
  for (const name of names) {
    const where = `${at}/args/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (!found.params.includes(name)) {
      ok = bad(fail, where, `${namespace} ${action} has no parameter ${JSON.stringify(name.slice(0, 64))}; its parameters are ${found.params.join(", ") || "none"}`);
      continue;
    }
    const arg = checkArg(args[name], where, fail);
    if (arg === null) ok = false;
    else checked[name] = arg;
  }
  if (!ok) return null;
  return { namespace, action, ...(subject === undefined ? {} : { subject }), args: checked };
}

function checkArg(a: unknown, at: string, fail: (pointer: string, detail: string) => void): ArgSource | null {
  if (a !== null && typeof a === "object" && !Array.isArray(a) && Object.hasOwn(a, "value")) {
    const o = objectOf(a, at, ["value"], fail);
    if (o === null || !literal(o.value, `${at}/value`, fail)) return null;
    return { value: o.value };
  }
  const o = objectOf(a, at, ["path", "maxLength", "default"], fail);
  if (o === null) return null;
  const path = parsePath(o.path);
  if (!path.ok) return none(fail, `${at}/path`, `${path.detail} (or give {"value": …})`);
  const maxLength = o.maxLength;
  if (maxLength !== undefined && !(Number.isInteger(maxLength) && (maxLength as number) >= 1 && (maxLength as number) <= MAX_TEXT_LENGTH)) {
    return none(fail, `${at}/maxLength`, `maxLength is a whole number from 1 to ${MAX_TEXT_LENGTH}: a longer text is cut to it`);
  }
  if (o.default !== undefined && !literal(o.default, `${at}/default`, fail)) return null;
  return { path: o.path as string, ...(maxLength === undefined ? {} : { maxLength: maxLength as number }), ...(o.default === undefined ? {} : { default: o.default }) };
}

/** Whether `value` is a literal a mapping may hold (bounded JSON); names the problem when not. */
function literal(value: unknown, at: string, fail: (pointer: string, detail: string) => void): boolean {
  if (value === undefined || checkJsonValue(value) !== null || Buffer.byteLength(JSON.stringify(value)) > MAX_LITERAL_BYTES) {
    fail(at, `a literal is a JSON value of at most ${MAX_LITERAL_BYTES} bytes`);
    return false;
  }
  return true;
}

/** `value` as an object with only `fields` (any when null); names the problem when it is not one. */
function objectOf(value: unknown, at: string, fields: readonly string[] | null, fail: (pointer: string, detail: string) => void): Record<string, unknown> | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    fail(at, "must be a JSON object");
    return null;
  }
  const o = value as Record<string, unknown>;
  if (fields !== null) {
    const unknown = Object.keys(o).filter((k) => !fields.includes(k));
    for (const k of unknown.slice(0, 5)) fail(`${at}/${k.slice(0, 64).replaceAll("~", "~0").replaceAll("/", "~1")}`, `unknown field; the fields are ${fields.join(", ")}`);
    if (unknown.length > 0) return null;
  }
  return o;
}

function bad(fail: (pointer: string, detail: string) => void, pointer: string, detail: string): false {
  fail(pointer, detail);
  return false;
}

function none(fail: (pointer: string, detail: string) => void, pointer: string, detail: string): null {
  fail(pointer, detail);
  return null;
}

/** The first mapping that matches a delivery of `source`, `event` and `action`, or null. */
export function matchMapping(mappings: readonly HookMapping[], source: HookSource, event: string, action: string): HookMapping | null {
  return mappings.find((m) => m.source === source && m.event === event && (m.action === null || m.action === action)) ?? null;
}
