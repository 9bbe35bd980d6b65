/**
 * @module A dashboard's panels as a request gives them, `[{namespace, query, params?}]`: their
 * types checked (`400 malformed-body` naming each field), then each checked against the personal
 * tenant without running it — the contract installed, the query declared, the parameters of its
 * types (`400 bad-panel` naming the panel). How many panels a dashboard may have, and how long
 * names and parameters may be, is the contract's to say.
 */
import { checkParams, type ParamProblem } from "../../../../contracts/query/query-params.ts";
import { queryPlan } from "../../../../contracts/query/query-sql.ts";
import { UnsupportedQuery } from "../../../../contracts/query/sql-expr.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { PersonReader, TenantRead } from "../personal/person-reader.ts";
import { queryRunner } from "../../reads/run-query.ts";
import type { ActiveSchema } from "../../reads/store-view.ts";

/** A panel of a request, its types checked. */
export interface PanelSpec {
  readonly namespace: string;
  readonly query: string;
  readonly params: Record<string, unknown>;
}

const PANEL_FIELDS: ReadonlySet<string> = new Set(["namespace", "query", "params"]);

/** Field problems named in one answer at most (the rest are left out). */
const MAX_ERRORS = 20;

/** The panels of `value` (the body's `panels`), or the field problems pushed onto `errors`. */
export function panelSpecs(value: unknown, errors: ParamProblem[]): PanelSpec[] {
  if (!Array.isArray(value)) {
    errors.push({ pointer: "#/panels", detail: "panels must be a list of {namespace, query, params}" });
    return [];
  }
  const specs: PanelSpec[] = [];
  for (const [i, item] of value.entries()) {
    const at = `#/panels/${i}`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      errors.push({ pointer: at, detail: "a panel must be an object {namespace, query, params}" });
      continue;
    }
    const panel = item as Record<string, unknown>;
    for (const key of Object.keys(panel)) if (!PANEL_FIELDS.has(key)) errors.push({ pointer: `${at}/${key.slice(0, 64).replaceAll("~", "~0").replaceAll("/", "~1")}`, detail: "unknown field" });
    const bad = errors.length;
    if (typeof panel.namespace !== "string") errors.push({ pointer: `${at}/namespace`, detail: "namespace must be a string" });
    if (typeof panel.query !== "string") errors.push({ pointer: `${at}/query`, detail: "query must be a string" });
    const params = panel.params ?? {};
    if (typeof params !== "object" || params === null || Array.isArray(params)) errors.push({ pointer: `${at}/params`, detail: "params must be an object" });
    if (errors.length === bad) specs.push({ namespace: panel.namespace as string, query: panel.query as string, params: params as Record<string, unknown> });
    if (errors.length >= MAX_ERRORS) break;
  }
  return specs;
}

/** Throws `400 bad-panel` naming every panel whose query the personal tenant cannot run as given. */
export function checkPanels(reader: PersonReader, panels: readonly PanelSpec[]): void {
  const errors = reader.read(undefined, (r) => {
    const found: ParamProblem[] = [];
    for (const [i, panel] of panels.entries()) {
      if (found.length >= MAX_ERRORS) break;
      const at = `#/panels/${i}`;
      const active = activeOf(r, panel.namespace);
      if (active === null) {
        found.push({ pointer: `${at}/namespace`, detail: `panel ${i}: the personal tenant has no contract '${panel.namespace.slice(0, 128)}'` });
        continue;
      }
      const plan = queryPlan(active.schema, panel.query);
      if (plan === undefined) {
        found.push({ pointer: `${at}/query`, detail: `panel ${i}: ${panel.namespace} has no query '${panel.query.slice(0, 128)}'` });
        continue;
      }
      const compiled = queryRunner(r.db).compiled(active.schema, panel.query, r.tenant, active.artifact);
      if (compiled === undefined || compiled instanceof UnsupportedQuery) {
        found.push({ pointer: `${at}/query`, detail: `panel ${i}: ${panel.namespace}.${panel.query} cannot be run${compiled instanceof UnsupportedQuery ? ` (${compiled.message})` : ""}` });
        continue;
      }
      const checked = checkParams(plan.params, panel.params, compiled.counts);
      if (!checked.ok) for (const e of checked.errors) found.push({ pointer: e.pointer.replace(/^#\/params/, `${at}/params`), detail: `panel ${i}: ${e.detail}` });
    }
    return found;
  });
  if (errors.length > 0) {
    const first = errors[0] as ParamProblem;
    throw new HttpProblem(problem(400, "bad-panel", errors.length === 1 ? first.detail : `${first.detail} (and ${errors.length - 1} more)`, errors.slice(0, MAX_ERRORS)));
  }
}

// The active contract of `namespace`, or null (the reader's `contract` throws a 404 instead).
function activeOf(r: TenantRead, namespace: string): ActiveSchema | null {
  try {
    return r.contract(namespace);
  } catch (error) {
    if (error instanceof HttpProblem && error.problem.status === 404) return null;
    throw error;
  }
}
