/**
 * @module Checks the header lines: `namespace` is a dotted lower-case name, `version` a semantic
 * version (semver 2.0.0), `upgrades` an artifact id (`art_` and 64 lower-case hex digits).
 */
import type { Contract } from "../ast.ts";
import type { Scope } from "./scope.ts";

const NAMESPACE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
const NUMBER = "(0|[1-9][0-9]*)";
const IDENT = "[0-9A-Za-z-]+";
const SEMVER = new RegExp(`^${NUMBER}\\.${NUMBER}\\.${NUMBER}(-${IDENT}(\\.${IDENT})*)?(\\+${IDENT}(\\.${IDENT})*)?$`);
const ARTIFACT = /^art_[0-9a-f]{64}$/;

/** Reports malformed header values. */
export function checkHeader(scope: Scope, contract: Contract): void {
  if (!NAMESPACE.test(contract.namespace.name)) scope.report("C0203", contract.namespace.span, contract.namespace.name);
  if (!validSemver(contract.version.name)) scope.report("C0204", contract.version.span, contract.version.name);
  const up = contract.upgrades;
  if (up !== null && !ARTIFACT.test(up.name)) scope.report("C0205", up.span, up.name);
}

function validSemver(version: string): boolean {
  if (!SEMVER.test(version)) return false;
  // Numeric pre-release identifiers may not have leading zeros (semver 2.0.0 §9).
  const pre = /-([^+]*)/.exec(version)?.[1];
  return pre === undefined || pre.split(".").every((p) => !/^0[0-9]+$/.test(p));
}
