/**
 * @module The names a model calls tools by. Providers accept `^[A-Za-z0-9_-]{1,64}$`, and a tool's
 * own name (`std.tasks.Create`) has dots and may be longer, so each gets a call name: the name with
 * every other character made `_`; one too long, or one whose spelling another tool of the
 * catalogue shares, gets a short hash of its own name instead of its tail. A name's call name
 * depends on nothing else unless such a clash appears, so the model sees the same name from turn
 * to turn and a stored conversation's calls still resolve.
 */
import { createHash } from "node:crypto";

/** The longest call name providers accept. */
export const MAX_CALL_NAME = 64;

/** What a call name is. */
export const CALL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The hash lengths tried, shortest first; the last is the whole digest. */
const HASH_LENGTHS = [8, 16, 32, 64];

/** The call names of `names` (distinct tool names), in the same order, distinct from each other. */
export function callNames(names: readonly string[]): string[] {
  const spelled = names.map(spelling);
  const count = new Map<string, number>();
  for (const s of spelled) count.set(s, (count.get(s) ?? 0) + 1);
  const plain = (i: number) => (spelled[i] as string).length <= MAX_CALL_NAME && count.get(spelled[i] as string) === 1;
  const taken = new Set(spelled.filter((_, i) => plain(i)));
  return names.map((name, i) => {
    if (plain(i)) return spelled[i] as string;
    for (const length of HASH_LENGTHS) {
      const candidate = hashed(spelled[i] as string, name, length);
      if (!taken.has(candidate)) {
        taken.add(candidate);
        return candidate;
      }
    }
    throw new Error(`tool name ${JSON.stringify(name)} is given twice`);
  });
}

/** `name` with every character a call name may not hold made `_`. */
function spelling(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The spelling's head, `_`, and the first `length` hex digits of the name's SHA-256 (the whole name, not the spelling). */
function hashed(spelled: string, name: string, length: number): string {
  const hex = createHash("sha256").update(name, "utf8").digest("hex").slice(0, length);
  const room = MAX_CALL_NAME - length - 1;
  return room <= 0 ? hex : `${spelled.slice(0, room)}_${hex}`;
}
