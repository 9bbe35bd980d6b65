/** @module `charter node`: the personal node's process tree. */
import { runTree } from "../run-tree.ts";

export default function node(args: string[]): Promise<number> {
  return runTree("node", args);
}
