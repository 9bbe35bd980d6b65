/**
 * @module A linearizability checker: Wing & Gong's search with Lowe's memoization (the algorithm
 * Porcupine uses). A history of operations, each with call and return times (Infinity when the
 * caller never heard back: the operation may have happened at any later point, or not at all
 * if nothing observed it), is linearizable when some order of them, consistent with real time,
 * is a legal run of the sequential model. Histories are split per key first (P-compositionality).
 */

/** One operation as a client saw it. */
export interface Operation<I, O> {
  readonly input: I;
  readonly output: O;
  readonly call: number;
  /** Infinity when no answer arrived. */
  readonly ret: number;
}

/** A sequential specification. */
export interface Model<S, I, O> {
  readonly init: () => S;
  /** Whether `input` answered with `output` is legal in `state`, and the state after it. */
  readonly step: (state: S, input: I, output: O) => readonly [boolean, S];
  /** A string that identifies a state (for memoization). */
  readonly key: (state: S) => string;
  /** Splits a history into independent parts (e.g. per key); defaults to one part. */
  readonly partition?: (history: readonly Operation<I, O>[]) => Operation<I, O>[][];
}

interface Node<I, O> {
  readonly op: Operation<I, O> | null;
  readonly id: number;
  readonly isCall: boolean;
  match: Node<I, O> | null;
  prev: Node<I, O> | null;
  next: Node<I, O> | null;
}

/** Checks a history; `ok` is false with the failing part when no linearization exists. */
export function checkLinearizable<S, I, O>(model: Model<S, I, O>, history: readonly Operation<I, O>[]): { ok: true } | { ok: false; part: Operation<I, O>[] } {
  const parts = model.partition ? model.partition(history) : [[...history]];
  for (const part of parts) if (!checkPart(model, part)) return { ok: false, part };
  return { ok: true };
}

function buildList<I, O>(ops: readonly Operation<I, O>[]): Node<I, O> {
  const events: { time: number; isCall: boolean; id: number }[] = [];
  ops.forEach((op, id) => {
    events.push({ time: op.call, isCall: true, id });
    events.push({ time: op.ret, isCall: false, id });
  });
  // At equal times calls come first: operations that touch in time count as concurrent.
  events.sort((a, b) => a.time - b.time || (a.isCall === b.isCall ? a.id - b.id : a.isCall ? -1 : 1));
  const head: Node<I, O> = { op: null, id: -1, isCall: false, match: null, prev: null, next: null };
  const calls = new Map<number, Node<I, O>>();
  let tail = head;
  for (const e of events) {
    const node: Node<I, O> = { op: ops[e.id]!, id: e.id, isCall: e.isCall, match: null, prev: tail, next: null };
    if (e.isCall) calls.set(e.id, node);
    else calls.get(e.id)!.match = node;
    tail.next = node;
    tail = node;
  }
  return head;
}

function lift<I, O>(call: Node<I, O>): void {
  call.prev!.next = call.next;
  if (call.next) call.next.prev = call.prev;
  const ret = call.match!;
  ret.prev!.next = ret.next;
  if (ret.next) ret.next.prev = ret.prev;
}

function unlift<I, O>(call: Node<I, O>): void {
  const ret = call.match!;
  ret.prev!.next = ret;
  if (ret.next) ret.next.prev = ret;
  call.prev!.next = call;
  if (call.next) call.next.prev = call;
}

function checkPart<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[]): boolean {
  const head = buildList(ops);
  const linearized = new Uint32Array(Math.ceil(ops.length / 32) + 1);
  const cache = new Set<string>();
  const stack: { call: Node<I, O>; state: S }[] = [];
  let state = model.init();
  let entry = head.next;
  while (head.next !== null) {
    if (entry === null) throw new Error("linearizability: ran off the list");
    if (entry.isCall) {
      const [legal, after] = model.step(state, entry.op!.input, entry.op!.output);
      if (legal) {
        linearized[entry.id >> 5]! ^= 1 << (entry.id & 31);
        const key = `${linearized.join(",")}|${model.key(after)}`;
        if (!cache.has(key)) {
          cache.add(key);
          stack.push({ call: entry, state });
          state = after;
          lift(entry);
          entry = head.next;
          continue;
        }
        linearized[entry.id >> 5]! ^= 1 << (entry.id & 31);
      }
      entry = entry.next;
    } else {
      // A return: the operation it ends cannot come later, so undo the last choice.
      const top = stack.pop();
      if (!top) return false;
      state = top.state;
      linearized[top.call.id >> 5]! ^= 1 << (top.call.id & 31);
      unlift(top.call);
      entry = top.call.next;
    }
  }
  return true;
}

/** Input of the key-value register model. */
export type KvInput = { readonly kind: "write"; readonly key: string; readonly value: string } | { readonly kind: "read"; readonly key: string };

/** A register per key: writes always succeed, a read returns the last value written ("" at first). */
export const kvModel: Model<string, KvInput, string> = {
  init: () => "",
  step: (state, input, output) => (input.kind === "write" ? [true, input.value] : [output === state, state]),
  key: (state) => state,
  partition: (history) => {
    const byKey = new Map<string, Operation<KvInput, string>[]>();
    for (const op of history) byKey.set(op.input.key, [...(byKey.get(op.input.key) ?? []), op]);
    return [...byKey.values()];
  },
};
