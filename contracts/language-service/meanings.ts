/**
 * @module One-line meanings of the language's keywords that editors show: query stages (reference
 * §6), and the `authorize`, `merge` and `durability` modes (§4). Completion lists them; hover shows
 * a stage's meaning.
 */

/** Each stage's form and meaning, in the reference's order. */
export const STAGES: Readonly<Record<string, { readonly form: string; readonly meaning: string }>> = {
  where: { form: "where EXPR", meaning: "keep rows where EXPR holds; `$param` reads a parameter" },
  sort: { form: "sort F [asc|desc], …", meaning: "stable order" },
  take: { form: "take N", meaning: "keep the first N rows (N a literal or `$param`)" },
  drop: { form: "drop N", meaning: "skip the first N rows (N a literal or `$param`)" },
  select: { form: "select EXPR [as NAME], …", meaning: "the columns of the result" },
  let: { form: "let NAME = EXPR", meaning: "add a computed column" },
  explode: { form: "explode LISTFIELD [as NAME]", meaning: "one row per element" },
  summarize: { form: "summarize AGG [as NAME], … [by F, …]", meaning: "`count()`, `sum(x)`, `min(x)`, `max(x)`, `avg(x)`; without `by`, one totals row" },
  search: { form: "search TEXT in F, …", meaning: "ranked full-text search over a declared `fulltext` index; adds `score`, best first" },
  nearest: { form: "nearest F to $vec take K", meaning: "exact nearest neighbours over a declared `vector` index; adds `distance`" },
  latest: { form: "latest", meaning: "with history: the newest version of each subject (the default view)" },
  asof: { form: "asof $time", meaning: "the state every subject had at that time, from history" },
  traverse: { form: "traverse REFFIELD [depth N]", meaning: "follow references, one row per reached record" },
  shortest: { form: "shortest REFFIELD to $subject", meaning: "the shortest chain of references to a subject" },
};

/** The modes of an action's `authorize`, `merge` and `durability` lines, and `api` exposures. */
export const MODES: Readonly<Record<"authorize" | "merge" | "durability" | "api", Readonly<Record<string, string>>>> = {
  authorize: {
    anyone: "any valid signature",
    member: "a member or owner of the tenant",
    owner: "an owner of the tenant",
    delegate: "a holder of a delegation with the scope that follows, or an owner",
    "state.": "exactly the identity held in an `Identity` field; refused while it is unset",
  },
  merge: {
    replay: "re-run against the merged state (the default)",
    reject: "also refused if the subject changed since the device last saw it",
    commute: "like replay; `apply` may only add constants to `Int` fields, so order never matters",
  },
  durability: {
    memory: "applied and in the write-ahead log, not yet fsynced",
    local: "fsynced on the voter that accepted it",
    quorum: "fsynced on a majority of voters (the default)",
  },
  api: {
    public: "any signed caller",
    authenticated: "a caller known to the tenant",
  },
};

/** The effects an action may declare (`effect KIND { … }`). */
export const EFFECTS: Readonly<Record<string, string>> = {
  email: "sends a message through the tenant's email account once the command is committed: to, cc, reply_to, subject, text",
  pdf: "renders a PDF document once the command is committed: title, text, file",
};

/** What `context.` offers. */
export const CONTEXT: Readonly<Record<string, { readonly type: string; readonly meaning: string }>> = {
  signer: { type: "Identity", meaning: "the identity that signed the command" },
  time: { type: "Int", meaning: "the command's agreed commit time, in milliseconds (the same on every voter)" },
};
