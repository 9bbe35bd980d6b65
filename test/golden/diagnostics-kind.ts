/**
 * @module Golden cases for the front end: `diagnostics/<name>.charter.md` → `<name>.expected.txt`,
 * the formatted diagnostics of `analyze`, one per line (empty for a clean contract). A case that
 * is an upgrade may have `<name>.previous.charter.md`, the version it replaces, which supplies the
 * `previous` option. Queries may read two fixed foreign collections (see `collections`).
 */
import { existsSync, readFileSync } from "node:fs";
import type { Column } from "../../contracts/ast.ts";
import { previousVersion } from "../../contracts/check/previous.ts";
import { formatDiagnostics } from "../../contracts/diagnostics.ts";
import { analyze, type CheckOptions } from "../../contracts/front.ts";
import type { CaseKind } from "./case-kinds.ts";

const TEXT = (len: number) => ({ kind: "Text", len }) as const;

/** The foreign collections golden queries may read, as an installed node would answer. */
const collections: Record<string, readonly Column[]> = {
  "std.invoices": [
    { name: "subject", type: TEXT(128) },
    { name: "key", type: TEXT(128) },
    { name: "owner", type: { kind: "Identity" } },
    { name: "amount_minor", type: { kind: "Int" } },
    { name: "due_on", type: { kind: "Date" } },
  ],
  "acme.billing.Invoice": [
    { name: "subject", type: TEXT(128) },
    { name: "key", type: TEXT(128) },
    { name: "owner", type: { kind: "Identity" } },
    { name: "amount_minor", type: { kind: "Int" } },
    { name: "due_on", type: { kind: "Date" } },
  ],
};

/** The options a golden case is analyzed with. */
export function caseOptions(path: URL): CheckOptions {
  const options: { -readonly [K in keyof CheckOptions]: CheckOptions[K] } = {
    resolveCollection: (name) => collections[name] ?? null,
  };
  const previousPath = new URL(path.href.replace(/\.charter\.md$/, ".previous.charter.md"));
  if (existsSync(previousPath)) {
    const before = analyze(readFileSync(previousPath, "utf8"));
    if (before.contract === null || before.diagnostics.length > 0) throw new Error(`${previousPath.pathname} does not check cleanly`);
    options.previous = previousVersion(before.contract);
  }
  return options;
}

/** `diagnostics/<name>.charter.md` → `<name>.expected.txt`. */
export const diagnosticsKind: CaseKind = {
  name: "diagnostics",
  dir: new URL("./diagnostics/", import.meta.url),
  input: ".charter.md",
  helpers: [".previous.charter.md"],
  produce(path, text) {
    const { diagnostics } = analyze(text, caseOptions(path));
    const lines = formatDiagnostics(text, diagnostics);
    return { ".expected.txt": lines.map((l) => `${l}\n`).join("") };
  },
};
