/** @module `charter node`: the personal node's process tree, under the launcher that self-update needs (cli/launcher.ts). */
import { runNode } from "../launcher.ts";

export default function node(args: string[]): Promise<number> {
  return runNode(args);
}
