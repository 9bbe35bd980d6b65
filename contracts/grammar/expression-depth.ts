/**
 * @module Guards later passes against expressions too deep to walk recursively. The grammar folds a
 * long `a + b + c + …` chain into a left-deep tree, so a hostile file can build a tree millions of
 * nodes deep without a single parenthesis; this walk is iterative and finds such a tree first.
 */
import type { Contract, Expr } from "../ast.ts";

/** Every expression written at the top of a contract's rules: defaults, conditions, assignments, stages. */
export function rootExpressions(contract: Contract): Expr[] {
  const roots: Expr[] = [];
  for (const decl of contract.decls) {
    switch (decl.kind) {
      case "AggregateDecl":
        for (const f of decl.fields) if (f.default !== null) roots.push(f.default);
        for (const a of decl.actions) {
          for (const c of a.validate) roots.push(c.expr);
          for (const s of a.apply) roots.push(s.value);
        }
        break;
      case "MigrateDecl":
        for (const s of decl.assignments) roots.push(s.value);
        break;
      case "QueryDecl":
        for (const stage of decl.stages) {
          switch (stage.kind) {
            case "Where":
            case "Let":
              roots.push(stage.expr);
              break;
            case "Select":
              for (const item of stage.items) roots.push(item.expr);
              break;
            case "Summarize":
              for (const a of stage.aggregations) roots.push(a.call);
              break;
            case "Search":
              roots.push(stage.text);
              break;
            case "Nearest":
            case "Shortest":
              roots.push(stage.to);
              break;
            case "Asof":
              roots.push(stage.time);
              break;
            default:
              break;
          }
        }
        break;
      default:
        break;
    }
  }
  return roots;
}

/** The first root expression deeper than `limit` levels, or null when all are shallower. */
export function findTooDeep(contract: Contract, limit: number): Expr | null {
  for (const root of rootExpressions(contract)) {
    const stack: [Expr, number][] = [[root, 1]];
    while (stack.length > 0) {
      const [expr, depth] = stack.pop() as [Expr, number];
      if (depth > limit) return root;
      for (const child of children(expr)) stack.push([child, depth + 1]);
    }
  }
  return null;
}

function children(expr: Expr): readonly Expr[] {
  switch (expr.kind) {
    case "Binary":
      return [expr.left, expr.right];
    case "Unary":
      return [expr.operand];
    case "Call":
      return expr.args;
    default:
      return [];
  }
}
