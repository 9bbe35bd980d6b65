/**
 * @module Connector manifests: what a connector declares before the node loads it — the hosts it may
 * reach (literal `host[:port]`, or `{field}` templates filled from each configured account of it),
 * the effects it performs and whether each waits for the person's approval (`ask`: always;
 * `never`: it is the configuration that asked for it; `setting`: as the person's settings say,
 * asking by default), and how its effects are queued and retried. The manifests are the JSON files
 * of the `connectors/` folder; a manifest that does not check is refused at load with every
 * problem named, and the node does not start with it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseDeclaration } from "../worker/egress.ts";

export type Approval = "ask" | "never" | "setting";

export interface EffectDeclaration {
  readonly description: string;
  readonly approval: Approval;
}

export interface ConnectorManifest {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly hosts: readonly string[];
  readonly effects: Readonly<Record<string, EffectDeclaration>>;
  /** At most `concurrency` effects at once; at most `perSecond` started per second (0: no limit). */
  readonly queue: { readonly concurrency: number; readonly perSecond: number };
  /** Attempts before an effect is dead-lettered; back-off from `baseMs` doubling up to `maxMs`, with jitter. */
  readonly retry: { readonly attempts: number; readonly baseMs: number; readonly maxMs: number };
}

/** Where the built-in manifests are. */
export const MANIFEST_DIR = new URL("../../connectors/", import.meta.url).pathname;

const NAME = /^[a-z][a-z0-9-]{0,31}$/;
const TEMPLATE = /\{([a-zA-Z][a-zA-Z0-9]{0,31})\}/g;
const MAX_MANIFEST_BYTES = 64 * 1024;

export interface ManifestProblem {
  readonly pointer: string;
  readonly detail: string;
}

/** Checks `value` as a manifest: the manifest, or every problem found. Never walks beyond the known shape. */
export function checkManifest(value: unknown): { ok: true; manifest: ConnectorManifest } | { ok: false; problems: ManifestProblem[] } {
  const problems: ManifestProblem[] = [];
  const at = (pointer: string, detail: string) => problems.push({ pointer, detail });
  if (!isObject(value)) return { ok: false, problems: [{ pointer: "#", detail: "a manifest is a JSON object" }] };
  only(value, ["name", "title", "description", "hosts", "effects", "queue", "retry"], "#", at);
  if (typeof value.name !== "string" || !NAME.test(value.name)) at("#/name", "a name of lower-case letters, digits and '-', starting with a letter, at most 32");
  for (const field of ["title", "description"] as const) {
    if (typeof value[field] !== "string" || value[field].length === 0 || value[field].length > 500) at(`#/${field}`, "a text of 1 to 500 characters");
  }
  if (!Array.isArray(value.hosts) || value.hosts.length > 32) at("#/hosts", "a list of at most 32 hosts");
  else {
    value.hosts.forEach((host: unknown, i: number) => {
      if (typeof host !== "string" || parseDeclaration(host.replace(TEMPLATE, "x")) === null && parseDeclaration(host.replace(TEMPLATE, "1")) === null) {
        at(`#/hosts/${i}`, "a host, host:port, or a template of them with {field}s");
      }
    });
  }
  if (!isObject(value.effects) || Object.keys(value.effects).length > 32) at("#/effects", "an object of at most 32 effects");
  else {
    for (const [name, effect] of Object.entries(value.effects)) {
      const pointer = `#/effects/${name}`;
      if (!NAME.test(name)) at(pointer, "an effect name of lower-case letters, digits and '-'");
      if (!isObject(effect)) {
        at(pointer, "an object {description, approval}");
        continue;
      }
      only(effect, ["description", "approval"], pointer, at);
      if (typeof effect.description !== "string" || effect.description.length === 0 || effect.description.length > 500) at(`${pointer}/description`, "a text of 1 to 500 characters");
      if (effect.approval !== "ask" && effect.approval !== "never" && effect.approval !== "setting") at(`${pointer}/approval`, "one of ask, never, setting");
    }
  }
  const numbers = (name: "queue" | "retry", fields: Record<string, [number, number]>) => {
    const group = value[name];
    if (!isObject(group)) return at(`#/${name}`, `an object {${Object.keys(fields).join(", ")}}`);
    only(group, Object.keys(fields), `#/${name}`, at);
    for (const [field, [min, max]] of Object.entries(fields)) {
      const n = group[field];
      if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) at(`#/${name}/${field}`, `an integer from ${min} to ${max}`);
    }
  };
  numbers("queue", { concurrency: [1, 256], perSecond: [0, 100_000] });
  numbers("retry", { attempts: [1, 100], baseMs: [10, 3_600_000], maxMs: [10, 86_400_000] });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, manifest: value as unknown as ConnectorManifest };
}

/** Loads and checks every manifest in `dir`; throws naming each file and problem when one does not check. */
export function loadManifests(dir = MANIFEST_DIR): Map<string, ConnectorManifest> {
  const manifests = new Map<string, ConnectorManifest>();
  const problems: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
    const path = join(dir, file);
    if (statSync(path).size > MAX_MANIFEST_BYTES) {
      problems.push(`${file}: larger than ${MAX_MANIFEST_BYTES} bytes`);
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      problems.push(`${file}: not JSON (${(error as Error).message})`);
      continue;
    }
    const checked = checkManifest(json);
    if (!checked.ok) problems.push(...checked.problems.map((p) => `${file} ${p.pointer}: ${p.detail}`));
    else if (manifests.has(checked.manifest.name)) problems.push(`${file}: a second connector named ${checked.manifest.name}`);
    else if (`${checked.manifest.name}.json` !== file) problems.push(`${file}: the file of connector ${checked.manifest.name} is ${checked.manifest.name}.json`);
    else manifests.set(checked.manifest.name, checked.manifest);
  }
  if (problems.length > 0) throw new Error(`connector manifests refused:\n  ${problems.join("\n  ")}`);
  return manifests;
}

/** The hosts `manifest` declares for an account whose settings are `fields` (a template whose field is missing or empty declares nothing). */
export function declaredHosts(manifest: ConnectorManifest, fields: Readonly<Record<string, unknown>>): string[] {
  const hosts: string[] = [];
  for (const template of manifest.hosts) {
    let missing = false;
    const host = template.replace(TEMPLATE, (_m, field: string) => {
      const v = fields[field];
      if ((typeof v !== "string" && typeof v !== "number") || String(v) === "") missing = true;
      return String(v);
    });
    if (!missing && parseDeclaration(host) !== null) hosts.push(host);
  }
  return hosts;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function only(object: Record<string, unknown>, fields: readonly string[], pointer: string, at: (p: string, d: string) => void): void {
  for (const key of Object.keys(object)) if (!fields.includes(key)) at(`${pointer}/${key}`, "not a field of a manifest");
}
