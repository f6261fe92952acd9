import type { IndentChange } from './types.js';

/**
 * Rung `indentation`: the file's lines may differ from the old text's only by ONE
 * consistent change of leading whitespace, and the new text is re-indented by that change.
 *
 * The changes, tried in order:
 * - the same prefix added to every non-blank line;
 * - the same prefix removed from every one;
 * - tabs for spaces at one tab width (4, 8, 2), the columns unchanged: every old indentation is
 *   spaces only and the file writes the same columns with tabs (then spaces under a tab width),
 *   or every file indentation is spaces only and the old text wrote the same columns with tabs.
 *   A shift combined with a width ("4 spaces" for a tab, "6 spaces" for two tabs) is two changes,
 *   not one, and so is a line already written in the file's style next to one that is not.
 * A change is accepted only when it maps the old indentation of EVERY non-blank line to the
 * file's exactly; blank lines take part in the match, not in this rule.
 */

export function leadingWhitespace(line: string): string {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i += 1;
  return line.slice(0, i);
}

const WIDTHS = [4, 8, 2];

/** `pairs`: [file indentation, old indentation] of each non-blank line of one window. */
export function findIndentChange(pairs: ReadonlyArray<readonly [string, string]>): IndentChange | null {
  if (pairs.length === 0) return null;
  const added = prefixChange(pairs, 0, 1);
  if (added !== null) return { kind: 'add', prefix: added };
  const removed = prefixChange(pairs, 1, 0);
  if (removed !== null) return { kind: 'remove', prefix: removed };
  // Tabs for spaces: the old side is spaces only (the file writes tabs), or the file is.
  const tabs = pairs.every(([, old]) => !old.includes('\t'));
  if (!tabs && pairs.some(([file]) => file.includes('\t'))) return null;
  for (const width of WIDTHS) {
    const change: IndentChange = { kind: 'columns', width, tabs };
    if (pairs.every(([file, old]) => applyIndentChange(change, old) === file)) return change;
  }
  return null;
}

/** The prefix P with long[i] === P + short[i] for every pair, or null. */
function prefixChange(pairs: ReadonlyArray<readonly [string, string]>, longSide: 0 | 1, shortSide: 0 | 1): string | null {
  let prefix: string | null = null;
  for (const pair of pairs) {
    const long = pair[longSide];
    const short = pair[shortSide];
    if (!long.endsWith(short)) return null;
    const p = long.slice(0, long.length - short.length);
    if (prefix === null) prefix = p;
    else if (p !== prefix) return null;
  }
  return prefix;
}

export function columns(indent: string, width: number): number {
  let col = 0;
  for (const c of indent) col = c === '\t' ? col + width - (col % width) : col + 1;
  return col;
}

/** The indentation `indent` becomes under `change` (for old lines and new lines alike). */
export function applyIndentChange(change: IndentChange, indent: string): string {
  if (change.kind === 'add') return change.prefix + indent;
  if (change.kind === 'remove') {
    if (indent.startsWith(change.prefix)) return indent.slice(change.prefix.length);
    // A new line indented less than the removed prefix: remove what is there of it.
    let i = 0;
    while (i < indent.length && i < change.prefix.length && indent[i] === change.prefix[i]) i += 1;
    return indent.slice(i);
  }
  const col = columns(indent, change.width);
  if (!change.tabs) return ' '.repeat(col);
  return '\t'.repeat(Math.floor(col / change.width)) + ' '.repeat(col % change.width);
}

/** Re-indents every non-blank line by `change` (blank lines stay as given). */
export function reindentLines(lines: readonly string[], change: IndentChange): string[] {
  return lines.map((line) => {
    if (line.trim() === '') return line;
    const lead = leadingWhitespace(line);
    return applyIndentChange(change, lead) + line.slice(lead.length);
  });
}
