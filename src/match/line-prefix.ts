/**
 * Read's line-number prefixes (`     1→`; other tools print digits and a tab) left in
 * old text by a model that copied Read's output (rung `line_numbers`).
 */
const PREFIX = /^ *\d+(?:\u2192|\t)/;

/** The lines without their prefixes, or null when some line has none. */
export function stripPrefixes(lines: readonly string[]): string[] | null {
  if (lines.length === 0) return null;
  const out: string[] = [];
  for (const line of lines) {
    const m = PREFIX.exec(line);
    if (!m) return null;
    out.push(line.slice(m[0].length));
  }
  return out;
}

export function hasPrefix(line: string): boolean {
  return PREFIX.test(line);
}
