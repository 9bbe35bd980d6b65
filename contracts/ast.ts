/**
 * @module The contract language's syntax tree: what the parser produces and the checker annotates.
 *
 * Every node is plain JSON (no classes, no bigint: integers are decimal strings) so an AST can be
 * written to a golden file or sent across a process boundary. `span` is `[start, end)` as UTF-16
 * offsets into the whole Markdown file, not the fenced block, so positions point at the file a user
 * edits; line and column are computed only when a diagnostic is printed (see `diagnostics.ts`).
 *
 * The checker fills the optional `type` / `resolved` fields in place; the code generator and the
 * query planner read only checked trees.
 */

/** `[start, end)` UTF-16 offsets into the Markdown file. */
export type Span = readonly [number, number];

/** A name as written, with where it was written. */
export interface Ident {
  readonly name: string;
  readonly span: Span;
}

// ---------------------------------------------------------------------------------------------
// Types

/** A type as written in source. `Named` is an enum or record declared elsewhere in the contract. */
export type TypeExpr =
  | { readonly kind: "TextType"; readonly len: number; readonly span: Span }
  | { readonly kind: "IntType"; readonly span: Span }
  | { readonly kind: "BoolType"; readonly span: Span }
  | { readonly kind: "DateType"; readonly span: Span }
  | { readonly kind: "IdentityType"; readonly span: Span }
  | { readonly kind: "EnumType"; readonly values: readonly Ident[]; readonly span: Span }
  | { readonly kind: "RefType"; readonly aggregate: Ident; readonly span: Span }
  | { readonly kind: "ListType"; readonly element: TypeExpr; readonly cap: number; readonly span: Span }
  | { readonly kind: "VectorType"; readonly dim: number; readonly span: Span }
  | { readonly kind: "NamedType"; readonly name: Ident; readonly span: Span };

/**
 * A resolved type, as the checker computes it. Two `Enum` types are the same type when `values` are
 * equal in order (a named enum carries its name only for messages). `Record` is a declared record
 * type or an aggregate's public row (used by queries only).
 */
export type Type =
  | { readonly kind: "Text"; readonly len: number }
  | { readonly kind: "Int" }
  | { readonly kind: "Bool" }
  | { readonly kind: "Date" }
  | { readonly kind: "Identity" }
  | { readonly kind: "Enum"; readonly values: readonly string[]; readonly name?: string }
  | { readonly kind: "Ref"; readonly aggregate: string }
  | { readonly kind: "List"; readonly element: Type; readonly cap: number }
  | { readonly kind: "Vector"; readonly dim: number }
  /** Float results of queries only (`avg`, `score`, `distance`); never in actions. */
  | { readonly kind: "Float" };

// ---------------------------------------------------------------------------------------------
// Expressions

export type BinaryOp = "or" | "and" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "+" | "-" | "*" | "/" | "%" | "in";
export type UnaryOp = "not" | "-";

/** What a bare name turned out to be, filled by the checker. */
export type NameRef =
  | { readonly kind: "param"; readonly name: string }
  | { readonly kind: "enum-value"; readonly value: string }
  | { readonly kind: "column"; readonly name: string };

export type Expr =
  /** Integer literal; `value` is the decimal text (64-bit range is checked by the checker). */
  | { readonly kind: "IntLit"; readonly value: string; readonly span: Span; type?: Type }
  | { readonly kind: "TextLit"; readonly value: string; readonly span: Span; type?: Type }
  | { readonly kind: "BoolLit"; readonly value: boolean; readonly span: Span; type?: Type }
  /** A bare name: an action parameter, an enum value, or (in queries) a column. */
  | { readonly kind: "Name"; readonly name: string; readonly span: Span; type?: Type; resolved?: NameRef }
  /** `state.FIELD` */
  | { readonly kind: "StateField"; readonly field: Ident; readonly span: Span; type?: Type }
  /** `old.FIELD` (only inside `migrate`) */
  | { readonly kind: "OldField"; readonly field: Ident; readonly span: Span; type?: Type }
  /** `context.signer` / `context.time` */
  | { readonly kind: "Context"; readonly field: Ident; readonly span: Span; type?: Type }
  /** `$param` (only inside queries) */
  | { readonly kind: "QueryParam"; readonly name: Ident; readonly span: Span; type?: Type }
  | { readonly kind: "Binary"; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr; readonly span: Span; type?: Type }
  | { readonly kind: "Unary"; readonly op: UnaryOp; readonly operand: Expr; readonly span: Span; type?: Type }
  /** `len(x)`, `append(list, x)`, `remove(list, x)`; in `summarize`: `count()`, `sum(x)`, `min(x)`, `max(x)`, `avg(x)`. */
  | { readonly kind: "Call"; readonly fn: Ident; readonly args: readonly Expr[]; readonly span: Span; type?: Type };

// ---------------------------------------------------------------------------------------------
// Declarations

export interface FieldDecl {
  readonly kind: "FieldDecl";
  readonly visibility: "public" | "private";
  readonly name: Ident;
  readonly type: TypeExpr;
  /** `= EXPR` after the type; a literal or an enum value. */
  readonly default: Expr | null;
  readonly span: Span;
  resolvedType?: Type;
}

export interface IndexDecl {
  readonly kind: "IndexDecl";
  readonly name: Ident;
  readonly index: "fulltext" | "vector";
  readonly fields: readonly Ident[];
  /** Only for `vector`: `cosine`, `l2` or `dot`. */
  readonly metric: Ident | null;
  readonly span: Span;
}

export interface ParamDecl {
  readonly kind: "ParamDecl";
  readonly name: Ident;
  readonly type: TypeExpr;
  readonly span: Span;
  resolvedType?: Type;
}

export type Exposure = "public" | "authenticated" | null;

export type AuthorizeMode =
  | { readonly mode: "anyone" | "member" | "owner"; readonly span: Span }
  | { readonly mode: "delegate"; readonly scope: Ident; readonly span: Span }
  | { readonly mode: "field"; readonly field: Ident; readonly span: Span };

/** One `validate` line. `text` is the condition exactly as written (trimmed), for refusals. */
export interface Condition {
  readonly expr: Expr;
  readonly text: string;
  readonly span: Span;
}

/** `state.FIELD = EXPR` (in `apply` and `migrate`). */
export interface Assignment {
  readonly field: Ident;
  readonly value: Expr;
  readonly text: string;
  readonly span: Span;
}

/** `NAME = EXPR`, one field of an `effect` clause. */
export interface EffectField {
  readonly name: Ident;
  readonly value: Expr;
  readonly text: string;
  readonly span: Span;
}

/** `effect KIND { FIELD = EXPR … }`: something the outbox does once the command is committed. */
export interface EffectDecl {
  readonly effect: Ident;
  readonly fields: readonly EffectField[];
  readonly span: Span;
}

export interface ActionDecl {
  readonly kind: "ActionDecl";
  readonly name: Ident;
  readonly params: readonly ParamDecl[];
  readonly exposure: Exposure;
  /** `null` when the required `authorize` line is missing (the checker reports it). */
  readonly authorize: AuthorizeMode | null;
  readonly merge: { readonly mode: "replay" | "reject" | "commute"; readonly span: Span } | null;
  readonly durability: { readonly mode: "memory" | "local" | "quorum"; readonly span: Span } | null;
  readonly validate: readonly Condition[];
  readonly apply: readonly Assignment[];
  /** The effects the action declares, in the order written (empty: none). */
  readonly effects: readonly EffectDecl[];
  readonly span: Span;
}

export interface AggregateDecl {
  readonly kind: "AggregateDecl";
  readonly name: Ident;
  readonly fields: readonly FieldDecl[];
  readonly indexes: readonly IndexDecl[];
  readonly actions: readonly ActionDecl[];
  readonly span: Span;
}

export interface EnumDecl {
  readonly kind: "EnumDecl";
  readonly name: Ident;
  readonly values: readonly Ident[];
  readonly span: Span;
}

export interface RecordDecl {
  readonly kind: "RecordDecl";
  readonly name: Ident;
  readonly fields: readonly { readonly name: Ident; readonly type: TypeExpr; readonly span: Span; resolvedType?: Type }[];
  readonly span: Span;
}

// ---------------------------------------------------------------------------------------------
// Queries

/** A query source: `Order`, `acme.billing.Invoice`, `std.invoices`, or `union(A, B, …)`. */
export type QuerySource =
  | { readonly kind: "Collection"; readonly name: Ident; readonly span: Span }
  | { readonly kind: "Union"; readonly sources: readonly { readonly kind: "Collection"; readonly name: Ident; readonly span: Span }[]; readonly span: Span };

/** `take`/`drop`/`depth` count: a literal or a `$param`. */
export type CountExpr =
  | { readonly kind: "IntLit"; readonly value: string; readonly span: Span; type?: Type }
  | { readonly kind: "QueryParam"; readonly name: Ident; readonly span: Span; type?: Type };

export interface SortKey {
  readonly field: Ident;
  readonly direction: "asc" | "desc";
  readonly span: Span;
}

export interface SelectItem {
  readonly expr: Expr;
  /** The column's name: the alias after `as`, else the field's own name (checker reports an unnamed expression). */
  readonly alias: Ident | null;
  readonly span: Span;
}

export interface Aggregation {
  /** `count()`, `sum(x)`, … as a Call expression. */
  readonly call: Expr;
  readonly alias: Ident | null;
  readonly span: Span;
}

export type Stage =
  | { readonly kind: "Where"; readonly expr: Expr; readonly span: Span }
  | { readonly kind: "Sort"; readonly keys: readonly SortKey[]; readonly span: Span }
  | { readonly kind: "Take"; readonly count: CountExpr; readonly span: Span }
  | { readonly kind: "Drop"; readonly count: CountExpr; readonly span: Span }
  | { readonly kind: "Select"; readonly items: readonly SelectItem[]; readonly span: Span }
  | { readonly kind: "Let"; readonly name: Ident; readonly expr: Expr; readonly span: Span }
  | { readonly kind: "Explode"; readonly field: Ident; readonly alias: Ident | null; readonly span: Span }
  | { readonly kind: "Summarize"; readonly aggregations: readonly Aggregation[]; readonly by: readonly Ident[]; readonly span: Span }
  | { readonly kind: "Search"; readonly text: Expr; readonly fields: readonly Ident[]; readonly span: Span }
  | { readonly kind: "Nearest"; readonly field: Ident; readonly to: Expr; readonly k: CountExpr; readonly span: Span }
  | { readonly kind: "Latest"; readonly span: Span }
  | { readonly kind: "Asof"; readonly time: Expr; readonly span: Span }
  | { readonly kind: "Traverse"; readonly field: Ident; readonly depth: CountExpr | null; readonly span: Span }
  | { readonly kind: "Shortest"; readonly field: Ident; readonly to: Expr; readonly span: Span };

/** A result column after a stage, filled by the checker: the query's typed plan. */
export interface Column {
  readonly name: string;
  readonly type: Type;
}

export interface QueryDecl {
  readonly kind: "QueryDecl";
  readonly name: Ident;
  readonly params: readonly ParamDecl[];
  /** `List<ROW>`: the row type's name (an aggregate or a record). */
  readonly returns: Ident;
  readonly exposure: Exposure;
  readonly source: QuerySource;
  readonly stages: readonly Stage[];
  readonly span: Span;
  /** Filled by the checker: the columns after the source and after each stage (`columns[i+1]` after stage i). */
  columns?: Column[][];
}

// ---------------------------------------------------------------------------------------------
// Upgrades and the whole contract

export interface MigrateDecl {
  readonly kind: "MigrateDecl";
  readonly aggregate: Ident;
  readonly assignments: readonly Assignment[];
  readonly span: Span;
}

export type Decl = EnumDecl | RecordDecl | AggregateDecl | QueryDecl | MigrateDecl;

/** A parsed contract: the header and the declarations of the one `charter` block. */
export interface Contract {
  readonly kind: "Contract";
  readonly namespace: Ident;
  readonly version: Ident;
  /** `upgrades art_…`: the artifact this version replaces. */
  readonly upgrades: Ident | null;
  readonly decls: readonly Decl[];
  /** The fenced block's body, as offsets into the Markdown file. */
  readonly span: Span;
}
