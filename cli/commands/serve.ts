/** @module `charter serve`: the engine-only edition's process tree. */
import { runTree } from "../run-tree.ts";

export default function serve(args: string[]): Promise<number> {
  return runTree("serve", args);
}
