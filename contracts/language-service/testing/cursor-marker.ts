/**
 * @module The cursor-marker test helper: `'{ sta|te.status }'` is a text with the cursor where the
 * `|` is. Charter itself uses `|` for query stages, so the marker is configurable; tests on queries
 * use `‸`.
 */

/** The text without its one marker, and the marker's offset. */
export function cursor(marked: string, marker = "|"): { text: string; offset: number } {
  const offset = marked.indexOf(marker);
  if (offset === -1 || marked.indexOf(marker, offset + 1) !== -1) throw new Error(`expected exactly one cursor marker ${marker}`);
  return { text: marked.slice(0, offset) + marked.slice(offset + marker.length), offset };
}

/** Markdown around a block body, so a test writes only the contract. */
export function contractFile(body: string): string {
  return `# Test\n\n\`\`\`charter\n${body}\n\`\`\`\n`;
}
