/**
 * Inputs that made the matching ladder and `closest` stall the event loop, shared by
 * `npm run bench -- stall` and the stall tests. Generated, never stored.
 */

/** `lines` copies of one line: every window of the file looks like every other. */
export function sameLines(lines: number, line = 'foo bar baz'): string {
  return `${line}\n`.repeat(lines);
}

/** Old text of `lines` lines, every one in sameLines' file but the last: not in the file. */
export function almostSame(lines: number, line = 'foo bar baz'): string {
  return `${`${line}\n`.repeat(lines - 1)}foo bar qux\n`;
}

/** The same lines indented 4 / 6 / 4 / 6 … spaces: no one indentation change makes them a tab-indented file's. */
export function unevenIndent(lines: number, line = 'foo bar baz'): string {
  return Array.from({ length: lines }, (_, k) => `${k % 2 === 0 ? '    ' : '      '}${line}`).join('\n');
}

/** An ApplyPatch updating `file` with a hunk whose context is `old` (lines) and one added line. */
export function contextPatch(file: string, old: string): string {
  const body = old
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => ` ${l}`)
    .join('\n');
  return `*** Begin Patch\n*** Update File: ${file}\n@@\n${body}\n+added\n*** End Patch\n`;
}

/** `matches` lines of one character: a replace_all of it has `matches` matches (1,000,000 → 2,000,000 bytes). */
export function oneCharLines(matches: number): string {
  return 'a\n'.repeat(matches);
}
