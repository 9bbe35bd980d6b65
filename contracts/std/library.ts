/**
 * @module The standard library as the engine installs it: the compiled artifacts of the contracts
 * in this folder (`*.charter.md`) and in `node/`, stored in `artifacts.json` by
 * `node contracts/std/build.ts` — so the engine and the gateway, which never load the compiler,
 * can install them. A test fails when the file no longer matches the sources.
 *
 * Two sets: the contracts of this folder (`std.invoices`) are in every tenant, from its creation;
 * those of `node/` (`std.tasks`, `std.memory`, …: the person's own records) are `personal`,
 * installed by `charter node` in the personal tenant only (at set-up, and at start for a node set
 * up before a contract joined the set).
 */
import { readFileSync } from "node:fs";

/** One compiled standard-library contract, ready for `installArtifact`. */
export interface StdArtifact {
  readonly namespace: string;
  readonly id: string;
  readonly schemaJson: string;
  readonly wasm: Uint8Array;
  readonly source: string;
  /** One of the node's own contracts, installed in the personal tenant only. */
  readonly personal: boolean;
}

interface Stored {
  readonly namespace: string;
  readonly id: string;
  readonly schemaJson: string;
  readonly wasmBase64: string;
  readonly source: string;
  readonly personal?: true;
}

export const ARTIFACTS_URL = new URL("./artifacts.json", import.meta.url);

let cached: readonly StdArtifact[] | null = null;

/** The standard library's artifacts. */
export function standardLibrary(): readonly StdArtifact[] {
  if (cached === null) {
    const stored = JSON.parse(readFileSync(ARTIFACTS_URL, "utf8")) as Stored[];
    cached = stored.map((s) => ({ namespace: s.namespace, id: s.id, schemaJson: s.schemaJson, wasm: new Uint8Array(Buffer.from(s.wasmBase64, "base64")), source: s.source, personal: s.personal === true }));
  }
  return cached;
}

/** The file's content for these compiled artifacts (build.ts writes it, the freshness test compares it). */
export function artifactsJson(artifacts: readonly { namespace: string; id: string; schemaBytes: Uint8Array; wasm: Uint8Array; source: string; personal: boolean }[]): string {
  const stored: Stored[] = artifacts.map((a) => ({
    namespace: a.namespace,
    id: a.id,
    schemaJson: new TextDecoder().decode(a.schemaBytes),
    wasmBase64: Buffer.from(a.wasm).toString("base64"),
    source: a.source,
    ...(a.personal ? { personal: true as const } : {}),
  }));
  return `${JSON.stringify(stored, null, 1)}\n`;
}
