/**
 * @module Hover: the type and declaration of the name under the cursor, and a stage's meaning. The
 * answer is Markdown: the declaration as written (a fenced `charter` snippet), then one line saying
 * what it is and its type.
 */
import type { Hover } from "vscode-languageserver-protocol";
import type { Contract, Type } from "../ast.ts";
import { typeName } from "../check/types.ts";
import { inBlock, treeAt, type ContractDocument } from "./document.ts";
import { CONTEXT, STAGES } from "./meanings.ts";
import { rangeOf } from "./positions.ts";
import { targetAt, type Named, type Target } from "./targets.ts";

/** The hover at `offset`, or null outside the block or over nothing with a meaning. */
export function hover(doc: ContractDocument, offset: number): Hover | null {
  if (!inBlock(doc, offset)) return null;
  const contract = treeAt(doc, offset);
  if (contract === null) return null;
  const target = targetAt(contract, offset);
  const text = target === null ? null : describe(doc.text, contract, target);
  if (target === null || text === null) return null;
  return { contents: { kind: "markdown", value: text }, range: rangeOf(doc.lines, target.span) };
}

function snippet(code: string, about: string): string {
  return `\`\`\`charter\n${code}\n\`\`\`\n${about}`;
}

function typed(t: Type | null | undefined): string {
  return t ? ` · \`${typeName(t)}\`` : "";
}

function describe(text: string, contract: Contract, t: Target): string | null {
  switch (t.kind) {
    case "field":
      return snippet(source(text, t.field.span), `field of \`${t.aggregate.name.name}\`${typed(t.field.resolvedType)}`);
    case "record-field":
      return snippet(source(text, t.field.span), `field of record \`${t.record.name.name}\`${typed(t.field.resolvedType)}`);
    case "param": {
      const owner = t.owner.kind === "QueryDecl" ? "query" : "action";
      return snippet(source(text, t.param.span), `parameter of ${owner} \`${t.owner.name.name}\`${typed(t.param.resolvedType)}`);
    }
    case "enum-value":
      return snippet(t.value, t.type ? `value of \`${typeName(t.type)}\`${t.type.kind === "Enum" && t.type.name ? ` = Enum(${t.type.values.join(", ")})` : ""}` : "enum value");
    case "column": {
      const type = t.query.columns?.[t.stage]?.find((c) => c.name === t.name)?.type;
      return snippet(type ? `${t.name}: ${typeName(type)}` : t.name, `column of query \`${t.query.name.name}\``);
    }
    case "context": {
      const c = CONTEXT[t.name];
      return c ? snippet(`context.${t.name}: ${c.type}`, c.meaning) : null;
    }
    case "type-name": {
      const decl = contract.decls.find((d) => d.kind !== "MigrateDecl" && d.name.name === t.name);
      return decl && decl.kind !== "MigrateDecl" ? declaration(text, contract, decl) : null;
    }
    case "declaration":
      return declaration(text, contract, t.decl);
    case "stage": {
      const s = STAGES[t.stage.kind.toLowerCase()];
      return s ? snippet(s.form, s.meaning) : null;
    }
    default: {
      const never: never = t;
      return never;
    }
  }
}

function declaration(text: string, contract: Contract, decl: Named): string {
  const written = source(text, decl.span);
  switch (decl.kind) {
    case "EnumDecl":
      return snippet(written, "enum");
    case "RecordDecl":
      return snippet(header(written, "{"), `record of ${decl.fields.length} field${decl.fields.length === 1 ? "" : "s"}`);
    case "AggregateDecl":
      return snippet(header(written, "{"), `aggregate of ${decl.fields.length} field${decl.fields.length === 1 ? "" : "s"} and ${decl.actions.length} action${decl.actions.length === 1 ? "" : "s"}`);
    case "ActionDecl": {
      const owner = contract.decls.find((d) => d.kind === "AggregateDecl" && d.actions.includes(decl));
      return snippet(header(written, "{"), `action of \`${owner?.kind === "AggregateDecl" ? owner.name.name : "?"}\``);
    }
    case "QueryDecl":
      return snippet(header(written, "pipe"), "query");
    default: {
      const never: never = decl;
      return never;
    }
  }
}

/** A declaration's header: its text up to `until`, comments dropped and whitespace runs made one space. */
function header(written: string, until: string): string {
  const withoutComments = written.replace(/#[^\n]*/g, "");
  const end = until === "pipe" ? withoutComments.search(/\bpipe\b/) : withoutComments.indexOf(until);
  return (end === -1 ? withoutComments : withoutComments.slice(0, end)).replace(/\s+/g, " ").trim();
}

function source(text: string, span: readonly [number, number]): string {
  return text.slice(span[0], span[1]);
}
