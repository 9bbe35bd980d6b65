/**
 * @module A delivery and the mapping that matched it, made into the one command the node signs as
 * the person. Everything about it comes from the delivery, so the same delivery always makes the
 * same command (a retry after a crash is the command already made, not a second one): its
 * idempotency key is the delivery's id, and a new record's id is made from the time the delivery
 * was admitted and a digest of its id, in the shape of the node's time-ordered ids
 * (`task-<time>-<12 hex>`). A value the payload does not hold, or holds in a form an argument
 * cannot take (an object), fails the delivery with the reason; what the contract makes of a value
 * is the contract's to say.
 */
import { createHash } from "node:crypto";
import type { Type } from "../../../../contracts/ast.ts";
import { defaultValue } from "../../../../contracts/schema.ts";
import type { HookDelivery } from "../../../../shared/protocol/outbox.ts";
import type { HookMapping } from "./hook-mapping.ts";
import { parsePath, valueAt } from "./payload-path.ts";

/** The command a delivery makes, or why it makes none. */
export type HookCommand =
  | { readonly ok: true; readonly namespace: string; readonly action: string; readonly subject: string; readonly args: Record<string, unknown>; readonly idempotencyKey: string }
  | { readonly ok: false; readonly reason: string };

/** The action's parameters and the aggregate it changes, from the contract's schema. */
export interface ActionShape {
  readonly aggregate: string;
  readonly params: readonly { readonly name: string; readonly type: Type }[];
}

/** The most items a list value taken from a payload may have. */
const MAX_LIST = 100;
const SUBJECT = /^[A-Za-z0-9._:-]{1,128}$/;

/** The idempotency key of the command a delivery makes. */
export function hookIdempotencyKey(delivery: Pick<HookDelivery, "source" | "delivery">): string {
  return `hook:${delivery.source}:${delivery.delivery}`;
}

/** Makes `mapping`'s command for `delivery`, whose parsed body is `body`. */
export function hookCommand(mapping: HookMapping, shape: ActionShape, delivery: HookDelivery, body: Record<string, unknown>): HookCommand {
  const args: Record<string, unknown> = {};
  for (const param of shape.params) {
    const source = Object.hasOwn(mapping.command.args, param.name) ? mapping.command.args[param.name] : undefined;
    if (source === undefined) {
      args[param.name] = defaultValue(param.type, null);
      continue;
    }
    if ("value" in source) {
      args[param.name] = source.value;
      continue;
    }
    const taken = take(body, source.path, param.name);
    if (!taken.ok) {
      if (source.default === undefined) return taken;
      args[param.name] = source.default;
      continue;
    }
    const value = taken.value;
    args[param.name] = typeof value === "string" && source.maxLength !== undefined ? cut(value, source.maxLength) : value;
  }
  let subject: string;
  if (mapping.command.subject === undefined) {
    subject = newSubject(shape.aggregate, delivery);
  } else {
    const taken = take(body, mapping.command.subject.path, "the subject");
    if (!taken.ok) return taken;
    const value = taken.value;
    subject = `${mapping.command.subject.prefix}${typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value}`;
    if ((typeof value !== "string" && typeof value !== "number") || !SUBJECT.test(subject)) {
      return { ok: false, reason: `the subject ${JSON.stringify(subject.slice(0, 140))} (from ${mapping.command.subject.path}) is not a record id: 1–128 of A-Z a-z 0-9 . _ : -` };
    }
  }
  return { ok: true, namespace: mapping.command.namespace, action: mapping.command.action, subject, args, idempotencyKey: hookIdempotencyKey(delivery) };
}

/** The value at `path` for `what`: a scalar, or a list of scalars; anything else is a reason. */
function take(body: Record<string, unknown>, path: string, what: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  const parsed = parsePath(path);
  // Stored mappings were checked when set: a path that does not parse now is a bug.
  if (!parsed.ok) throw new Error(`a stored mapping holds a path that does not parse: ${path}`);
  const found = valueAt(body, parsed.tokens);
  if (!found.found) return { ok: false, reason: `the payload has nothing at ${found.missing} (${what} is taken from ${path})` };
  const value = found.value;
  if (value === null || typeof value !== "object") return { ok: true, value };
  if (Array.isArray(value) && value.length <= MAX_LIST && value.every((v) => v === null || typeof v !== "object")) return { ok: true, value };
  return { ok: false, reason: `the payload's ${path} is ${Array.isArray(value) ? `a list of ${value.length > MAX_LIST ? `more than ${MAX_LIST} items` : "objects or lists"}` : "an object"}; ${what} takes a value (map a member inside it)` };
}

/** `text` cut to at most `max` characters (whole code points). */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text.slice(0, max * 2));
  return points.length <= max ? points.join("") : points.slice(0, max).join("");
}

/** A new record's id for `delivery`: the aggregate's name, the admission time, a digest of the delivery's id. */
function newSubject(aggregate: string, delivery: HookDelivery): string {
  const prefix = aggregate.toLowerCase().replace(/[^a-z0-9]/g, "").slice(0, 32) || "record";
  const digest = createHash("sha256").update(`${delivery.source}\u0000${delivery.delivery}`).digest("hex").slice(0, 12);
  return `${prefix}-${Math.max(0, Math.floor(delivery.receivedAt)).toString(36).padStart(9, "0")}-${digest}`;
}
