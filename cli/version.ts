/** @module The version of this Charter, from package.json. */
import { readFileSync } from "node:fs";

/** The version printed by `--version` and reported by `/health`. */
export function charterVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}
