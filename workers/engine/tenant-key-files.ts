/**
 * @module The names of a tenant's key files in `DATA/keys`: its current key `tenant-<handle>.jwk`,
 * the keys rotations retired `tenant-<handle>.retired-<n>.jwk` (n = 1, 2, … in the order they were
 * retired), and `tenant-<handle>.next.jwk`, a rotation's new key between its write and the commit
 * that makes it current. A handle has no dot, so the three never collide.
 */
import { join } from "node:path";

/** The tenant's identity key file. */
export const tenantKeyPath = (keysDir: string, handle: string) => join(keysDir, `tenant-${handle}.jwk`);

/** The `n`th key a rotation retired (1 for the tenant's first). */
export const retiredKeyPath = (keysDir: string, handle: string, n: number) => join(keysDir, `tenant-${handle}.retired-${n}.jwk`);

/** A rotation's new key, until its commit makes it the current one. */
export const nextKeyPath = (keysDir: string, handle: string) => join(keysDir, `tenant-${handle}.next.jwk`);

/** What a key file of `DATA/keys` is to its tenant. */
export type TenantKeyFile =
  | { readonly handle: string; readonly kind: "current" }
  | { readonly handle: string; readonly kind: "retired"; readonly n: number }
  | { readonly handle: string; readonly kind: "next" };

const NAME = /^tenant-([a-z0-9-]{2,63})(?:\.(next|retired-([1-9][0-9]{0,8})))?\.jwk$/;

/** The tenant key file `name` is, or null for any other name. */
export function parseTenantKeyFile(name: string): TenantKeyFile | null {
  const m = NAME.exec(name);
  if (m === null) return null;
  const handle = m[1] as string;
  if (m[2] === undefined) return { handle, kind: "current" };
  if (m[2] === "next") return { handle, kind: "next" };
  return { handle, kind: "retired", n: Number(m[3]) };
}

/** Whether a snapshot may carry `name`: a current or a retired key (a `.next` key never travels). */
export function isSnapshotKeyFile(name: string): boolean {
  const file = parseTenantKeyFile(name);
  return file !== null && file.kind !== "next";
}
