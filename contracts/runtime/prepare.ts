/**
 * @module One action made ready to run: its exported function, its refusal outcomes, and the
 * encoders and decoders of exactly the arguments, context and state fields it touches, with their
 * addresses baked in. Built once per action when an artifact loads.
 */
import type { Type } from "../ast.ts";
import type { Schema, SchemaAction } from "../schema.ts";
import { normalizerFor, readerFor, writerFor } from "./codecs.ts";
import type { Reader, Views, Writer } from "./codecs.ts";
import type { Outcome } from "./load-artifact.ts";

/** An encoder bound to the address it writes. */
export interface Slot {
  readonly name: string;
  readonly at: number;
  readonly write: Writer;
}

/** An action ready to run. */
export interface Prepared {
  readonly run: () => number;
  readonly aggregate: string;
  readonly params: readonly Slot[];
  readonly paramNames: ReadonlySet<string>;
  readonly reads: readonly Slot[];
  readonly fields: readonly { readonly name: string; readonly read: Reader | null; readonly at: number; readonly normalize: ((x: unknown) => unknown) | null }[];
  readonly signer: Writer | null;
  readonly time: Writer | null;
  readonly refusals: readonly Outcome[];
}

/** Prepares the action `name` (`Aggregate.Action`) of a schema over an instance's memory views. */
export function prepare(schema: Schema, name: string, action: SchemaAction, run: () => number, views: Views): Prepared {
  const layout = schema.layout;
  const al = layout.actions[name];
  const agg = schema.aggregates[action.aggregate];
  const aggLayout = layout.aggregates[action.aggregate];
  if (al === undefined || agg === undefined || aggLayout === undefined) throw new Error(`schema has no layout for ${name}`);
  const fieldType = new Map<string, Type>(agg.fields.map((f) => [f.name, f.type]));
  const stateAt = (f: string): number => layout.state + (aggLayout.fields[f] as number);
  const writes = new Set(al.writes);
  const identity: Type = { kind: "Identity" };
  return {
    run,
    aggregate: action.aggregate,
    params: action.params.map((p) => ({ name: p.name, at: layout.args + (al.params[p.name] as number), write: writerFor(p.type, views, "argument") })),
    paramNames: new Set(action.params.map((p) => p.name)),
    reads: al.reads.map((f) => ({ name: f, at: stateAt(f), write: writerFor(fieldType.get(f) as Type, views, "state") })),
    fields: agg.fields.map((f) => ({ name: f.name, at: stateAt(f.name), read: writes.has(f.name) ? readerFor(f.type, views) : null, normalize: normalizerFor(f.type) })),
    signer: al.context.signer ? writerFor(identity, views, "argument") : null,
    time: al.context.time ? writerFor({ kind: "Int" }, views, "argument") : null,
    refusals: al.refusals.map((reason) => Object.freeze({ outcome: "refused" as const, reason: Object.freeze({ ...reason }) })),
  };
}
