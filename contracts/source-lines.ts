/** @module Lines of a Markdown file: where each starts, and which line a UTF-16 offset falls on (spans are offsets). */

/** The offset at which each line of `text` starts. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** The 0-based line holding `offset`, by binary search over `lineStarts`. */
export function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Returns a function giving the 1-based line of an offset into `source`. */
export function lineIndex(source: string): (offset: number) => number {
  const starts = lineStarts(source);
  return (offset: number): number => lineAt(starts, offset) + 1;
}
