/**
 * @module The one catalogue of front-end diagnostics. Every message the parser and checker can
 * report is here, under a stable code: C01xx syntax, C02xx validation (names, structure, `==`
 * types), C03xx type, C04xx query, C05xx upgrade, and C06xx compile — the back end's, which only a
 * compiler bug produces (`compile.ts` turns such a failure into a diagnostic instead of a crash).
 * Codes are never reused or renumbered; golden tests prove each front-end code is reachable.
 *
 * An entry may also say what to do: `hint` takes the message's arguments and gives the second line
 * of the printed diagnostic (nothing when it gives ""). Entries whose hint depends on what was
 * written take that advice as an optional argument (see `check/advice.ts`).
 */
import type { Span } from "./ast.ts";
import type { Diagnostic, Phase } from "./diagnostics.ts";
import { formatBytes } from "./limits.ts";

interface Entry {
  readonly phase: Phase;
  readonly message: (...args: any[]) => string;
  readonly hint?: (...args: any[]) => string;
}

/** The hint of an entry whose advice is its optional argument number `n` (0-based). */
const adviceAt =
  (n: number) =>
  (...args: unknown[]): string => {
    const a = args[n];
    return typeof a === "string" ? a : "";
  };

/** Every diagnostic the front end can produce. */
export const catalog = {
  // Syntax
  C0101: { phase: "syntax", message: (expected: string, found: string, _advice?: string) => `expected ${expected}, found ${found}`, hint: adviceAt(2) },
  C0102: { phase: "syntax", message: () => "no `charter` block: a contract file needs exactly one fenced code block tagged charter" },
  C0103: { phase: "syntax", message: () => "more than one `charter` block: a contract file has exactly one" },
  C0104: { phase: "syntax", message: (limit: number) => `nested more than ${limit} levels deep` },
  C0105: { phase: "syntax", message: (limit: number) => `expression is too long or too deeply nested (more than ${limit} operators deep)` },
  C0106: { phase: "syntax", message: (what: string, open: string, close: string) => `${what} is not closed: add \`${close}\` to match this \`${open}\`` },

  // Validation: names, structure and `==` types
  // C0201's message is fixed word for word; the types and what to write go on the hint's line.
  C0201: {
    phase: "validation",
    message: (_left: string, _op: string, _right: string, _advice: string) => "invalid eq types",
    hint: (left: string, op: string, right: string, a: string) => `cannot compare ${left} ${op} ${right}: ${a}`,
  },
  C0202: { phase: "validation", message: (op: string, left: string, right: string, _advice?: string) => `invalid eq types: cannot compare ${left} ${op} ${right}`, hint: adviceAt(3) },
  C0203: { phase: "validation", message: (ns: string) => `namespace \`${ns}\` must be a dotted lower-case name such as acme.shipping` },
  C0204: { phase: "validation", message: (v: string) => `version \`${v}\` must be a semantic version such as 1.2.0` },
  C0205: { phase: "validation", message: (id: string) => `upgrades \`${id}\` must be an artifact id: art_ followed by 64 lower-case hex digits` },
  C0206: { phase: "validation", message: (what: string, name: string, where: string) => `duplicate ${what} \`${name}\`${where}` },
  C0207: { phase: "validation", message: (name: string) => `unknown type \`${name}\`` },
  C0208: { phase: "validation", message: (name: string) => `\`${name}\` is an aggregate, not a value type: use Ref<${name}> to refer to one of its records` },
  C0209: { phase: "validation", message: (name: string) => `\`${name}\` is a record type; records describe query rows and cannot be stored in fields or parameters` },
  C0210: { phase: "validation", message: (target: string) => `\`${target}\` in Ref<${target}> is not an aggregate of this contract` },
  C0211: { phase: "validation", message: (action: string) => `action ${action} needs an \`authorize\` line` },
  C0212: { phase: "validation", message: (clause: string, action: string) => `action ${action} has more than one \`${clause}\`` },
  C0213: { phase: "validation", message: (field: string, aggregate: string, _advice?: string) => `aggregate ${aggregate} has no field \`${field}\``, hint: adviceAt(2) },
  C0214: { phase: "validation", message: (name: string, _advice?: string) => `unknown name \`${name}\`: not a parameter or an enum value`, hint: adviceAt(1) },
  C0215: { phase: "validation", message: (name: string) => `unknown context field \`context.${name}\`: use context.signer or context.time` },
  C0216: { phase: "validation", message: () => "`old.` reads the previous version and is allowed only in a migrate block" },
  C0217: { phase: "validation", message: () => "`$` parameters are allowed only in queries; in an action name a parameter without `$`" },
  C0218: { phase: "validation", message: (where: string, hint: string) => `\`state.\` cannot be read in ${where}${hint}` },
  C0219: { phase: "validation", message: (field: string) => `state.${field} is assigned more than once` },
  C0220: { phase: "validation", message: (fn: string, where: string) => `unknown function \`${fn}\`${where}` },
  C0221: { phase: "validation", message: (fn: string, expected: string, got: number) => `${fn}() takes ${expected}, not ${got}` },
  C0222: { phase: "validation", message: () => "a default must be a literal or an enum value" },
  C0223: { phase: "validation", message: (name: string, reason: string) => `the name \`${name}\` is reserved: ${reason}` },
  C0224: { phase: "validation", message: (metric: string) => `unknown vector metric \`${metric}\`: use cosine, l2 or dot` },
  C0225: { phase: "validation", message: (where: string) => `\`context.\` is not available in ${where}` },
  C0226: { phase: "validation", message: (value: string, type: string, _advice?: string) => `\`${value}\` is not a value of ${type}`, hint: adviceAt(2) },
  C0227: { phase: "validation", message: (fn: string) => `${fn}() is an aggregate function and can only be used in summarize` },
  C0228: {
    phase: "validation",
    message: (index: string, privateField: string, publicField: string) =>
      `fulltext index ${index} mixes private field \`${privateField}\` with public field \`${publicField}\`: a search's scores would reveal the private text's length; index public fields only (private fields may have an index of their own)`,
  },
  C0229: { phase: "validation", message: (action: string, max: number) => `action ${action} declares more than ${max} effects` },
  C0230: { phase: "validation", message: (effect: string, known: string) => `unknown effect \`${effect}\`: the effects are ${known}` },
  C0231: { phase: "validation", message: (effect: string, field: string, fields: string) => `effect ${effect} has no field \`${field}\`; its fields are ${fields}` },
  C0232: { phase: "validation", message: (field: string, effect: string) => `\`${field}\` is set more than once in effect ${effect}` },
  C0233: { phase: "validation", message: (effect: string, missing: string) => `effect ${effect} needs ${missing}` },

  // Types
  C0301: { phase: "type", message: (what: string, found: string) => `${what} must be Bool, found ${found}` },
  C0302: { phase: "type", message: (op: string, left: string, right: string, _advice?: string) => `${op} needs two Int, two Date or two Text values, found ${left} and ${right}`, hint: adviceAt(3) },
  C0303: { phase: "type", message: (op: string, left: string, right: string, _advice?: string) => `${op} needs two Int values${op === "+" ? " or two Text values" : ""}, found ${left} and ${right}`, hint: adviceAt(3) },
  C0304: { phase: "type", message: (op: string, left: string, right: string) => `${op} needs two Bool values, found ${left} and ${right}` },
  C0305: { phase: "type", message: (op: string, expected: string, found: string) => `${op} needs ${expected}, found ${found}` },
  C0306: { phase: "type", message: (found: string) => `len() needs Text or a List, found ${found}` },
  C0307: { phase: "type", message: (left: string, right: string) => `\`in\` needs a List of the left side's type on the right, found ${left} in ${right}` },
  C0308: { phase: "type", message: (fn: string, list: string, element: string) => `${fn}() needs a List and an element of its type, found ${list} and ${element}` },
  C0309: { phase: "type", message: (type: string, param: string, limit: number, example: string) => `${type} needs a ${param} between 1 and ${limit}, e.g. ${example}` },
  C0310: { phase: "type", message: (value: string, type: string, _advice?: string) => `default ${value} does not fit ${type}`, hint: adviceAt(2) },
  C0311: { phase: "type", message: (type: string) => `${type} fields have no default: they are unset until an action assigns them` },
  C0312: { phase: "type", message: (field: string, type: string) => `authorize state.${field} needs an Identity field, but ${field} is ${type}` },
  C0313: { phase: "type", message: (found: string, field: string, type: string, _advice?: string) => `cannot assign ${found} to state.${field}, which is ${type}`, hint: adviceAt(3) },
  C0314: { phase: "type", message: () => "merge commute needs every apply line to be `state.F = state.F + <Int constant>` on an Int field" },
  C0315: { phase: "type", message: (value: string) => `integer ${value} is outside the signed 64-bit range` },
  C0316: { phase: "type", message: () => "Vector values can only be stored and copied, never computed with or compared" },
  C0317: { phase: "type", message: (found: string) => `a List holds Text, Int, Bool, Date, Identity, Enum or Ref values, not ${found}` },
  C0318: { phase: "type", message: (index: string, field: string, expected: string, found: string) => `index ${index}: field ${field} must be ${expected}, found ${found}` },
  C0319: { phase: "type", message: (length: number, type: string) => `text of ${length} characters does not fit ${type}` },
  C0320: { phase: "type", message: (value: string) => `"${value}" is not a valid date: write YYYY-MM-DD` },
  C0321: { phase: "type", message: () => "Float is only for query rows: use it in a record type that a query returns" },
  C0322: { phase: "type", message: (type: string, param: string, size: number, limit: number) => `${type} ${param} ${size} is over the limit of ${limit}` },
  C0323: {
    phase: "type",
    message: (aggregate: string, bytes: number, limit: number) => `the state of aggregate ${aggregate} takes ${bytes} bytes, over the limit of ${formatBytes(limit)}: use shorter texts or smaller lists`,
  },
  C0324: {
    phase: "type",
    message: (action: string, bytes: number, limit: number) => `the arguments of action ${action} take ${bytes} bytes, over the limit of ${formatBytes(limit)}: use shorter texts or smaller lists`,
  },
  C0325: {
    phase: "type",
    message: (action: string, bytes: number, limit: number) =>
      `action ${action} needs up to ${bytes} bytes of program memory (state, arguments, text literals and the values it builds), over the limit of ${formatBytes(limit)}`,
  },

  C0326: {
    phase: "type",
    message: (field: string, effect: string) => `\`${field}\` of effect ${effect} is a template: text, numbers, parameters, state.FIELD and context.signer or context.time joined by +`,
    hint: () => "compute anything else in apply, into a field, and name the field here",
  },
  C0327: { phase: "type", message: (field: string, effect: string, type: string) => `\`${field}\` of effect ${effect} cannot hold ${type}` },

  // Queries
  C0401: { phase: "query", message: (name: string) => `unknown query source \`${name}\`: not an aggregate of this contract or an installed collection` },
  C0402: { phase: "query", message: (name: string) => `unknown row type \`${name}\` in returns List<${name}>: declare a record or use an aggregate` },
  C0403: { phase: "query", message: (name: string, available: string) => `no column \`${name}\` here; the columns are ${available}` },
  C0404: { phase: "query", message: (name: string) => `unknown query parameter \`$${name}\`` },
  C0405: { phase: "query", message: (found: string) => `where needs a Bool condition, found ${found}` },
  C0406: { phase: "query", message: (name: string, type: string) => `cannot sort by \`${name}\`: ${type} has no order (sort Int, Date, Text or Float columns)` },
  C0407: { phase: "query", message: (stage: string, found: string) => `${stage} needs a non-negative Int literal or an Int parameter, found ${found}` },
  C0408: { phase: "query", message: () => "this column needs a name: add `as NAME`" },
  C0409: { phase: "query", message: (name: string) => `duplicate column \`${name}\`` },
  C0410: { phase: "query", message: (name: string, type: string) => `cannot explode \`${name}\`: it is ${type}, not a List` },
  C0411: { phase: "query", message: (fn: string, found: string) => `${fn}() cannot summarize ${found}` },
  C0412: { phase: "query", message: (fields: string) => `search needs a fulltext index over ${fields} on the source` },
  C0413: { phase: "query", message: (stage: string, expected: string, found: string) => `${stage} needs ${expected}, found ${found}` },
  C0414: { phase: "query", message: (field: string) => `nearest needs a vector index over \`${field}\` on the source` },
  C0415: { phase: "query", message: (stage: string, field: string, type: string, source: string) => `${stage} needs a Ref<${source}> column, but \`${field}\` is ${type}` },
  C0416: { phase: "query", message: (stage: string) => `${stage} must come before select, let, explode and summarize, which reshape rows` },
  C0417: { phase: "query", message: (row: string, missing: string) => `the result has no column${missing.includes(",") ? "s" : ""} ${missing} that ${row} declares` },
  C0418: { phase: "query", message: (row: string, extra: string) => `the result has column${extra.includes(",") ? "s" : ""} ${extra} that ${row} does not declare` },
  C0419: { phase: "query", message: (column: string, found: string, row: string, declared: string) => `column \`${column}\` is ${found} but ${row} declares ${declared}` },
  C0420: { phase: "query", message: (name: string, other: string) => `union sources must have the same columns: \`${name}\` differs from \`${other}\`` },
  C0421: { phase: "query", message: (field: string, aggregate: string) => `field \`${field}\` of ${aggregate} is private and cannot be read by a query` },

  // Upgrades
  C0501: { phase: "upgrade", message: () => "a migrate block is allowed only in an upgrade: add an `upgrades art_…` line to the header" },
  C0502: { phase: "upgrade", message: (name: string) => `migrate \`${name}\`: no aggregate of this contract has that name` },
  C0503: { phase: "upgrade", message: (aggregate: string, missing: string) => `aggregate ${aggregate} needs migrate lines for ${missing}` },
  C0504: { phase: "upgrade", message: (field: string, aggregate: string) => `the previous version of ${aggregate} has no field \`${field}\`` },
  C0505: { phase: "upgrade", message: (aggregate: string) => `aggregate ${aggregate} is new in this version, so it has no records to migrate` },

  // The back end: never the contract's fault
  C0601: { phase: "compile", message: (detail: string) => `the compiler failed on this contract (${detail}); this is a bug in Charter, not in the contract: please report it` },
} as const satisfies Record<string, Entry>;

/** A catalogue code. */
export type Code = keyof typeof catalog;

/** The diagnostic for `code` at `span`, its message filled from `args`. */
export function diagnostic<C extends Code>(code: C, span: Span, ...args: Parameters<(typeof catalog)[C]["message"]>): Diagnostic {
  const entry: Entry = catalog[code];
  const hint = entry.hint?.(...args) ?? "";
  const d: Diagnostic = { code, phase: entry.phase, severity: "error", message: entry.message(...args), span };
  return hint === "" ? d : { ...d, hint };
}
