/**
 * @module The named fragments of a GraphQL document in dependency order, so the limit
 * checks can measure each fragment once and reuse the figure wherever it is spread: walking spreads
 * afresh at every use is exponential (`fragment Fi on Query { ...Fi+1 ...Fi+1 }`). Fragments that
 * cannot be ordered are refused here, before anything measures them: one spread of a fragment the
 * document does not define, one defined twice, or one that spreads itself. Nothing here recurses, so
 * no document, however nested, can exhaust the stack.
 */
import { type DocumentNode, type FragmentDefinitionNode, type FragmentSpreadNode, GraphQLError, Kind, type SelectionSetNode } from "graphql";

/** Called once for each selection a walk looks at; tests count the calls to show a walk is linear. */
export type Visit = () => void;

/** The document's fragments, each after every fragment it spreads, or why they cannot be ordered. */
export type FragmentOrder =
  | { readonly ok: true; readonly order: readonly FragmentDefinitionNode[] }
  | { readonly ok: false; readonly errors: readonly GraphQLError[] };

/** The code graphql's own validation gives these mistakes; the client sees one kind of error either way. */
const INVALID = "GRAPHQL_VALIDATION_FAILED";

/** Every fragment spread inside `set`, inline fragments and sub-selections included, in no particular order. */
export function spreadsIn(set: SelectionSetNode, visit?: Visit): FragmentSpreadNode[] {
  const spreads: FragmentSpreadNode[] = [];
  const stack = [set];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    for (const s of next.selections) {
      visit?.();
      if (s.kind === Kind.FRAGMENT_SPREAD) spreads.push(s);
      else if (s.selectionSet !== undefined) stack.push(s.selectionSet);
    }
  }
  return spreads;
}

interface Frame {
  readonly fragment: FragmentDefinitionNode;
  readonly spreads: readonly FragmentSpreadNode[];
  next: number;
}

/** Orders the fragments of `document` (a depth-first walk of the spread graph with an explicit stack). */
export function fragmentOrder(document: DocumentNode, visit?: Visit): FragmentOrder {
  const byName = new Map<string, FragmentDefinitionNode>();
  const errors: GraphQLError[] = [];
  for (const def of document.definitions) {
    if (def.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const first = byName.get(def.name.value);
    if (first === undefined) byName.set(def.name.value, def);
    else errors.push(new GraphQLError(`There can be only one fragment named "${def.name.value}".`, { nodes: [first.name, def.name], extensions: { code: INVALID } }));
  }
  if (errors.length > 0) return { ok: false, errors };

  const order: FragmentDefinitionNode[] = [];
  // A fragment is absent (not reached yet), "open" (on the current path) or "done" (ordered).
  const state = new Map<string, "open" | "done">();
  for (const root of byName.values()) {
    if (state.has(root.name.value)) continue;
    const path: Frame[] = [{ fragment: root, spreads: spreadsIn(root.selectionSet, visit), next: 0 }];
    state.set(root.name.value, "open");
    while (path.length > 0) {
      const frame = path[path.length - 1] as Frame;
      const spread = frame.spreads[frame.next++];
      if (spread === undefined) {
        path.pop();
        state.set(frame.fragment.name.value, "done");
        order.push(frame.fragment);
        continue;
      }
      const name = spread.name.value;
      const target = byName.get(name);
      if (target === undefined) return { ok: false, errors: [new GraphQLError(`Unknown fragment "${name}".`, { nodes: [spread], extensions: { code: INVALID } })] };
      const seen = state.get(name);
      if (seen === "done") continue;
      if (seen === "open") {
        const from = path.findIndex((f) => f.fragment.name.value === name);
        const via = path.slice(from + 1).map((f) => `"${f.fragment.name.value}"`);
        const how = via.length === 0 ? "" : ` via ${via.join(", ")}`;
        return { ok: false, errors: [new GraphQLError(`Cannot spread fragment "${name}" within itself${how}.`, { nodes: [spread], extensions: { code: INVALID } })] };
      }
      state.set(name, "open");
      path.push({ fragment: target, spreads: spreadsIn(target.selectionSet, visit), next: 0 });
    }
  }
  return { ok: true, order };
}
