/** @module Where the documents of contracts' `effect pdf` live: `DATA/documents/<sha256>.pdf` (the outbox writes, the gateway serves). */
import { join } from "node:path";

/** The file of the document whose SHA-256 is `sha256` (hex) in `dir`. */
export function documentPath(dir: string, sha256: string): string {
  return join(dir, `${sha256}.pdf`);
}
